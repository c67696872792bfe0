// Device operations are the INDI side of the reservation steps and procedure actions: connect,
// configure (location, snooped devices, gain and offset, optics, filter names), park and
// unpark, open and close, light and dark, cool and warm, abort, power, dome/mount lock policies
// and saving the driver's config. Each is a target state: the device is read first and nothing
// is sent when it is already there, so a step that is retried or resumed after a restart does
// no harm. Each returns whether it sent anything, for step summaries.

package indi

import (
	"context"
	"errors"
	"fmt"
	"liken.sh/runner/indi/prop"
	"math"
	"strconv"
	"time"
)

// Names of the ACTIVE_DEVICES elements: the devices a driver snoops on.
const (
	ActiveTelescope  = "ACTIVE_TELESCOPE"
	ActiveDome       = "ACTIVE_DOME"
	ActiveGPS        = "ACTIVE_GPS"
	ActiveFocuser    = "ACTIVE_FOCUSER"
	ActiveFilter     = "ACTIVE_FILTER"
	ActiveRotator    = "ACTIVE_ROTATOR"
	ActiveSkyQuality = "ACTIVE_SKYQUALITY"
)

// switchTo sets a switch vector to exactly the given states.
func (c *Client) switchTo(ctx context.Context, device, name string, states map[string]bool) (bool, error) {
	sent, _, err := c.change(ctx, c.switchTarget(device, name, states))
	return sent, err
}

// Connect connects a device (CONNECTION.CONNECT) and waits for the properties it defines once
// connected. A driver that cannot reach its hardware answers Alert, which is returned.
func (c *Client) Connect(ctx context.Context, device string) (bool, error) {
	return c.connection(ctx, device, true)
}

// Disconnect disconnects a device (CONNECTION.DISCONNECT).
func (c *Client) Disconnect(ctx context.Context, device string) (bool, error) {
	return c.connection(ctx, device, false)
}

func (c *Client) connection(ctx context.Context, device string, connect bool) (bool, error) {
	before, _ := c.store.property(device, "CONNECTION")
	sent, err := c.switchTo(ctx, device, "CONNECTION", map[string]bool{"CONNECT": connect, "DISCONNECT": !connect})
	if err != nil || !sent && before.State != prop.Busy {
		return sent, err
	}
	// libindi reports CONNECTION Ok before it defines (or deletes) the properties of a
	// connected device: wait for those too.
	return sent, c.Sync(ctx, device)
}

// SetLocation writes GEOGRAPHIC_COORD. Longitude is given as usual (-180..180, east positive)
// and written as INDI wants it, 0..360 east. Latitude and longitude count as equal within
// 1e-6°, elevation within 0.5 m.
func (c *Client) SetLocation(ctx context.Context, device string, latitude, longitude, elevation float64) (bool, error) {
	east := math.Mod(longitude, 360)
	if east < 0 {
		east += 360
	}
	t := c.numberTarget(device, "GEOGRAPHIC_COORD",
		map[string]float64{"LAT": latitude, "LONG": east, "ELEV": elevation}, 0)
	t.reached = func(p prop.Property) bool {
		lat, ok1 := p.Number("LAT")
		lon, ok2 := p.Number("LONG")
		elev, ok3 := p.Number("ELEV")
		dlon := math.Abs(math.Mod(lon-east+540, 360) - 180)
		return ok1 && ok2 && ok3 && math.Abs(lat-latitude) <= 1e-6 && dlon <= 1e-6 &&
			math.Abs(elev-elevation) <= 0.5
	}
	sent, _, err := c.change(ctx, t)
	return sent, err
}

// SetActiveDevices writes the devices a driver snoops on (ACTIVE_DEVICES), keyed by element
// name (ActiveTelescope, ...; "" for none). Elements the driver lacks are left out, and a
// driver without ACTIVE_DEVICES is left alone: each driver snoops on a different set.
func (c *Client) SetActiveDevices(ctx context.Context, device string, active map[string]string) (bool, error) {
	if err := c.ensureSynced(ctx, device); err != nil {
		return false, err
	}
	p, ok := c.store.property(device, "ACTIVE_DEVICES")
	if !ok {
		return false, nil
	}
	values := make(map[string]string)
	for k, v := range active {
		if _, ok := p.Element(k); ok {
			values[k] = v
		}
	}
	if len(values) == 0 {
		return false, nil
	}
	return c.SetText(ctx, device, "ACTIVE_DEVICES", values)
}

