// The batcher behind the watcher's signals: changes that wait for a flight go together in the
// next, and one whose context ends while waiting fails and frees its shard.
package watch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// flushes records each flush and holds it until released.
type flushes struct {
	mu      sync.Mutex
	got     [][]int
	started chan struct{}
	release chan error
}

func (f *flushes) flush(_ context.Context, changes []int) error {
	f.mu.Lock()
	f.got = append(f.got, append([]int(nil), changes...))
	f.mu.Unlock()
	f.started <- struct{}{}
	return <-f.release
}

func TestChangesWaitingForAFlightGoTogetherInTheNext(t *testing.T) {
	b := newBatcher[string, int]()
	f := &flushes{started: make(chan struct{}, 10), release: make(chan error)}
	ctx := context.Background()

	first := make(chan error, 1)
	go func() { first <- b.send(ctx, "shard", 0, f.flush) }()
	<-f.started // the first change flies alone

	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for i := 1; i <= 10; i++ {
		wg.Go(func() { errs <- b.send(ctx, "shard", i, f.flush) })
	}
	// A busy shard does not hold another one up.
	g := &flushes{started: make(chan struct{}, 1), release: make(chan error, 1)}
	g.release <- nil
	if err := b.send(ctx, "other", 99, g.flush); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		open := b.open["shard"]
		return open != nil && len(open.changes) == 10
	})

	f.release <- nil // the first flight lands; the ten waiting go in one signal
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	<-f.started
	boom := errors.New("temporal is away")
	f.release <- boom
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, boom) {
			t.Errorf("a change of the failed batch got %v, want the batch's error", err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 2 || len(f.got[0]) != 1 || len(f.got[1]) != 10 {
		t.Fatalf("flushes %v, want [0], then the ten changes together", f.got)
	}
}

func TestAChangeWhoseContextEndsWhileWaitingFailsAndFreesTheShard(t *testing.T) {
	b := newBatcher[string, int]()
	f := &flushes{started: make(chan struct{}, 10), release: make(chan error)}
	go func() { _ = b.send(context.Background(), "shard", 0, f.flush) }()
	<-f.started

	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan error, 1)
	go func() { waiting <- b.send(ctx, "shard", 1, f.flush) }()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.open["shard"] != nil })
	cancel()
	if err := <-waiting; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want the change's own context's end", err)
	}
	f.release <- nil

	done := make(chan error, 1)
	go func() { done <- b.send(context.Background(), "shard", 2, f.flush) }()
	<-f.started
	f.release <- nil
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the batcher never got there")
		}
	}
}

func TestABurstsSignalsToOneWorkflowComeAtMostOnceABusyGap(t *testing.T) {
	b := newBatcher[string, int]()
	quick := func(context.Context, []int) error { return nil }
	ctx := context.Background()

	// Alone, changes go at once, one after another.
	began := time.Now()
	for i := range 3 {
		if err := b.send(ctx, "shard", i, quick); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(began); took >= busyGap {
		t.Fatalf("three lone changes took %s", took)
	}

	// A batch of two holds the next signal back until busyGap after it began.
	f := &flushes{started: make(chan struct{}, 10), release: make(chan error, 10)}
	first := make(chan error, 1)
	go func() { first <- b.send(ctx, "shard", 10, f.flush) }()
	<-f.started
	var wg sync.WaitGroup
	for i := 11; i <= 12; i++ {
		wg.Go(func() { _ = b.send(ctx, "shard", i, f.flush) })
	}
	waitFor(t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		open := b.open["shard"]
		return open != nil && len(open.changes) == 2
	})
	f.release <- nil
	<-first
	<-f.started // the batch of two
	pairBegan := time.Now()
	f.release <- nil
	wg.Wait()
	next := make(chan struct{})
	f.release <- nil
	go func() { _ = b.send(ctx, "shard", 13, f.flush); close(next) }()
	<-f.started
	if waited := time.Since(pairBegan); waited < busyGap-20*time.Millisecond {
		t.Fatalf("the signal after a batch of two went %s after it, not busyGap (%s)", waited, busyGap)
	}
	<-next
}
