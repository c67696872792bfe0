// These tests drive the client against the in-process fake server, for what the simulators
// cannot show: refusals with and without messages, changes already under way, drivers that
// never answer, servers that vanish or send garbage, and the devices Debian ships no simulator
// for (dust caps, power outputs, coolers, CCD_CONTROLS cameras).

package indi_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
)

// timeout bounds each test's waits; the fake answers in microseconds.
const timeout = 10 * time.Second

// fakeDevice is a fake INDI server with one device that defines props, in order.
func fakeDevice(t *testing.T, device string, props ...prop.Property) *inditest.Fake {
	t.Helper()
	f := inditest.NewFake(t)
	f.Device(device)
	for _, p := range props {
		f.Define(p)
	}
	return f
}

func dial(t *testing.T, addr string) (*indi.Client, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	c, err := indi.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, ctx
}

func TestSwitchRulesPermissionsAndNamesAreCheckedBeforeSending(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Dome",
		inditest.Switches("Dome", "DOME_PARK", prop.OneOfMany, []string{"PARK"}, "PARK", "UNPARK"),
		inditest.Switches("Dome", "DOME_SHUTTER", prop.AtMostOne, []string{"SHUTTER_CLOSE"}, "SHUTTER_OPEN", "SHUTTER_CLOSE"))
	ro := inditest.Switches("Dome", "DOME_AUTOSYNC", prop.OneOfMany, []string{"ON"}, "ON", "OFF")
	ro.Perm = prop.ReadOnly
	f.Define(ro)
	f.Define(inditest.Numbers("Dome", "ABS_DOME_POSITION", "DOME_ABSOLUTE_POSITION", 0.0))
	c, ctx := dial(t, f.Addr)

	for _, tc := range []struct {
		name   string
		prop   string
		states map[string]bool
		reason string
	}{
		{"two On under OneOfMany", "DOME_PARK", map[string]bool{"PARK": true, "UNPARK": true}, "exactly one"},
		{"none On under OneOfMany", "DOME_PARK", map[string]bool{"PARK": false}, "exactly one"},
		{"two On under AtMostOne", "DOME_SHUTTER", map[string]bool{"SHUTTER_OPEN": true, "SHUTTER_CLOSE": true}, "at most one"},
		{"an unknown switch", "DOME_PARK", map[string]bool{"PARKED": true}, "no switch PARKED"},
		{"a read-only property", "DOME_AUTOSYNC", map[string]bool{"OFF": true}, "read-only"},
		{"a number property", "ABS_DOME_POSITION", map[string]bool{"X": true}, "Number property"},
	} {
		_, err := c.SetSwitch(ctx, "Dome", tc.prop, tc.states)
		var re *indi.RequestError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: got %v, want a RequestError saying %q", tc.name, err, tc.reason)
		}
	}
	_, err := c.SetSwitch(ctx, "Dome", "NO_SUCH", map[string]bool{"X": true})
	var me *indi.MissingError
	if !errors.As(err, &me) {
		t.Errorf("a missing property: got %v", err)
	}
	if c.Sent() != 0 || len(f.Received("Dome", "DOME_PARK")) != 0 {
		t.Fatalf("sent %d vectors for invalid requests", c.Sent())
	}
	// Turning every switch off is fine under AtMostOne.
	if sent, err := c.SetSwitch(ctx, "Dome", "DOME_SHUTTER", map[string]bool{"SHUTTER_CLOSE": false}); !sent || err != nil {
		t.Fatalf("all off under AtMostOne: %v %v", sent, err)
	}
}

func TestAnAlertCarriesTheDriversReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		refuse inditest.Handler
		want   string
	}{
		{"in the vector", func(f *inditest.Fake, req prop.Property) {
			f.Update(req.Device, req.Name, func(p *prop.Property) {
				p.State, p.Message = prop.Alert, "Mount is locked"
			})
		}, "Mount is locked"},
		{"in a message after it", func(f *inditest.Fake, req prop.Property) {
			f.Update(req.Device, req.Name, func(p *prop.Property) { p.State = prop.Alert })
			f.Message(req.Device, "[INFO] Cannot Park Dome when mount is locking.")
		}, "Cannot Park Dome when mount is locking."},
		{"in a message before it", func(f *inditest.Fake, req prop.Property) {
			f.Message(req.Device, "[ERROR] Motor stalled")
			f.Update(req.Device, req.Name, func(p *prop.Property) { p.State = prop.Alert })
			f.Update(req.Device, "OTHER", func(p *prop.Property) {})
		}, "Motor stalled"},
		{"nowhere", func(f *inditest.Fake, req prop.Property) {
			f.Update(req.Device, req.Name, func(p *prop.Property) { p.State = prop.Alert })
			f.Update(req.Device, "OTHER", func(p *prop.Property) {})
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fakeDevice(t, "Dome",
				inditest.Switches("Dome", "DOME_PARK", prop.OneOfMany, []string{"UNPARK"}, "PARK", "UNPARK"),
				inditest.Numbers("Dome", "OTHER", "X", 1.0))
			f.Handle("Dome", "DOME_PARK", tc.refuse)
			c, ctx := dial(t, f.Addr)
			_, err := c.SetDomeParked(ctx, "Dome", true)
			var ae *indi.AlertError
			if !errors.As(err, &ae) || ae.Message != tc.want || ae.Device != "Dome" || ae.Property != "DOME_PARK" {
				t.Fatalf("got %v, want an AlertError with %q", err, tc.want)
			}
		})
	}
}

