// Tests of atOnce, without servers: every call runs, no more than the limit at the same
// time, and the error returned is the first in index order, not the first to happen.
package observatory

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAtOnceRunsEveryCallAtTheSameTime(t *testing.T) {
	var started sync.WaitGroup
	started.Add(7)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // one bound for all calls
	defer cancel()
	err := atOnce(7, 0, func(int) error {
		started.Done()
		select { // each call returns only once all seven have started
		case <-all:
			return nil
		case <-ctx.Done():
			return errors.New("the seven calls never ran at the same time")
		}
	})
	assert.NoError(t, err)
}

func TestAtOnceRunsNoMoreThanItsLimit(t *testing.T) {
	var running, most, calls atomic.Int32
	reached := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // one bound for all calls
	defer cancel()
	err := atOnce(7, 3, func(int) error {
		n := running.Add(1)
		defer running.Add(-1)
		calls.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if n == 3 {
			once.Do(func() { close(reached) })
		}
		select { // each call waits until three run together: a serial atOnce never gets there
		case <-reached:
			return nil
		case <-ctx.Done():
			return errors.New("three calls never ran at the same time")
		}
	})
	assert.NoError(t, err)
	assert.EqualValues(t, 7, calls.Load())
	assert.EqualValues(t, 3, most.Load(), "three calls ran at the same time, and never more")
}

func TestAtOnceReturnsTheFirstErrorInIndexOrder(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	secondFailing := make(chan struct{})
	err := atOnce(3, 0, func(i int) error {
		switch i {
		case 1:
			select { // fails after call 2 has
			case <-secondFailing:
				return first
			case <-time.After(5 * time.Second):
				return errors.New("call 2 never ran beside call 1")
			}
		case 2:
			defer close(secondFailing)
			return second
		}
		return nil
	})
	assert.Same(t, first, err)
	assert.NoError(t, atOnce(0, 0, func(int) error { return first }))
}