// SetGain writes a camera's gain: CCD_GAIN.GAIN, or the Gain of CCD_CONTROLS where the driver
// has that form instead (ZWO, for one).
func (c *Client) SetGain(ctx context.Context, camera string, gain float64) (bool, error) {
	return c.setControl(ctx, camera, gain, "CCD_GAIN", "GAIN", "Gain")
}

// SetOffset writes a camera's offset: CCD_OFFSET.OFFSET, or the Offset of CCD_CONTROLS.
func (c *Client) SetOffset(ctx context.Context, camera string, offset float64) (bool, error) {
	return c.setControl(ctx, camera, offset, "CCD_OFFSET", "OFFSET", "Offset")
}

func (c *Client) setControl(ctx context.Context, camera string, v float64, name, element, control string) (bool, error) {
	if err := c.ensureSynced(ctx, camera); err != nil {
		return false, err
	}
	if _, ok := c.store.property(camera, name); ok {
		return c.SetNumber(ctx, camera, name, map[string]float64{element: v}, 1e-9)
	}
	if p, ok := c.store.property(camera, "CCD_CONTROLS"); ok {
		if _, ok := p.Element(control); ok {
			return c.SetNumber(ctx, camera, "CCD_CONTROLS", map[string]float64{control: v}, 1e-9)
		}
	}
	return false, &MissingError{Device: camera, Property: name + " or CCD_CONTROLS." + control}
}

// SetScopeInfo writes the optics a camera looks through (SCOPE_INFO), in mm; drivers of the
// older form get TELESCOPE_INFO's primary values instead.
func (c *Client) SetScopeInfo(ctx context.Context, device string, focalLength, aperture float64) (bool, error) {
	if err := c.ensureSynced(ctx, device); err != nil {
		return false, err
	}
	if _, ok := c.store.property(device, "SCOPE_INFO"); ok {
		return c.SetNumber(ctx, device, "SCOPE_INFO",
			map[string]float64{"FOCAL_LENGTH": focalLength, "APERTURE": aperture}, 1e-6)
	}
	if _, ok := c.store.property(device, "TELESCOPE_INFO"); ok {
		return c.SetNumber(ctx, device, "TELESCOPE_INFO",
			map[string]float64{"TELESCOPE_FOCAL_LENGTH": focalLength, "TELESCOPE_APERTURE": aperture}, 1e-6)
	}
	return false, &MissingError{Device: device, Property: "SCOPE_INFO or TELESCOPE_INFO"}
}

// SetFilterNames names the filter slots from 1 on (FILTER_NAME.FILTER_SLOT_NAME_<n>). More
// names than slots is an error; slots past the names keep theirs.
func (c *Client) SetFilterNames(ctx context.Context, wheel string, names []string) (bool, error) {
	if err := c.ensureSynced(ctx, wheel); err != nil {
		return false, err
	}
	p, ok := c.store.property(wheel, "FILTER_NAME")
	if !ok {
		return false, &MissingError{Device: wheel, Property: "FILTER_NAME"}
	}
	values := make(map[string]string, len(names))
	for i, n := range names {
		values["FILTER_SLOT_NAME_"+strconv.Itoa(i+1)] = n
	}
	if len(names) > len(p.Elements) {
		return false, &RequestError{Device: wheel, Property: "FILTER_NAME",
			Reason: fmt.Sprintf("%d filters are named but the wheel has %d slots", len(names), len(p.Elements))}
	}
	return c.SetText(ctx, wheel, "FILTER_NAME", values)
}

// SetMountParked parks or unparks a mount (TELESCOPE_PARK). A mount whose dome is locked
// refuses to unpark with an Alert, returned as an *AlertError.
func (c *Client) SetMountParked(ctx context.Context, mount string, parked bool) (bool, error) {
	return c.switchTo(ctx, mount, "TELESCOPE_PARK", map[string]bool{"PARK": parked, "UNPARK": !parked})
}

// SetDomeParked parks or unparks a dome (DOME_PARK), then brings the shutter to match: closed
// when parked, open when not. A dome locked by an unparked mount refuses to park with an Alert.
func (c *Client) SetDomeParked(ctx context.Context, dome string, parked bool) (bool, error) {
	sent, err := c.switchTo(ctx, dome, "DOME_PARK", map[string]bool{"PARK": parked, "UNPARK": !parked})
	if err != nil {
		return sent, err
	}
	if _, ok := c.store.property(dome, "DOME_SHUTTER"); !ok {
		return sent, nil // a roof or dome without a shutter
	}
	shut, err := c.switchTo(ctx, dome, "DOME_SHUTTER",
		map[string]bool{"SHUTTER_OPEN": !parked, "SHUTTER_CLOSE": parked})
	return sent || shut, err
}

