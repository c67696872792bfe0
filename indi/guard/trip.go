// A trip: the guard parks every mount of the site at once, waits until each reports parked
// and the domes' locks have heard it, then parks every dome (which closes its shutter:
// CLOSE_ON_PARK). Mounts first, so a dome never moves over a mount that points out of it; a
// mount that stays silent or unparked keeps the domes as they are, as their own locks would.
package guard

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"liken.sh/runner/indi"
)

// moveTimeout bounds one mount's or dome's park: the simulators take up to half a minute.
const moveTimeout = 3 * time.Minute

// domeTries: a dome may refuse once if its lock has not yet taken in the mounts' state.
const domeTries = 3

type target struct {
	telescope, device string
	c                 *indi.Client
}

// startTrip records a trip and parks the site in a goroutine of its own, so the relays go on
// meanwhile (the domes must hear the mounts park). One trip at a time: a cause that comes
// during one is recorded by it being under way already.
func (g *Guard) startTrip(ctx context.Context, cause Cause, v View) {
	g.mu.Lock()
	if g.tripping {
		g.mu.Unlock()
		g.Log.Info("the site is being parked already", "cause", cause.Reason)
		return
	}
	g.tripping = true
	// A stopped heartbeat is the runner away, however short the timeout.
	away := cause.Kind == CauseHeartbeat || v.RunnerAway()
	g.report.Trips = append(g.report.Trips, Trip{Time: v.Now, Kind: cause.Kind, Reason: cause.Reason, RunnerAway: away})
	if n := len(g.report.Trips); n > maxTrips {
		g.report.Trips = g.report.Trips[n-maxTrips:]
	}
	g.mu.Unlock()
	g.Log.Warn("parking every mount, then every dome", "cause", cause.Reason, "runnerAway", away)

	var mounts, domes []target
	for _, t := range g.cfg.Telescopes {
		c := g.tels[t.Address].client()
		for _, m := range t.Mounts {
			mounts = append(mounts, target{t.Name, m, c})
		}
	}
	for _, d := range v.Domes {
		domes = append(domes, target{"", d.Device, g.site.client()})
	}
	go g.runTrip(ctx, mounts, domes)
}

func (g *Guard) runTrip(ctx context.Context, mounts, domes []target) {
	defer g.endTrip()
	var wg sync.WaitGroup
	for _, m := range mounts {
		wg.Go(func() {
			if m.c == nil || m.device == "" {
				g.tripFailed(fmt.Sprintf("a mount of Telescope %s is silent", m.telescope))
				return
			}
			mctx, cancel := context.WithTimeout(ctx, moveTimeout)
			defer cancel()
			if _, err := m.c.SetMountParked(mctx, m.device, true); err != nil {
				g.tripFailed(fmt.Sprintf("%s did not park: %v", m.device, err))
				return
			}
			g.tripDone(func(t *Trip) { t.Parked = append(t.Parked, Done{m.telescope, m.device, g.Now()}) })
		})
	}
	wg.Wait()
	if !g.awaitMountsParkedSent(ctx) {
		g.tripFailed("not every mount reports parked, so the domes stay as they are")
		return
	}
	for _, d := range domes {
		wg.Go(func() {
			if err := g.parkDome(ctx, d); err != nil {
				g.tripFailed(fmt.Sprintf("%s did not park: %v", d.device, err))
				return
			}
			g.tripDone(func(t *Trip) { t.Closed = append(t.Closed, Done{Device: d.device, At: g.Now()}) })
		})
	}
	wg.Wait()
}

// parkDome parks a dome, once more if its lock refused it for a mount state it had not yet
// taken in.
func (g *Guard) parkDome(ctx context.Context, d target) error {
	if d.c == nil {
		return errors.New("the site's server does not answer")
	}
	var err error
	for range domeTries {
		dctx, cancel := context.WithTimeout(ctx, moveTimeout)
		_, err = d.c.SetDomeParked(dctx, d.device, true)
		cancel()
		var alert *indi.AlertError
		if err == nil || !errors.As(err, &alert) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}

// awaitMountsParkedSent waits until the guard has told the domes that every mount is parked.
func (g *Guard) awaitMountsParkedSent(ctx context.Context) bool {
	deadline := time.After(moveTimeout)
	for !g.mountsParkedSent.Load() {
		select {
		case <-ctx.Done():
			return false
		case <-deadline:
			return false
		case <-time.After(100 * time.Millisecond):
		}
	}
	return true
}

func (g *Guard) tripDone(f func(*Trip)) {
	g.mu.Lock()
	f(&g.report.Trips[len(g.report.Trips)-1])
	g.mu.Unlock()
	g.poke()
}

func (g *Guard) tripFailed(why string) {
	g.Log.Error("the site could not be parked in full", "why", why)
	g.tripDone(func(t *Trip) {
		if t.Failed != "" {
			t.Failed += "; "
		}
		t.Failed += why
	})
}

func (g *Guard) endTrip() {
	g.mu.Lock()
	g.report.Trips[len(g.report.Trips)-1].Finished = true
	g.tripping = false
	g.mu.Unlock()
	g.poke()
	g.Log.Info("the site's trip ended")
}

// Words is a report in a line, for GUARD_STATUS.STATE.
func Words(r Report) string {
	var b strings.Builder
	b.WriteString(r.ArmedMessage)
	if b.Len() == 0 {
		b.WriteString("Starting")
	}
	if n := len(r.Trips); n > 0 {
		fmt.Fprintf(&b, ". Last: %s", TripWords(r.Trips[n-1]))
	}
	return b.String()
}

// TripWords says what one trip did: "parked Telescope Simulator of Telescope east, then closed
// Dome Simulator at 23:14:05 UTC because Weather Simulator reports Alert, while the runner was
// away".
func TripWords(t Trip) string {
	var did []string
	var parked, closed []string
	for _, d := range t.Parked {
		parked = append(parked, d.Device+" of Telescope "+d.Telescope)
	}
	for _, d := range t.Closed {
		closed = append(closed, d.Device)
	}
	if len(parked) > 0 {
		did = append(did, "parked "+strings.Join(parked, ", "))
	}
	if len(closed) > 0 {
		did = append(did, "closed "+strings.Join(closed, ", "))
	}
	what := strings.Join(did, ", then ")
	switch {
	case !t.Finished:
		what = "parking the site"
	case what == "":
		what = "parked nothing"
	}
	s := fmt.Sprintf("%s at %s because %s", what, t.Time.UTC().Format("15:04:05 MST"), t.Reason)
	if t.RunnerAway {
		s += ", while the runner was away"
	}
	if t.Failed != "" {
		s += " (" + t.Failed + ")"
	}
	return s
}
