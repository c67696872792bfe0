// The one heartbeat of the activities. A step heartbeats at least every StepHeartbeatEvery
// with a short string saying what it waits on, so a dead worker is noticed within seconds and
// a timeout says where it stuck. A step that waits in one place says so at each look
// (stepHeartbeat); one that waits on many things at once, or on one call that does not
// return, keeps a heartbeat that says every StepHeartbeatEvery what is still waited on.
package observatory

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
)

// heartbeatEvery is how often a heartbeat speaks; a variable so a test need not wait
// StepHeartbeatEvery to see what it says.
var heartbeatEvery = StepHeartbeatEvery

// recordHeartbeat sends a step's heartbeat to Temporal, when it runs as an activity; a test
// replaces it to read them (Temporal's test environment passes on at most one in 30 s).
var recordHeartbeat = func(ctx context.Context, what string) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, what)
	}
}

// stepHeartbeat says what the step waits on now.
func stepHeartbeat(ctx context.Context, what string) { recordHeartbeat(ctx, what) }

// whileHeartbeating runs f, heartbeating what until f returns.
func whileHeartbeating(ctx context.Context, what string, f func() error) error {
	defer startHeartbeat(ctx, what).stop()
	return f()
}

// heartbeat reports, every StepHeartbeatEvery, what the step's resources wait on.
type heartbeat struct {
	mu      sync.Mutex
	waiting map[string]string
	done    chan struct{}
	wg      sync.WaitGroup
	idle    string
}

// newHeartbeat starts the heartbeat of a step's many waits; stop ends it.
func newHeartbeat(ctx context.Context) *heartbeat { return startHeartbeat(ctx, "procedures") }

// startHeartbeat starts a heartbeat that says idle while nothing is waited on.
func startHeartbeat(ctx context.Context, idle string) *heartbeat {
	h := &heartbeat{waiting: map[string]string{}, done: make(chan struct{}), idle: idle}
	record := recordHeartbeat
	every := heartbeatEvery
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

// set says what the waiter key waits on; "" says it waits no more.
func (h *heartbeat) set(key, what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if what == "" {
		delete(h.waiting, key)
	} else {
		h.waiting[key] = what
	}
}

// String is what the step waits on, such as "Job telescope-east-activation-… ; Dome lab
// state: Parked".
func (h *heartbeat) String() string {
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

func (h *heartbeat) stop() {
	close(h.done)
	h.wg.Wait()
}
