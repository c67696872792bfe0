// The one heartbeat of the activities. An activity that waits heartbeats with a short string
// saying what it waits on, so a dead worker is noticed within seconds and a timeout says where
// it stuck. One that waits in one place says so at each look (RecordHeartbeat, WaitUntil);
// one that waits on many things at once, or on one call that does not return, keeps a
// Heartbeat that says at a steady pace what is still waited on.
package activities

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// RecordHeartbeat sends a heartbeat saying what the activity waits on, when ctx runs one (a
// test may call an activity as a plain method).
func RecordHeartbeat(ctx context.Context, what string) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, what)
	}
}

// WaitUntil polls done every `every` until it holds, heartbeating what it waits on through
// beat; ctx bounds it (an activity's ctx ends at its deadline or when it is cancelled).
func WaitUntil(ctx context.Context, what string, every time.Duration, beat func(context.Context, string),
	done func(context.Context) (bool, error)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		ok, err := done(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		beat(ctx, what)
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-t.C:
		}
	}
}

// Heartbeat reports, at a steady pace, what an activity's many waits wait on.
type Heartbeat struct {
	mu      sync.Mutex
	waiting map[string]string
	done    chan struct{}
	wg      sync.WaitGroup
	idle    string
}

// StartHeartbeat starts a heartbeat that says every `every`, through record, what is waited
// on, and idle while nothing is; Stop ends it. record is a parameter so a test can read them
// (Temporal's test environment passes on at most one in 30 s).
func StartHeartbeat(ctx context.Context, idle string, every time.Duration, record func(context.Context, string)) *Heartbeat {
	h := &Heartbeat{waiting: map[string]string{}, done: make(chan struct{}), idle: idle}
	h.wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			record(ctx, h.String())
			select {
			case <-h.done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	return h
}

// Set says what the waiter key waits on; "" says it waits no more.
func (h *Heartbeat) Set(key, what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if what == "" {
		delete(h.waiting, key)
	} else {
		h.waiting[key] = what
	}
}

// String is what is waited on, such as "Job telescope-east-activation-… ; Dome lab
// state: Parked".
func (h *Heartbeat) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.waiting))
	for _, w := range h.waiting {
		out = append(out, w)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return h.idle
	}
	return strings.Join(out, "; ")
}

// Stop ends the heartbeat, and waits until it has stopped.
func (h *Heartbeat) Stop() {
	close(h.done)
	h.wg.Wait()
}