func TestAChangeAlreadyUnderWayIsAwaitedNotSentAgain(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Dome")
	park := inditest.Switches("Dome", "DOME_PARK", prop.OneOfMany, []string{"PARK"}, "PARK", "UNPARK")
	park.State = prop.Busy // parking
	f.Define(park)
	c, ctx := dial(t, f.Addr)
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	sent, err := c.SetDomeParked(short, "Dome", true)
	var we *indi.WaitError
	if sent || !errors.As(err, &we) || we.Last != "Busy PARK=On UNPARK=Off" {
		t.Fatalf("while parking: sent %v, %v; want a wait for the park under way", sent, err)
	}
	f.Update("Dome", "DOME_PARK", func(p *prop.Property) { p.State = prop.Ok })
	if _, err := c.Wait(ctx, "Dome", "DOME_PARK", func(p prop.Property) bool { return p.State == prop.Ok }); err != nil {
		t.Fatal(err)
	}
	if sent, err := c.SetDomeParked(ctx, "Dome", true); sent || err != nil {
		t.Fatalf("parked: sent %v, %v", sent, err)
	}
	if n := len(f.Received("Dome", "DOME_PARK")); n != 0 {
		t.Fatalf("the dome received %d park requests", n)
	}
}

func TestAWaitEndsWithItsContextAndSaysWhatItSawLast(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Cap",
		inditest.Switches("Cap", "CAP_PARK", prop.OneOfMany, []string{"UNPARK"}, "PARK", "UNPARK"))
	f.Handle("Cap", "CAP_PARK", func(f *inditest.Fake, req prop.Property) {
		f.Update(req.Device, req.Name, func(p *prop.Property) { inditest.Apply(p, req); p.State = prop.Busy })
	})
	c, ctx := dial(t, f.Addr)
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := c.SetDustCapOpen(short, "Cap", false)
	var we *indi.WaitError
	if !errors.As(err, &we) || !errors.Is(err, context.DeadlineExceeded) || we.Last != "Busy PARK=On UNPARK=Off" {
		t.Fatalf("got %v", err)
	}
}

func TestALostConnectionFailsPendingWaitsNamingTheServer(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Cap",
		inditest.Switches("Cap", "CAP_PARK", prop.OneOfMany, []string{"UNPARK"}, "PARK", "UNPARK"))
	f.Handle("Cap", "CAP_PARK", func(f *inditest.Fake, req prop.Property) { f.Close() })
	c, ctx := dial(t, f.Addr)
	_, err := c.SetDustCapOpen(ctx, "Cap", false)
	var ce *indi.ConnError
	if !errors.As(err, &ce) || ce.Server != f.Addr || !strings.Contains(err.Error(), f.Addr) {
		t.Fatalf("got %v, want a ConnError naming %s", err, f.Addr)
	}
	if c.Err() == nil {
		t.Fatal("the client still runs")
	}
	if _, err := c.SetDustCapOpen(ctx, "Cap", true); !errors.As(err, &ce) {
		t.Fatalf("a later change: got %v", err)
	}
}

func TestAHostileStreamEndsTheConnectionButForeignElementsDoNot(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Cap")
	c, ctx := dial(t, f.Addr)
	if err := c.Sync(ctx, "Cap"); err != nil {
		t.Fatal(err)
	}
	f.WriteRaw([]byte(`<futureThing a="b"><x/></futureThing>`))
	f.Define(inditest.Numbers("Cap", "AFTER", "X", 1.0))
	if _, err := c.Wait(ctx, "Cap", "AFTER", func(prop.Property) bool { return true }); err != nil {
		t.Fatal(err)
	}
	if n, last := c.Refused(); n != 1 || !strings.Contains(last.Error(), "futureThing") {
		t.Fatalf("refused %d: %v", n, last)
	}
	f.WriteRaw([]byte("<message device=\"Cap\" message=\"\xff\"/>"))
	select {
	case <-c.Done():
	case <-ctx.Done():
		t.Fatal("the client kept reading a stream with invalid UTF-8")
	}
	var ce *indi.ConnError
	if err := c.Err(); !errors.As(err, &ce) || !strings.Contains(err.Error(), "invalid UTF-8") {
		t.Fatalf("got %v", err)
	}
}

