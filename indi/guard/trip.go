// A trip: while any cause holds, the guard drives the site toward parked, as a level, until it
// is: every mount parked, then, once the domes' locks have heard it, every dome parked (which
// closes its shutter: CLOSE_ON_PARK). Each device has one mover: one command at a time, and
// after a failure the next only after a back-off, so a slow driver or a refused first command
// is tried again for as long as the cause holds. A cause that arrives meanwhile joins the trip;
// a mount that unparks under the storm after the trip ended starts another.
package guard

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"liken.sh/runner/indi"
)

// moveTimeout bounds one command: the simulators take up to half a minute to park.
const moveTimeout = 3 * time.Minute

// Back-off between a device's failed commands: from the first to the longest.
const (
	retryFirst = 2 * time.Second
	retryMax   = 30 * time.Second
)

// mover is one device the guard drives toward parked.
type mover struct {
	telescope string // "" for a dome
	device    string
	busy      bool
	failures  int
	next      time.Time // no command before this, after a failure
	err       string    // the last failure, "" once a command succeeded
}

// retryAfter is the back-off after the nth failure in a row.
func retryAfter(failures int) time.Duration {
	d := retryFirst
	for i := 1; i < failures && d < retryMax; i++ {
		d *= 2
	}
	return min(d, retryMax)
}

// trip acts on the causes that hold now: it opens a trip when one finds the site unparked,
// moves what the drive says, and ends the trip once the site is parked, or every cause has
// gone, with nothing still moving. Called from step, under nothing.
func (g *Guard) trip(ctx context.Context, v View, causes []Cause, drive Drive) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.openTrip()
	if t == nil && len(causes) > 0 && !drive.Done {
		t = g.startTrip(v, causes[0])
	}
	if t == nil {
		return
	}
	for _, c := range causes {
		if !slices.Contains(t.Causes, c.Reason) {
			t.Causes = append(t.Causes, c.Reason)
			t.RunnerAway = t.RunnerAway || c.Kind == CauseHeartbeat
			g.Log.Warn("the site guard parks the site", "cause", c.Reason, "runnerAway", t.RunnerAway)
		}
	}
	if len(causes) > 0 {
		for _, m := range drive.Mounts {
			g.move(ctx, t, m.Telescope, m.Device, g.tels[g.cfg.Address(m.Telescope)].client(), MountParkProp)
		}
		for _, d := range drive.Domes {
			g.move(ctx, t, "", d.Device, g.site.client(), DomeParkProp)
		}
	}
	t.Failing = g.failing(v, drive)
	if g.moving() || (len(causes) > 0 && !drive.Done) {
		return
	}
	t.Finished = true
	if !drive.Done {
		t.Failed = "every cause was gone before the site was parked"
		if t.Failing != "" {
			t.Failed += ": " + t.Failing
		}
	}
	t.Failing = ""
	g.movers = map[string]*mover{}
	g.Log.Info("the site guard's trip ended", "what", TripWords(*t))
}

// openTrip is the trip under way, nil when there is none. Under g.mu.
func (g *Guard) openTrip() *Trip {
	if n := len(g.report.Trips); n > 0 && !g.report.Trips[n-1].Finished {
		return &g.report.Trips[n-1]
	}
	return nil
}

// startTrip records a new trip. Under g.mu.
func (g *Guard) startTrip(v View, first Cause) *Trip {
	// A stopped heartbeat is the runner away, however short the timeout.
	away := first.Kind == CauseHeartbeat || v.RunnerAway()
	g.report.Trips = append(g.report.Trips, Trip{Time: v.Now, Kind: first.Kind, Reason: first.Reason, RunnerAway: away})
	if n := len(g.report.Trips); n > maxTrips {
		g.report.Trips = g.report.Trips[n-maxTrips:]
	}
	return &g.report.Trips[len(g.report.Trips)-1]
}

