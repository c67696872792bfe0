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
	askedAtMove           bool     // the mounts' servers were asked once the dome moved
	unparkedAtMove        []string // what they said of each mount that was not parked
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
					seen(ev.Property, time.Now())
				}
			}
		}()
	}
	for i, c := range mounts {
		follow(c, mount, func(p prop.Property, at time.Time) {
			w.mu.Lock()
			defer w.mu.Unlock()
			if parked(p) && w.mounts[i].IsZero() {
				w.mounts[i] = at
			}
		})
	}
	follow(site, dome, func(p prop.Property, at time.Time) {
		moving := p.Name == "DOME_PARK" || p.Name == "DOME_SHUTTER" || p.Name == "ABS_DOME_POSITION"
		w.mu.Lock()
		first := moving && p.State == prop.Busy && w.domeMoved.IsZero()
		if first {
			w.domeMoved = at
		}
		if p.Name == "DOME_SHUTTER" && p.SwitchOn("SHUTTER_CLOSE") && p.State == prop.Ok && w.domeClosed.IsZero() {
			w.domeClosed = at
		}
		w.mu.Unlock()
		if first {
			unparked := unparkedNow(ctx, mounts, mount)
			w.mu.Lock()
			w.askedAtMove, w.unparkedAtMove = true, unparked
			w.mu.Unlock()
		}
	})
	return w
}

func parked(p prop.Property) bool {
	return p.Name == "TELESCOPE_PARK" && p.SwitchOn("PARK") && p.State == prop.Ok
}

// unparkedNow asks each mount's server afresh, after the dome was seen moving, and says which
// mounts it does not report parked. A server answers in order, so a park it sent before the
// dome moved has reached its client by the time the answer does: unlike comparing the times
// two connections' readers saw each message, this cannot put a park that came first second.
func unparkedNow(ctx context.Context, mounts []*indi.Client, mount string) []string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var unparked []string
	for i, c := range mounts {
		if err := c.Sync(ctx, mount); err != nil {
			unparked = append(unparked, fmt.Sprintf("mount %d: %v", i, err))
			continue
		}
		if p, ok := c.Property(mount, "TELESCOPE_PARK"); !ok || !parked(p) {
			unparked = append(unparked, fmt.Sprintf("mount %d: TELESCOPE_PARK %v %v", i, p.State, p.SwitchOn("PARK")))
		}
	}
	return unparked
}

// ParkedThenClosed waits, at most within, until every mount has parked and the dome has
// closed, fails the test unless each mount was parked when the dome first moved, and returns
// the seconds from since to the last mount parked and to the dome closed.
func (w *Parks) ParkedThenClosed(t testing.TB, since time.Time, within time.Duration) (mounts, closed float64) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		w.mu.Lock()
		done := len(w.mounts) == w.n && !w.domeClosed.IsZero() && w.askedAtMove
		state := fmt.Sprintf("%d of %d mounts parked, the dome closed at %v, the mounts asked as it moved: %v",
			len(w.mounts), w.n, w.domeClosed, w.askedAtMove)
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
	for _, u := range w.unparkedAtMove {
		t.Errorf("the dome moved at %s before every mount had parked: %s", w.domeMoved.Format(time.StampMilli), u)
	}
	var last time.Time
	for _, at := range w.mounts {
		if at.After(last) {
			last = at
		}
	}
	return last.Sub(since).Seconds(), w.domeClosed.Sub(since).Seconds()
}