func TestADustCapOpensAndClosesOnlyWhenItIsNotThereYet(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Cap",
		inditest.Switches("Cap", "CAP_PARK", prop.OneOfMany, []string{"PARK"}, "PARK", "UNPARK"))
	c, ctx := dial(t, f.Addr)
	for _, step := range []struct {
		open bool
		sent bool
	}{{false, false}, {true, true}, {true, false}, {false, true}, {false, false}} {
		sent, err := c.SetDustCapOpen(ctx, "Cap", step.open)
		if err != nil || sent != step.sent {
			t.Fatalf("open=%v: sent %v, %v; want sent %v", step.open, sent, err, step.sent)
		}
	}
	p, _ := f.Property("Cap", "CAP_PARK")
	if p.Summary() != "Ok PARK=On UNPARK=Off" {
		t.Fatalf("cap is %s", p.Summary())
	}
	if n := len(f.Received("Cap", "CAP_PARK")); n != 2 {
		t.Fatalf("the cap received %d requests, want 2", n)
	}
}

func TestAPowerOutputSwitchesOnlyWhenItIsNotThereYet(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Power")
	// libindi's OutputInterface starts with both switches Off: the state is unknown.
	f.Define(inditest.Switches("Power", "DIGITAL_OUTPUT_2", prop.AtMostOne, nil, "OFF", "ON"))
	c, ctx := dial(t, f.Addr)
	for _, step := range []struct {
		on   bool
		sent bool
	}{{false, true}, {false, false}, {true, true}, {true, false}} {
		sent, err := c.SetPowerOutput(ctx, "Power", 2, step.on)
		if err != nil || sent != step.sent {
			t.Fatalf("on=%v: sent %v, %v; want sent %v", step.on, sent, err, step.sent)
		}
	}
	if p, _ := f.Property("Power", "DIGITAL_OUTPUT_2"); p.Summary() != "Ok OFF=Off ON=On" {
		t.Fatalf("output is %s", p.Summary())
	}
	var me *indi.MissingError
	if _, err := c.SetPowerOutput(ctx, "Power", 3, true); !errors.As(err, &me) {
		t.Fatalf("a missing output: %v", err)
	}
}

func TestGainAndOffsetGoToCCDControlsWhenTheDriverHasThatForm(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "ZWO CCD")
	controls := inditest.Numbers("ZWO CCD", "CCD_CONTROLS", "Gain", 0.0, "Offset", 10.0, "BandWidth", 50.0)
	controls.Elements[0].Max = 570
	f.Define(controls)
	f.Device("Bare CCD")
	c, ctx := dial(t, f.Addr)
	for _, want := range []bool{true, false} {
		sent, err := c.SetGain(ctx, "ZWO CCD", 120)
		if err != nil || sent != want {
			t.Fatalf("gain: sent %v, %v; want %v", sent, err, want)
		}
		sent, err = c.SetOffset(ctx, "ZWO CCD", 30)
		if err != nil || sent != want {
			t.Fatalf("offset: sent %v, %v; want %v", sent, err, want)
		}
	}
	if p, _ := f.Property("ZWO CCD", "CCD_CONTROLS"); p.Summary() != "Ok Gain=120 Offset=30 BandWidth=50" {
		t.Fatalf("controls are %s", p.Summary())
	}
	var re *indi.RequestError
	if _, err := c.SetGain(ctx, "ZWO CCD", 600); !errors.As(err, &re) || !strings.Contains(err.Error(), "outside 0..570") {
		t.Fatalf("a gain out of range: %v", err)
	}
	var me *indi.MissingError
	if _, err := c.SetGain(ctx, "Bare CCD", 1); !errors.As(err, &me) {
		t.Fatalf("a camera without gain: %v", err)
	}
}