// SetDustCapOpen opens or closes a dust cap (CAP_PARK: PARK is closed).
func (c *Client) SetDustCapOpen(ctx context.Context, dustCap string, open bool) (bool, error) {
	return c.switchTo(ctx, dustCap, "CAP_PARK", map[string]bool{"PARK": !open, "UNPARK": open})
}

// SetFlatLit turns a flat panel's light on or off (FLAT_LIGHT_CONTROL).
func (c *Client) SetFlatLit(ctx context.Context, panel string, lit bool) (bool, error) {
	return c.switchTo(ctx, panel, "FLAT_LIGHT_CONTROL", map[string]bool{"FLAT_LIGHT_ON": lit, "FLAT_LIGHT_OFF": !lit})
}

// Cool writes a camera's CCD_TEMPERATURE setpoint and waits until the sensor reads within
// `within` °C of it. Nothing is sent if it already does, settled, with the cooler on.
func (c *Client) Cool(ctx context.Context, camera string, celsius, within float64) (bool, error) {
	if err := c.ensureSynced(ctx, camera); err != nil {
		return false, err
	}
	coolerOn := true
	if p, ok := c.store.property(camera, "CCD_COOLER"); ok {
		coolerOn = p.SwitchOn("COOLER_ON")
	}
	sent, _, err := c.change(ctx, c.temperatureTarget(camera, celsius, within, coolerOn))
	return sent, err
}

func (c *Client) temperatureTarget(camera string, celsius, within float64, extra bool) target {
	t := c.numberTarget(camera, "CCD_TEMPERATURE", map[string]float64{"CCD_TEMPERATURE_VALUE": celsius}, within)
	near := func(p prop.Property) bool {
		v, ok := p.Number("CCD_TEMPERATURE_VALUE")
		return ok && math.Abs(v-celsius) <= within
	}
	t.want = fmt.Sprintf("within %s °C of %s °C", prop.FormatNumber(within), prop.FormatNumber(celsius))
	// The reading is the target, Busy or not: the wait ends on it, so a repeat finds it done.
	// (INDI has no setpoint read-back to tell a ramp towards another target apart.)
	t.reached = func(p prop.Property) bool { return extra && near(p) && p.State != prop.Alert }
	t.done = near
	return t
}

// SendCoolSetpoint writes a camera's CCD_TEMPERATURE setpoint without waiting for the sensor:
// a camera whose driver restarted cools again towards it while the night goes on.
func (c *Client) SendCoolSetpoint(ctx context.Context, camera string, celsius float64) error {
	return c.Send(ctx, prop.Property{Device: camera, Name: "CCD_TEMPERATURE",
		Elements: []prop.Element{{Name: "CCD_TEMPERATURE_VALUE", Number: celsius}}})
}

// Warm writes a camera's CCD_TEMPERATURE setpoint, waits up to settle for the sensor to read
// within `within` °C of it (not reaching it is not a failure: a warm-up must end), then turns
// the cooler off (CCD_COOLER) where the driver has one. Nothing is sent if the cooler is
// already off, or, without a cooler, if the sensor already reads so, settled.
func (c *Client) Warm(ctx context.Context, camera string, celsius, within float64, settle time.Duration) (bool, error) {
	if err := c.ensureSynced(ctx, camera); err != nil {
		return false, err
	}
	cooler, hasCooler := c.store.property(camera, "CCD_COOLER")
	if hasCooler && !cooler.SwitchOn("COOLER_ON") {
		return false, nil
	}
	wctx, cancel := context.WithTimeout(ctx, settle)
	sent, _, err := c.change(wctx, c.temperatureTarget(camera, celsius, within, true))
	cancel()
	if err != nil && !(errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil) {
		return sent, err
	}
	if !hasCooler {
		return sent, nil
	}
	off, err := c.switchTo(ctx, camera, "CCD_COOLER", map[string]bool{"COOLER_ON": false, "COOLER_OFF": true})
	return sent || off, err
}

// AbortExposure aborts a camera's running exposure (CCD_ABORT_EXPOSURE) and waits until
// CCD_EXPOSURE is no longer Busy. Nothing is sent when no exposure runs.
func (c *Client) AbortExposure(ctx context.Context, camera string) (bool, error) {
	return c.abort(ctx, camera, "CCD_ABORT_EXPOSURE", "CCD_EXPOSURE")
}

