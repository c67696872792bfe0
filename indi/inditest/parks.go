// Parks watches a site's mounts and domes through INDI, as any client of their servers would,
// and tells when each mount first reported parked and when the dome first moved and closed:
// the tests of the site guard judge the order (every mount before the dome) and the seconds.
package inditest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
)

// Parks holds what the watch saw; read it with ParkedThenClosed.
type Parks struct {
	mu                    sync.Mutex
	mounts                map[int]time.Time
	n                     int
	domeMoved, domeClosed time.Time
}

// WatchParks follows the mount device on each client of mounts and the dome device on site
// until ctx ends.
func WatchParks(ctx context.Context, site *indi.Client, dome string, mounts []*indi.Client, mount string) *Parks {
	w := &Parks{n: len(mounts), mounts: map[int]time.Time{}}
	follow := func(c *indi.Client, device string, seen func(prop.Property, time.Time)) {
		sub := c.Subscribe(indi.Filter{Device: device})
		go func() {
			defer sub.Close()
			for {
				ev, err := sub.Next(ctx)
				if err != nil {
					return
				}
				if ev.Kind == indi.Updated {
					w.mu.Lock()
					seen(ev.Property, time.Now())
					w.mu.Unlock()
				}
			}
		}()
	}
	for i, c := range mounts {
		follow(c, mount, func(p prop.Property, at time.Time) {
			if p.Name == "TELESCOPE_PARK" && p.SwitchOn("PARK") && p.State == prop.Ok && w.mounts[i].IsZero() {
				w.mounts[i] = at
			}
		})
	}
	follow(site, dome, func(p prop.Property, at time.Time) {
		moving := p.Name == "DOME_PARK" || p.Name == "DOME_SHUTTER" || p.Name == "ABS_DOME_POSITION"
		if moving && p.State == prop.Busy && w.domeMoved.IsZero() {
			w.domeMoved = at
		}
		if p.Name == "DOME_SHUTTER" && p.SwitchOn("SHUTTER_CLOSE") && p.State == prop.Ok && w.domeClosed.IsZero() {
			w.domeClosed = at
		}
	})
	return w
}

// ParkedThenClosed waits, at most within, until every mount has parked and the dome has
// closed, fails the test unless each mount parked before the dome moved, and returns the
// seconds from since to the last mount parked and to the dome closed.
func (w *Parks) ParkedThenClosed(t testing.TB, since time.Time, within time.Duration) (mounts, closed float64) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		w.mu.Lock()
		done := len(w.mounts) == w.n && !w.domeClosed.IsZero()
		state := fmt.Sprintf("%d of %d mounts parked, the dome closed at %v", len(w.mounts), w.n, w.domeClosed)
		w.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not every mount parked and then the dome closed within %s: %s", within, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var last time.Time
	for i, at := range w.mounts {
		// Seen on two connections, a mount's park and the dome's first move the guard sent
		// right after it can carry the same millisecond: only a later park is out of order.
		if at.After(w.domeMoved) {
			t.Errorf("mount %d parked at %s, not before the dome moved at %s", i, at.Format(time.StampMilli), w.domeMoved.Format(time.StampMilli))
		}
		if at.After(last) {
			last = at
		}
	}
	return last.Sub(since).Seconds(), w.domeClosed.Sub(since).Seconds()
}