func TestWarmingTurnsTheCoolerOffEvenWhenTheSensorLagsBehind(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "CCD",
		inditest.Numbers("CCD", "CCD_TEMPERATURE", "CCD_TEMPERATURE_VALUE", -10.0),
		inditest.Switches("CCD", "CCD_COOLER", prop.OneOfMany, []string{"COOLER_ON"}, "COOLER_ON", "COOLER_OFF"))
	// The sensor takes the setpoint but never gets there.
	f.Handle("CCD", "CCD_TEMPERATURE", func(f *inditest.Fake, req prop.Property) {
		f.Update(req.Device, req.Name, func(p *prop.Property) { p.State = prop.Busy })
	})
	c, ctx := dial(t, f.Addr)
	sent, err := c.Warm(ctx, "CCD", 5, 0.5, 200*time.Millisecond)
	if err != nil || !sent {
		t.Fatalf("warm: sent %v, %v", sent, err)
	}
	if p, _ := f.Property("CCD", "CCD_COOLER"); p.Summary() != "Ok COOLER_ON=Off COOLER_OFF=On" {
		t.Fatalf("cooler is %s", p.Summary())
	}
	if sent, err := c.Warm(ctx, "CCD", 5, 0.5, 200*time.Millisecond); err != nil || sent {
		t.Fatalf("warming again: sent %v, %v", sent, err)
	}
	// Cooling turns nothing on by itself, but a cooler that is off means it is not there yet.
	f.Handle("CCD", "CCD_TEMPERATURE", func(f *inditest.Fake, req prop.Property) {
		f.Update(req.Device, "CCD_COOLER", func(p *prop.Property) {
			inditest.Apply(p, inditest.Switches("CCD", "CCD_COOLER", prop.OneOfMany, []string{"COOLER_ON"}, "COOLER_ON"))
		})
		f.Update(req.Device, req.Name, func(p *prop.Property) { inditest.Apply(p, req); p.State = prop.Ok })
	})
	if sent, err := c.Cool(ctx, "CCD", -10, 0.5); err != nil || !sent {
		t.Fatalf("cooling with the cooler off: sent %v, %v", sent, err)
	}
	if sent, err := c.Cool(ctx, "CCD", -10, 0.5); err != nil || sent {
		t.Fatalf("cooling again: sent %v, %v", sent, err)
	}
}

func TestSubscribersSeeEveryChangeInOrder(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Dome",
		inditest.Switches("Dome", "DOME_SHUTTER", prop.AtMostOne, []string{"SHUTTER_CLOSE"}, "SHUTTER_OPEN", "SHUTTER_CLOSE"))
	c, ctx := dial(t, f.Addr)
	if err := c.Sync(ctx, "Dome"); err != nil {
		t.Fatal(err)
	}
	sub := c.Subscribe(indi.Filter{Device: "Dome", Name: "DOME_SHUTTER"})
	defer sub.Close()
	f.Update("Dome", "DOME_SHUTTER", func(p *prop.Property) { p.State = prop.Busy; p.Elements[0].Value = "On"; p.Elements[1].Value = "Off" })
	f.Message("Dome", "[INFO] Shutter is opening.")
	f.Update("Dome", "DOME_SHUTTER", func(p *prop.Property) { p.State = prop.Ok })
	f.Delete("Dome", "DOME_SHUTTER")
	var got []string
	for len(got) < 4 {
		ev, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s := ev.Kind.String()
		switch ev.Kind {
		case indi.Updated:
			s += " " + ev.Property.Summary()
		case indi.Messaged:
			s += " " + ev.Message
		}
		got = append(got, s)
	}
	want := []string{"Updated Busy SHUTTER_OPEN=On SHUTTER_CLOSE=Off", "Messaged [INFO] Shutter is opening.",
		"Updated Ok SHUTTER_OPEN=On SHUTTER_CLOSE=Off", "Deleted"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAWriteOnlyPropertyIsSentEvenIfItSeemsThereAlready(t *testing.T) {
	t.Parallel()
	f := fakeDevice(t, "Mount")
	wo := inditest.Switches("Mount", "TELESCOPE_TRACK_MODE", prop.OneOfMany, []string{"TRACK_SIDEREAL"}, "TRACK_SIDEREAL", "TRACK_LUNAR")
	wo.Perm = prop.WriteOnly
	f.Define(wo)
	c, ctx := dial(t, f.Addr)
	// What a write-only vector shows is not the device's state: every request goes out.
	for range 2 {
		if sent, err := c.SetSwitch(ctx, "Mount", "TELESCOPE_TRACK_MODE", map[string]bool{"TRACK_SIDEREAL": true}); !sent || err != nil {
			t.Fatalf("sent %v, %v", sent, err)
		}
	}
	if n := len(f.Received("Mount", "TELESCOPE_TRACK_MODE")); n != 2 {
		t.Fatalf("received %d", n)
	}
}
