// These tests run the device operations against Debian's real INDI simulators, each test with
// an indiserver of its own so they run in parallel. Each operation must reach its target state
// and then be a no-op when repeated; refusals must carry the driver's words; a server that
// dies must fail the wait at once. The slow motions of the simulators are avoided on purpose:
// park positions are set to where dome and mount already are.

package indi_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/indiserver"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
)

// simTimeout bounds each simulator test: the dome's shutter takes 5 s, the rest less.
const simTimeout = 45 * time.Second

const (
	mount  = "Telescope Simulator"
	camera = "CCD Simulator"
	dome   = "Dome Simulator"
	wheel  = "Filter Simulator"
	panel  = "Light Panel Simulator"
)

// connected starts a server with the drivers, dials it and connects the devices.
func connected(t *testing.T, drivers []string, devices ...string) (*indi.Client, context.Context, *indiserver.Server) {
	t.Helper()
	s := inditest.StartServer(t, drivers...)
	ctx, cancel := context.WithTimeout(context.Background(), simTimeout)
	t.Cleanup(cancel)
	c, err := indi.Dial(ctx, s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, d := range devices {
		if _, err := c.Connect(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	return c, ctx, s
}

// twice runs op, which must send, then again, which must not.
func twice(t *testing.T, what string, op func() (bool, error)) {
	t.Helper()
	for i, want := range []bool{true, false} {
		sent, err := op()
		if err != nil {
			t.Fatalf("%s (%d): %v", what, i+1, err)
		}
		if sent != want {
			t.Fatalf("%s (%d): sent %v, want %v", what, i+1, sent, want)
		}
	}
}

func property(t *testing.T, c *indi.Client, device, name string) prop.Property {
	t.Helper()
	p, ok := c.Property(device, name)
	if !ok {
		t.Fatalf("%s has no %s", device, name)
	}
	return p
}

func TestEverySimulatorConnectsAndDisconnectsOnce(t *testing.T) {
	t.Parallel()
	drivers := []string{"indi_simulator_telescope", "indi_simulator_ccd", "indi_simulator_dome",
		"indi_simulator_focus", "indi_simulator_wheel", "indi_simulator_weather", "indi_simulator_lightpanel"}
	devices := []string{mount, camera, dome, "Focuser Simulator", wheel, "Weather Simulator", panel}
	c, ctx, _ := connected(t, drivers)
	for _, d := range devices {
		before := len(c.Properties(d))
		twice(t, "connect "+d, func() (bool, error) { return c.Connect(ctx, d) })
		if after := len(c.Properties(d)); after <= before {
			t.Errorf("%s defined no properties on connecting (%d, then %d)", d, before, after)
		}
	}
	for _, d := range devices {
		twice(t, "disconnect "+d, func() (bool, error) { return c.Disconnect(ctx, d) })
		if p := property(t, c, d, "CONNECTION"); !p.SwitchOn("DISCONNECT") {
			t.Errorf("%s: %s", d, p.Summary())
		}
	}
}

func TestParkingAParkedDomeSendsNothing(t *testing.T) {
	t.Parallel()
	c, ctx, _ := connected(t, []string{"indi_simulator_dome"}, dome)
	// Park where the dome stands, so parking does not turn it for seconds.
	az, _ := property(t, c, dome, "ABS_DOME_POSITION").Number("DOME_ABSOLUTE_POSITION")
	if _, err := c.SetNumber(ctx, dome, "DOME_PARK_POSITION", map[string]float64{"PARK_AZ": az}, 0.01); err != nil {
		t.Fatal(err)
	}
	twice(t, "park", func() (bool, error) { return c.SetDomeParked(ctx, dome, true) })
	if p := property(t, c, dome, "DOME_PARK"); p.Summary() != "Ok PARK=On UNPARK=Off" {
		t.Fatalf("DOME_PARK %s", p.Summary())
	}
	if p := property(t, c, dome, "DOME_SHUTTER"); !p.SwitchOn("SHUTTER_CLOSE") || !p.State.Settled() {
		t.Fatalf("DOME_SHUTTER %s", p.Summary())
	}
	twice(t, "unpark", func() (bool, error) { return c.SetDomeParked(ctx, dome, false) })
	if p := property(t, c, dome, "DOME_SHUTTER"); !p.SwitchOn("SHUTTER_OPEN") || !p.State.Settled() {
		t.Fatalf("DOME_SHUTTER %s after unparking", p.Summary())
	}
}

func TestParkingAParkedMountSendsNothing(t *testing.T) {
	t.Parallel()
	c, ctx, _ := connected(t, []string{"indi_simulator_telescope"}, mount)
	// The simulator starts at the pole; a park position there is reached at once.
	if _, err := c.SetNumber(ctx, mount, "TELESCOPE_PARK_POSITION",
		map[string]float64{"PARK_HA": -6, "PARK_DEC": 90}, 1e-6); err != nil {
		t.Fatal(err)
	}
	twice(t, "park", func() (bool, error) { return c.SetMountParked(ctx, mount, true) })
	twice(t, "unpark", func() (bool, error) { return c.SetMountParked(ctx, mount, false) })
	if p := property(t, c, mount, "TELESCOPE_PARK"); p.Summary() != "Ok PARK=Off UNPARK=On" {
		t.Fatalf("TELESCOPE_PARK %s", p.Summary())
	}
}

func TestARefusedDomeParkSurfacesTheDriversMessage(t *testing.T) {
	t.Parallel()
	c, ctx, _ := connected(t, []string{"indi_simulator_telescope", "indi_simulator_dome"}, mount, dome)
	// The dome follows the unparked mount and must not park while it is locked to it.
	twice(t, "mount policy", func() (bool, error) { return c.SetMountPolicy(ctx, dome, true) })
	_, err := c.SetDomeParked(ctx, dome, true)
	var ae *indi.AlertError
	if !errors.As(err, &ae) || ae.Property != "DOME_PARK" ||
		!strings.Contains(ae.Message, "Cannot Park Dome when mount is locking") {
		t.Fatalf("got %v, want the dome's refusal", err)
	}
}

func TestARefusedMountUnparkSurfacesTheDriversMessage(t *testing.T) {
	t.Parallel()
	c, ctx, _ := connected(t, []string{"indi_simulator_telescope", "indi_simulator_dome"}, mount, dome)
	if _, err := c.SetNumber(ctx, mount, "TELESCOPE_PARK_POSITION",
		map[string]float64{"PARK_HA": -6, "PARK_DEC": 90}, 1e-6); err != nil {
		t.Fatal(err)
	}
	az, _ := property(t, c, dome, "ABS_DOME_POSITION").Number("DOME_ABSOLUTE_POSITION")
	if _, err := c.SetNumber(ctx, dome, "DOME_PARK_POSITION", map[string]float64{"PARK_AZ": az}, 0.01); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetMountParked(ctx, mount, true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetDomeParked(ctx, dome, true); err != nil {
		t.Fatal(err)
	}
	// A mount locked to a parked dome must stay parked.
	twice(t, "dome policy", func() (bool, error) { return c.SetDomePolicy(ctx, mount, true) })
	_, err := c.SetMountParked(ctx, mount, false)
	var ae *indi.AlertError
	if !errors.As(err, &ae) || ae.Property != "TELESCOPE_PARK" || ae.Message == "" {
		t.Fatalf("got %v, want the mount's refusal", err)
	}
	t.Logf("the mount said: %s", ae.Message)
}

func TestAFlatPanelLightsAndDarksOnce(t *testing.T) {
	t.Parallel()
	c, ctx, _ := connected(t, []string{"indi_simulator_lightpanel"}, panel)
	twice(t, "light", func() (bool, error) { return c.SetFlatLit(ctx, panel, true) })
	twice(t, "dark", func() (bool, error) { return c.SetFlatLit(ctx, panel, false) })
	if p := property(t, c, panel, "FLAT_LIGHT_CONTROL"); !p.SwitchOn("FLAT_LIGHT_OFF") {
		t.Fatalf("FLAT_LIGHT_CONTROL %s", p.Summary())
	}
}

func TestACameraCoolsAndWarmsWithinItsTolerance(t *testing.T) {
	t.Parallel()
	c, ctx, _ := connected(t, []string{"indi_simulator_ccd"}, camera)
	// The simulator changes half a degree a second.
	twice(t, "cool", func() (bool, error) { return c.Cool(ctx, camera, -1.5, 0.5) })
	if v, _ := property(t, c, camera, "CCD_TEMPERATURE").Number("CCD_TEMPERATURE_VALUE"); v > -1 {
		t.Fatalf("cooled to %v", v)
	}
	twice(t, "warm", func() (bool, error) { return c.Warm(ctx, camera, 0, 0.5, 10*time.Second) })
	if v, _ := property(t, c, camera, "CCD_TEMPERATURE").Number("CCD_TEMPERATURE_VALUE"); v < -0.5 {
		t.Fatalf("warmed to %v", v)
	}
}

func TestConfiguringDevicesWritesEachValueOnce(t *testing.T) {
	t.Parallel()
	c, ctx, _ := connected(t, []string{"indi_simulator_telescope", "indi_simulator_ccd", "indi_simulator_wheel"},
		mount, camera, wheel)
	twice(t, "location", func() (bool, error) { return c.SetLocation(ctx, mount, 52.5, -70.25, 300) })
	loc := property(t, c, mount, "GEOGRAPHIC_COORD")
	if lon, _ := loc.Number("LONG"); lon != 289.75 {
		t.Fatalf("longitude %v, want 289.75 (degrees east)", lon)
	}
	twice(t, "gain", func() (bool, error) { return c.SetGain(ctx, camera, 42) })
	twice(t, "offset", func() (bool, error) { return c.SetOffset(ctx, camera, 12) })
	twice(t, "scope info", func() (bool, error) { return c.SetScopeInfo(ctx, camera, 800, 200) })
	twice(t, "filter names", func() (bool, error) {
		return c.SetFilterNames(ctx, wheel, []string{"L", "R", "G", "B", "Ha"})
	})
	twice(t, "active devices", func() (bool, error) {
		return c.SetActiveDevices(ctx, camera, map[string]string{
			indi.ActiveTelescope: "north", indi.ActiveFilter: "wheel", indi.ActiveDome: "roof",
		})
	})
	if got := property(t, c, camera, "SCOPE_INFO").Summary(); got != "Ok FOCAL_LENGTH=800 APERTURE=200" {
		t.Errorf("SCOPE_INFO %s", got)
	}
	names := property(t, c, wheel, "FILTER_NAME")
	if v, _ := names.Text("FILTER_SLOT_NAME_5"); v != "Ha" {
		t.Errorf("FILTER_NAME %s", names.Summary())
	}
	if v, _ := property(t, c, camera, "ACTIVE_DEVICES").Text(indi.ActiveTelescope); v != "north" {
		t.Errorf("ACTIVE_DEVICES %s", property(t, c, camera, "ACTIVE_DEVICES").Summary())
	}
	var re *indi.RequestError
	sent := c.Sent()
	if _, err := c.SetGain(ctx, camera, 500); !errors.As(err, &re) {
		t.Errorf("a gain out of range: %v", err)
	}
	if _, err := c.SetFilterNames(ctx, wheel, strings.Split("a b c d e f g h i", " ")); !errors.As(err, &re) {
		t.Errorf("more names than slots: %v", err)
	}
	if c.Sent() != sent {
		t.Errorf("invalid requests were sent")
	}
}

func TestLockPoliciesAreWrittenOnceAndSaved(t *testing.T) {
	t.Parallel()
	c, ctx, s := connected(t, []string{"indi_simulator_telescope", "indi_simulator_dome"}, mount, dome)
	twice(t, "dome policy", func() (bool, error) { return c.SetDomePolicy(ctx, mount, true) })
	twice(t, "mount policy", func() (bool, error) { return c.SetMountPolicy(ctx, dome, true) })
	twice(t, "shutter park policy", func() (bool, error) { return c.SetShutterParkPolicy(ctx, dome, true, true) })
	if err := c.SaveConfig(ctx, dome); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(filepath.Join(s.Home, ".indi", dome+"_config.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), "DOME_SHUTTER_PARK_POLICY") || !strings.Contains(string(saved), "MOUNT_LOCKS") {
		t.Fatalf("the saved config lacks the policies:\n%s", saved)
	}
}

// The dome and the mounts run on different servers, so the runner relays their park states.
// Each driver starts locked and obeys only what is relayed under the name it snoops on.
func TestRelayedParkStatesLockTheMountAndTheDomeOfAnotherServer(t *testing.T) {
	t.Parallel()
	site, ctx, _ := connected(t, []string{"indi_simulator_dome"}, dome)
	tel, _, _ := connected(t, []string{"indi_simulator_telescope"}, mount)
	const mounts = "Mounts of lab" // the aggregate the dome snoops on
	if _, err := tel.SetNumber(ctx, mount, "TELESCOPE_PARK_POSITION",
		map[string]float64{"PARK_HA": -6, "PARK_DEC": 90}, 1e-6); err != nil {
		t.Fatal(err)
	}
	if _, err := tel.SetMountParked(ctx, mount, true); err != nil {
		t.Fatal(err)
	}
	az, _ := property(t, site, dome, "ABS_DOME_POSITION").Number("DOME_ABSOLUTE_POSITION")
	if _, err := site.SetNumber(ctx, dome, "DOME_PARK_POSITION", map[string]float64{"PARK_AZ": az}, 0.01); err != nil {
		t.Fatal(err)
	}
	for _, set := range []func() (bool, error){
		func() (bool, error) { return tel.SetDomePolicy(ctx, mount, true) },
		func() (bool, error) {
			return tel.SetActiveDevices(ctx, mount, map[string]string{indi.ActiveDome: dome})
		},
		func() (bool, error) { return site.SetMountPolicy(ctx, dome, true) },
		func() (bool, error) {
			return site.SetActiveDevices(ctx, dome, map[string]string{indi.ActiveTelescope: mounts})
		},
	} {
		if _, err := set(); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(err error, vector string) {
		t.Helper()
		var ae *indi.AlertError
		if !errors.As(err, &ae) || ae.Property != vector {
			t.Fatalf("got %v, want the driver's refusal of %s", err, vector)
		}
	}

	// The dome is parked: the mount must not unpark; once the dome is unparked, it may.
	if err := tel.RelayPark(dome, "DOME_PARK", true); err != nil {
		t.Fatal(err)
	}
	_, err := tel.SetMountParked(ctx, mount, false)
	refused(err, "TELESCOPE_PARK")
	if err := tel.RelayPark(dome, "DOME_PARK", false); err != nil {
		t.Fatal(err)
	}
	if _, err := tel.SetMountParked(ctx, mount, false); err != nil {
		t.Fatalf("the mount did not unpark under an unparked dome: %v", err)
	}

	// The mounts are unparked: the dome must not park; once they are parked, it may.
	if err := site.RelayPark(mounts, "TELESCOPE_PARK", false); err != nil {
		t.Fatal(err)
	}
	_, err = site.SetDomeParked(ctx, dome, true)
	refused(err, "DOME_PARK")
	if err := site.RelayPark(mounts, "TELESCOPE_PARK", true); err != nil {
		t.Fatal(err)
	}
	if _, err := site.SetDomeParked(ctx, dome, true); err != nil {
		t.Fatalf("the dome did not park after the mounts: %v", err)
	}
}

func TestAbortingStopsAnExposureAndASlewOnce(t *testing.T) {
	t.Parallel()
	c, ctx, _ := connected(t, []string{"indi_simulator_telescope", "indi_simulator_ccd"}, mount, camera)
	if sent, err := c.AbortExposure(ctx, camera); sent || err != nil {
		t.Fatalf("nothing to abort: sent %v, %v", sent, err)
	}
	start := func(device, name, element string, v float64) {
		err := c.Send(ctx, prop.Property{Device: device, Name: name, Elements: []prop.Element{{Name: element, Number: v}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Wait(ctx, device, name, func(p prop.Property) bool { return p.State == prop.Busy }); err != nil {
			t.Fatal(err)
		}
	}
	start(camera, "CCD_EXPOSURE", "CCD_EXPOSURE_VALUE", 30)
	twice(t, "abort exposure", func() (bool, error) { return c.AbortExposure(ctx, camera) })
	err := c.Send(ctx, prop.Property{Device: mount, Name: "EQUATORIAL_EOD_COORD",
		Elements: []prop.Element{{Name: "RA", Number: 1}, {Name: "DEC", Number: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctx, mount, "EQUATORIAL_EOD_COORD", func(p prop.Property) bool { return p.State == prop.Busy }); err != nil {
		t.Fatal(err)
	}
	twice(t, "abort motion", func() (bool, error) { return c.AbortMotion(ctx, mount) })
	if p := property(t, c, mount, "EQUATORIAL_EOD_COORD"); p.State == prop.Busy {
		t.Fatalf("still slewing: %s", p.Summary())
	}
}

func TestAKilledServerFailsThePendingWaitPromptly(t *testing.T) {
	t.Parallel()
	c, ctx, s := connected(t, []string{"indi_simulator_dome"}, dome)
	waiting := make(chan error, 1)
	go func() {
		_, err := c.Wait(ctx, dome, "DOME_PARK", func(p prop.Property) bool { return p.SwitchOn("PARK") })
		waiting <- err
	}()
	killed := time.Now()
	s.Kill()
	var err error
	select {
	case err = <-waiting:
	case <-time.After(5 * time.Second):
		t.Fatal("the wait outlived its server by 5 s")
	}
	var ce *indi.ConnError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), s.Addr) || !strings.Contains(err.Error(), "connection lost") {
		t.Fatalf("got %v, want a lost connection naming %s", err, s.Addr)
	}
	t.Logf("failed %v after the kill: %v", time.Since(killed).Round(time.Millisecond), err)
}
