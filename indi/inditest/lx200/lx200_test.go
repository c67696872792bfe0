// These tests prove the mount against Debian's real INDI drivers: each runs indiserver with
// one stock LX200 driver, points its DEVICE_PORT at the mount's pty and drives it with the
// project's own client, as e2e/cluster does. indi_lx200fs2 is the driver the mount is
// for: it parks with a goto and unparks with a sync, so a parked mount can be unparked.
// indi_lx200generic parks with :hP# but has no unpark (libindi's default refuses it), which
// the second test pins down so a newer driver that gains one is noticed.

package lx200_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/inditest/lx200"
	"liken.sh/runner/indi/prop"
)

const (
	fs2     = "Astro-Electronic FS-2" // indi_lx200fs2's device
	generic = "Standard LX200"        // indi_lx200generic's device
)

// testTimeout bounds each test: a slew takes 2 s and the drivers poll every second.
const testTimeout = 60 * time.Second

// connected starts the mount (set up as asked) and a server running driver, points the driver
// at the mount's pty and connects it. The server stops before the mount closes, so the driver
// never sees a pulled cable.
func connected(t *testing.T, driver, device string, setup ...func(*lx200.Mount)) (*lx200.Mount,
	*indi.Client, context.Context) {
	t.Helper()
	m, err := lx200.Open()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range setup {
		f(m)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mount log:\n%s\nunknown commands: %q", strings.Join(m.Log(), "\n"), m.Unknown())
		}
		m.Close()
	})
	s := inditest.StartServer(t, driver)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	c, err := indi.Dial(ctx, s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	said := messages(ctx, c, device)
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("%s said:\n%s", device, strings.Join(said(), "\n"))
		}
	})
	// No auto search: a failed connection must not make the driver try this machine's ports.
	must(t)(c.SetSwitch(ctx, device, "DEVICE_AUTO_SEARCH", map[string]bool{"INDI_DISABLED": true}))
	must(t)(c.SetText(ctx, device, "DEVICE_PORT", map[string]string{"PORT": m.Slave()}))
	must(t)(c.SetSwitch(ctx, device, "DEVICE_BAUD_RATE", map[string]bool{"9600": true}))
	must(t)(c.Connect(ctx, device))
	return m, c, ctx
}

// messages collects what the driver logs to its clients, which holds its reasons.
func messages(ctx context.Context, c *indi.Client, device string) func() []string {
	var mu sync.Mutex
	var said []string
	sub := c.Subscribe(indi.Filter{Device: device})
	go func() {
		defer sub.Close()
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				return
			}
			if ev.Kind == indi.Messaged {
				mu.Lock()
				said = append(said, ev.Message)
				mu.Unlock()
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), said...)
	}
}