// move sends one park command to a device in a goroutine of its own, unless one is under way
// or its back-off has not passed. Under g.mu.
func (g *Guard) move(ctx context.Context, t *Trip, telescope, device string, c *indi.Client, vector string) {
	key := vector + "/" + telescope + "/" + device
	m := g.movers[key]
	if m == nil {
		m = &mover{telescope: telescope, device: device}
		g.movers[key] = m
	}
	now := g.Now()
	if m.busy || now.Before(m.next) {
		return
	}
	if c == nil {
		g.failed(m, now, "its server does not answer")
		return
	}
	m.busy = true
	go func() {
		mctx, cancel := context.WithTimeout(ctx, moveTimeout)
		var err error
		if vector == MountParkProp {
			_, err = c.SetMountParked(mctx, device, true)
		} else {
			_, err = c.SetDomeParked(mctx, device, true)
		}
		cancel()
		g.mu.Lock()
		m.busy = false
		if err != nil {
			g.failed(m, g.Now(), err.Error())
			g.Log.Error("a park failed; it is tried again while the cause holds", "device", device, "telescope", telescope,
				"failures", m.failures, "retryIn", retryAfter(m.failures), "err", err)
		} else {
			m.failures, m.err = 0, ""
			g.recordDone(telescope, device, vector)
		}
		g.mu.Unlock()
		g.poke()
	}()
}

func (g *Guard) failed(m *mover, now time.Time, why string) {
	m.failures++
	m.err = why
	m.next = now.Add(retryAfter(m.failures))
}

// recordDone adds a device the guard parked to the trip under way. Under g.mu.
func (g *Guard) recordDone(telescope, device, vector string) {
	t := g.openTrip()
	if t == nil {
		return
	}
	list := &t.Parked
	if vector == DomeParkProp {
		list = &t.Closed
	}
	if !slices.ContainsFunc(*list, func(d Done) bool { return d.Telescope == telescope && d.Device == device }) {
		*list = append(*list, Done{Telescope: telescope, Device: device, At: g.Now()})
	}
}

// moving says whether a command is under way. Under g.mu.
func (g *Guard) moving() bool {
	for _, m := range g.movers {
		if m.busy {
			return true
		}
	}
	return false
}

// failing is what keeps the site from parked now, in words, sorted: a failure of a device
// that reports parked since is over. Under g.mu.
func (g *Guard) failing(v View, d Drive) string {
	parked := map[string]bool{}
	for _, m := range v.Mounts {
		parked[m.Telescope+"/"+m.Device] = m.Settled()
	}
	for _, dome := range v.Domes {
		parked["/"+dome.Device] = dome.Settled()
	}
	var out []string
	for _, m := range d.Silent {
		if m.Device == "" {
			out = append(out, "a mount of Telescope "+m.Telescope+" has no INDI name yet")
		} else {
			out = append(out, m.Device+" of Telescope "+m.Telescope+" does not answer")
		}
	}
	for _, m := range g.movers {
		if m.err == "" || parked[m.telescope+"/"+m.device] {
			continue
		}
		what := m.device
		if m.telescope != "" {
			what += " of Telescope " + m.telescope
		}
		out = append(out, what+" did not park: "+m.err)
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
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

// TripCauses are a trip's causes in words: "Weather Simulator reports Alert and no heartbeat
// from the runner for Telescope east in 5m0s". A trip that names no causes (a guard before
// Causes) gives its first one's reason.
func TripCauses(t Trip) string {
	switch n := len(t.Causes); n {
	case 0:
		return t.Reason
	case 1:
		return t.Causes[0]
	default:
		return strings.Join(t.Causes[:n-1], ", ") + " and " + t.Causes[n-1]
	}
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
	s := fmt.Sprintf("%s at %s because %s", what, t.Time.UTC().Format("15:04:05 MST"), TripCauses(t))
	if t.RunnerAway {
		s += ", while the runner was away"
	}
	if t.Failing != "" {
		s += " (failing, tried again: " + t.Failing + ")"
	}
	if t.Failed != "" {
		s += " (" + t.Failed + ")"
	}
	return s
}