// AbortMotion stops a mount (TELESCOPE_ABORT_MOTION) and waits until it no longer moves:
// slewing, parking, or moved by hand. Nothing is sent when it is still.
func (c *Client) AbortMotion(ctx context.Context, mount string) (bool, error) {
	return c.abort(ctx, mount, "TELESCOPE_ABORT_MOTION",
		"EQUATORIAL_EOD_COORD", "HORIZONTAL_COORD", "TELESCOPE_PARK", "TELESCOPE_MOTION_NS", "TELESCOPE_MOTION_WE")
}

func (c *Client) abort(ctx context.Context, device, abort string, moving ...string) (bool, error) {
	if err := c.ensureSynced(ctx, device); err != nil {
		return false, err
	}
	if _, ok := c.store.property(device, abort); !ok {
		return false, &MissingError{Device: device, Property: abort}
	}
	busy := func() []string {
		var out []string
		for _, name := range moving {
			if p, ok := c.store.property(device, name); ok && p.State == prop.Busy {
				out = append(out, name)
			}
		}
		return out
	}
	if len(busy()) == 0 {
		return false, nil
	}
	if err := c.Press(ctx, device, abort, "ABORT"); err != nil {
		return true, err
	}
	for _, name := range busy() {
		_, err := c.Wait(ctx, device, name, func(p prop.Property) bool { return p.State != prop.Busy })
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// SetPowerOutput switches a power output on or off (DIGITAL_OUTPUT_<n>, n from 1).
func (c *Client) SetPowerOutput(ctx context.Context, device string, output int, on bool) (bool, error) {
	if output < 1 {
		return false, &RequestError{Device: device, Property: "DIGITAL_OUTPUT_" + strconv.Itoa(output),
			Reason: "outputs count from 1"}
	}
	return c.switchTo(ctx, device, "DIGITAL_OUTPUT_"+strconv.Itoa(output), map[string]bool{"ON": on, "OFF": !on})
}

// SetDomePolicy makes a mount heed its dome (DOME_POLICY: DOME_LOCKS) or ignore it
// (DOME_IGNORED). A locked mount does not unpark while the dome is parked.
func (c *Client) SetDomePolicy(ctx context.Context, mount string, locks bool) (bool, error) {
	return c.switchTo(ctx, mount, "DOME_POLICY", map[string]bool{"DOME_LOCKS": locks, "DOME_IGNORED": !locks})
}

// SetMountPolicy makes a dome heed its mount (MOUNT_POLICY: MOUNT_LOCKS) or ignore it. A locked
// dome does not park while the mount is unparked.
func (c *Client) SetMountPolicy(ctx context.Context, dome string, locks bool) (bool, error) {
	return c.switchTo(ctx, dome, "MOUNT_POLICY", map[string]bool{"MOUNT_LOCKS": locks, "MOUNT_IGNORED": !locks})
}

// SetShutterParkPolicy sets whether a dome closes its shutter when it parks and opens it when
// it unparks (DOME_SHUTTER_PARK_POLICY).
func (c *Client) SetShutterParkPolicy(ctx context.Context, dome string, closeOnPark, openOnUnpark bool) (bool, error) {
	return c.switchTo(ctx, dome, "DOME_SHUTTER_PARK_POLICY",
		map[string]bool{"SHUTTER_CLOSE_ON_PARK": closeOnPark, "SHUTTER_OPEN_ON_UNPARK": openOnUnpark})
}

// SaveConfig makes the driver save its configuration (CONFIG_PROCESS.CONFIG_SAVE), so what was
// written survives a driver restart. Unlike the rest, it always sends.
func (c *Client) SaveConfig(ctx context.Context, device string) error {
	return c.Press(ctx, device, "CONFIG_PROCESS", "CONFIG_SAVE")
}

// RelayPark tells the drivers on this server that snoop on device's park vector (DOME_PARK
// or TELESCOPE_PARK) that it is parked or not, as a chained indiserver would: a
// setSwitchVector with state Ok, which indiserver hands to the snooping drivers only. The
// device need not be on this server: this is how a dome and the mounts of other servers lock
// each other (DOME_POLICY, MOUNT_POLICY). Drivers believe only a settled (Ok) state.
func (c *Client) RelayPark(device, vector string, parked bool) error {
	p := prop.Property{Device: device, Name: vector, Type: prop.Switch, State: prop.Ok, Elements: []prop.Element{
		{Name: "PARK", Value: onOff(parked)}, {Name: "UNPARK", Value: onOff(!parked)},
	}}
	if err := c.write(AppendVector(nil, Set, p)); err != nil {
		return err
	}
	c.sent.Add(1)
	return nil
}