// must fails the test on an error from an operation that returns whether it sent.
func must(t *testing.T) func(bool, error) {
	return func(_ bool, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// slew sends a goto that tracks when there and waits until the driver reports it there.
func slew(t *testing.T, ctx context.Context, c *indi.Client, m *lx200.Mount, device string,
	ra, dec float64) {
	t.Helper()
	start := time.Now()
	must(t)(c.SetSwitch(ctx, device, "ON_COORD_SET", map[string]bool{"TRACK": true}))
	must(t)(c.SetNumber(ctx, device, "EQUATORIAL_EOD_COORD",
		map[string]float64{"RA": ra, "DEC": dec}, 1e-6))
	_, err := c.Wait(ctx, device, "EQUATORIAL_EOD_COORD", func(p prop.Property) bool {
		return p.State == prop.Ok && near(p, ra, dec)
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Status(); s.Slewing || !same(s.RA, ra) || !same(s.Dec, dec) {
		t.Fatalf("the driver reports RA %v Dec %v reached, the mount says %+v", ra, dec, s)
	}
	t.Logf("goto RA %v Dec %v: reached and tracking after %v", ra, dec,
		time.Since(start).Round(time.Millisecond))
}

func near(p prop.Property, ra, dec float64) bool {
	r, _ := p.Number("RA")
	d, _ := p.Number("DEC")
	return same(r, ra) && same(d, dec)
}

// same says whether two coordinates agree to the protocol's precision (1 s, 1").
func same(a, b float64) bool { return math.Abs(a-b) < 1.5/3600 }

// parked sets TELESCOPE_PARK and checks the driver's report.
func parked(t *testing.T, ctx context.Context, c *indi.Client, device string, park bool) {
	t.Helper()
	start := time.Now()
	must(t)(c.SetMountParked(ctx, device, park))
	p, _ := c.Property(device, "TELESCOPE_PARK")
	if p.SwitchOn("PARK") != park || p.SwitchOn("UNPARK") == park || p.State != prop.Ok {
		t.Fatalf("TELESCOPE_PARK after parked=%v: %s", park, p.Summary())
	}
	t.Logf("parked=%v: %s after %v", park, p.Summary(), time.Since(start).Round(time.Millisecond))
}

// abortHalfway starts a goto and aborts it while the driver reports it under way: the mount
// must stop short of the target, and stay stopped.
func abortHalfway(t *testing.T, ctx context.Context, c *indi.Client, m *lx200.Mount, device string,
	ra, dec float64) {
	t.Helper()
	from := m.Status().Dec
	err := c.Send(ctx, prop.Property{Device: device, Name: "EQUATORIAL_EOD_COORD",
		Elements: []prop.Element{{Name: "RA", Number: ra}, {Name: "DEC", Number: dec}}})
	if err != nil {
		t.Fatal(err)
	}
	busy := func(p prop.Property) bool { return p.State == prop.Busy }
	if _, err := c.Wait(ctx, device, "EQUATORIAL_EOD_COORD", busy); err != nil {
		t.Fatal(err)
	}
	must(t)(c.AbortMotion(ctx, device))
	time.Sleep(500 * time.Millisecond) // were it still moving, it would move on meanwhile
	s := m.Status()
	if s.Slewing || (s.Dec-from)*(s.Dec-dec) >= 0 {
		t.Fatalf("after the abort the mount should stand between Dec %v and %v: %+v", from, dec, s)
	}
	t.Logf("aborted at RA %.4f Dec %.4f", s.RA, s.Dec)
}

// sentAll checks that the driver sent each command, and none the mount does not know.
func sentAll(t *testing.T, m *lx200.Mount, cmds ...string) {
	t.Helper()
	counts := m.Commands()
	for _, cmd := range cmds {
		if counts[cmd] == 0 {
			t.Errorf("the driver never sent %s: %v", cmd, counts)
		}
	}
	if u := m.Unknown(); len(u) > 0 {
		t.Errorf("the driver sent commands the mount does not know: %q", u)
	}
	t.Logf("commands: %v", counts)
}

func TestFS2GotoAbortParkUnpark(t *testing.T) {
	t.Parallel()
	m, c, ctx := connected(t, "indi_lx200fs2", fs2, func(m *lx200.Mount) { m.SetSite(52.5, 13.4) })
	site, _ := c.Property(fs2, "GEOGRAPHIC_COORD")
	if lat, _ := site.Number("LAT"); lat != 52.5 {
		t.Fatalf("the driver should have read the mount's site: %s", site.Summary())
	}
	// The driver converts its park position (Az 0, Alt = latitude: the pole) with the observer
	// location a client wrote, not the one it read from the mount.
	must(t)(c.SetLocation(ctx, fs2, 52.5, 13.4, 34))

	slew(t, ctx, c, m, fs2, 5.5, 22.25)

	abortHalfway(t, ctx, c, m, fs2, 7, 40)
	parked(t, ctx, c, fs2, true)
	if s := m.Status(); s.Slewing || math.Abs(s.Dec-90) > 1.0/60 {
		t.Fatalf("the driver reports parked, the mount should stand at the pole: %+v", s)
	}
	parked(t, ctx, c, fs2, false)
	slew(t, ctx, c, m, fs2, 6, 10) // a parked driver refuses a goto: this one is unparked

	must(t)(c.Disconnect(ctx, fs2))
	must(t)(c.Connect(ctx, fs2)) // the port can be opened again
	must(t)(c.Disconnect(ctx, fs2))

	sentAll(t, m, "ACK", ":GR#", ":GD#", ":Sr", ":Sd", ":MS#", ":Q#", ":CM#")
}

func TestGenericParksButCannotUnpark(t *testing.T) {
	t.Parallel()
	m, c, ctx := connected(t, "indi_lx200generic", generic)
	must(t)(c.SetLocation(ctx, generic, 52.5, 13.4, 34))
	slew(t, ctx, c, m, generic, 3.25, -12.5)

	parked(t, ctx, c, generic, true)
	if s := m.Status(); !s.Parked || s.Dec != 90 {
		t.Fatalf(":hP# should have left the mount parked at the pole: %+v", s)
	}
	_, err := c.SetMountParked(ctx, generic, false)
	var alert *indi.AlertError
	if !errors.As(err, &alert) {
		t.Fatalf("indi_lx200generic 1.9.9 has no unpark and should refuse it, got %v", err)
	}
	t.Logf("unpark refused as expected: %v", err)

	sentAll(t, m, ":hP#", ":D#", ":Gc#", ":GG#", ":GL#", ":GC#", ":Gt#", ":Gg#", ":St", ":Sg")
}
