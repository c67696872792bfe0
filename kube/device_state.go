// What a user sees on a device while a reservation holds it: its state conditions (a Dome
// Parked and Open, a Mount Parked, a DustCap Open, a FlatPanel Lit, a Camera Cooling, a
// WeatherStation Safe), its readings and their display with units, and every INDI property the
// driver defines. All of it is derived from the driver's properties alone, so the runner can
// compute it again at any time (after a restart, on another worker) and get the same status,
// and a transition is recognised by comparing with the status the object already holds.
package kube

import (
	"math"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/prop"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The reasons of the state conditions: each names the state.
const (
	ReasonParked      = "Parked"
	ReasonUnparked    = "Unparked"
	ReasonOpen        = "Open"
	ReasonClosed      = "Closed"
	ReasonLit         = "Lit"
	ReasonDark        = "Dark"
	ReasonCooling     = "Cooling"
	ReasonCoolerOff   = "CoolerOff"
	ReasonSafe        = "Safe"
	ReasonWarning     = "Warning"
	ReasonDanger      = "Danger"
	ReasonMoving      = "Moving"
	ReasonNotReported = "NotReported"
)

// The safety verdicts of a WeatherStation, as readings.safety shows them.
const (
	SafetySafe    = "Safe"
	SafetyWarning = "Warning"
	SafetyDanger  = "Danger"
)

// SafetyUnknown is an Observatory's weather when none of its weather stations gives a verdict.
const SafetyUnknown = "Unknown"

// SiteWeather is an Observatory's status.weather: the worst verdict of its weather stations'
// (Danger, then Warning, then Safe), or Unknown when none gives one.
func SiteWeather(verdicts []string) string {
	rank := map[string]int{SafetySafe: 1, SafetyWarning: 2, SafetyDanger: 3}
	worst := SafetyUnknown
	for _, v := range verdicts {
		if rank[v] > rank[worst] {
			worst = v
		}
	}
	return worst
}

// StateConditionTypes are the state conditions a kind has while it is Connected.
func StateConditionTypes(kind obsv1.Kind) []string {
	switch kind {
	case obsv1.KindDome:
		return []string{obsv1.ConditionParked, obsv1.ConditionOpen}
	case obsv1.KindMount:
		return []string{obsv1.ConditionParked}
	case obsv1.KindDustCap:
		return []string{obsv1.ConditionOpen}
	case obsv1.KindFlatPanel:
		return []string{obsv1.ConditionLit}
	case obsv1.KindCamera:
		return []string{obsv1.ConditionCooling}
	case obsv1.KindWeatherStation:
		return []string{obsv1.ConditionSafe}
	}
	return nil
}

// DeviceObservation is what a device's INDI properties say, before it meets the status.
type DeviceObservation struct {
	// Connected: the driver reports CONNECTION.CONNECT On.
	Connected bool
	// Conditions are the kind's state conditions, without times; none when not connected.
	Conditions []obsv1.Condition
	// Readings and Display are keyed alike (obsv1.Reading*); nil when not connected.
	Readings, Display map[string]string
	// Properties are every property the driver defines, in its order, without BLOB data.
	Properties []obsv1.Property
}

// ObserveDevice reads the properties of one device of the given kind and name (the name
// goes into the messages: "Dome lab is parked").
func ObserveDevice(kind obsv1.Kind, name string, props []prop.Property) DeviceObservation {
	ps := propertySet{}
	for _, p := range props {
		ps[p.Name] = p
	}
	obs := DeviceObservation{Properties: StatusProperties(props)}
	conn, ok := ps["CONNECTION"]
	obs.Connected = ok && conn.SwitchOn("CONNECT") && conn.State != prop.Busy
	if !obs.Connected {
		return obs
	}
	r := readings{values: map[string]string{}, text: map[string]string{}}
	if observe, ok := kindObservers[kind]; ok {
		obs.Conditions = observe(ps, string(kind)+" "+name, r)
	}
	if len(r.values) > 0 {
		obs.Readings, obs.Display = r.values, r.text
	}
	return obs
}

// A kindObserver reads the properties of a connected device of one kind: it sets the
// readings it finds in r and returns the kind's state conditions (label names the device in
// their messages). A kind without state conditions returns none.
type kindObserver func(ps propertySet, label string, r readings) []obsv1.Condition

// kindObservers are the kinds that have state conditions or readings; the others have
// neither.
var kindObservers = map[obsv1.Kind]kindObserver{
	obsv1.KindDome:            observeDome,
	obsv1.KindMount:           observeMount,
	obsv1.KindDustCap:         observeDustCap,
	obsv1.KindFlatPanel:       observeFlatPanel,
	obsv1.KindCamera:          observeCamera,
	obsv1.KindFilterWheel:     observeFilterWheel,
	obsv1.KindFocuser:         observeFocuser,
	obsv1.KindRotator:         observeRotator,
	obsv1.KindWeatherStation:  observeWeatherStation,
	obsv1.KindSkyQualityMeter: observeSkyQualityMeter,
	obsv1.KindSwitch:          switchReadings,
	obsv1.KindReceiver:        observeReceiver,
	obsv1.KindGPS:             gpsReadings,
}

func observeDome(ps propertySet, label string, r readings) []obsv1.Condition {
	park := parkState.of(ps["DOME_PARK"], ps.has("DOME_PARK"))
	shutter := shutterState.of(ps["DOME_SHUTTER"], ps.has("DOME_SHUTTER"))
	if v, ok := ps.number("ABS_DOME_POSITION", "DOME_ABSOLUTE_POSITION"); ok {
		r.set(obsv1.ReadingAzimuth, decimal(v, 2), degrees(v))
	}
	r.setState(obsv1.ReadingShutter, shutter)
	r.setState(obsv1.ReadingPark, park)
	return []obsv1.Condition{park.condition(obsv1.ConditionParked, label), shutter.condition(obsv1.ConditionOpen, label)}
}

func observeMount(ps propertySet, label string, r readings) []obsv1.Condition {
	park := parkState.of(ps["TELESCOPE_PARK"], ps.has("TELESCOPE_PARK"))
	if ra, ok := ps.number("EQUATORIAL_EOD_COORD", "RA"); ok {
		r.set(obsv1.ReadingRA, decimal(ra, 6), hms(ra))
	}
	if dec, ok := ps.number("EQUATORIAL_EOD_COORD", "DEC"); ok {
		r.set(obsv1.ReadingDec, decimal(dec, 5), dms(dec))
	}
	if s := mountState(ps, park); s != "" {
		r.set(obsv1.ReadingState, s, s)
	}
	return []obsv1.Condition{park.condition(obsv1.ConditionParked, label)}
}

func observeDustCap(ps propertySet, label string, r readings) []obsv1.Condition {
	cover := coverState.of(ps["CAP_PARK"], ps.has("CAP_PARK"))
	r.setState(obsv1.ReadingCover, cover)
	return []obsv1.Condition{cover.condition(obsv1.ConditionOpen, label)}
}

func observeFlatPanel(ps propertySet, label string, r readings) []obsv1.Condition {
	light := lightState.of(ps["FLAT_LIGHT_CONTROL"], ps.has("FLAT_LIGHT_CONTROL"))
	r.setState(obsv1.ReadingLight, light)
	if p, ok := ps["FLAT_LIGHT_INTENSITY"]; ok {
		if e, ok := p.Element("FLAT_LIGHT_INTENSITY_VALUE"); ok && p.Type == prop.Number {
			text := decimal(e.Number, 2)
			if e.Max > e.Min {
				text += "/" + decimal(e.Max, 2)
			}
			r.set(obsv1.ReadingBrightness, decimal(e.Number, 2), text)
		}
	}
	return []obsv1.Condition{light.condition(obsv1.ConditionLit, label)}
}

func observeCamera(ps propertySet, label string, r readings) []obsv1.Condition {
	if v, ok := ps.number("CCD_TEMPERATURE", "CCD_TEMPERATURE_VALUE"); ok {
		r.set(obsv1.ReadingTemperature, decimal(v, 2), celsius(v))
	}
	if p, ok := ps["CCD_COOLER"]; ok && p.Type == prop.Switch {
		on := "Off"
		if p.SwitchOn("COOLER_ON") {
			on = "On"
		}
		text := on
		if power, ok := ps.number("CCD_COOLER_POWER", "CCD_COOLER_VALUE"); ok {
			text += ", " + decimal(power, 0) + "%"
		}
		r.set(obsv1.ReadingCooler, on, text)
	}
	if p, ok := ps["CCD_EXPOSURE"]; ok {
		left, _ := p.Number("CCD_EXPOSURE_VALUE")
		switch p.State {
		case prop.Busy:
			r.set(obsv1.ReadingExposure, decimal(left, 2), decimal(left, 1)+" s left")
		case prop.Alert:
			r.set(obsv1.ReadingExposure, "0", "Failed")
		default:
			r.set(obsv1.ReadingExposure, "0", "Idle")
		}
	}
	return []obsv1.Condition{cameraCooling(ps, label)}
}

func observeFilterWheel(ps propertySet, _ string, r readings) []obsv1.Condition {
	if v, ok := ps.number("FILTER_SLOT", "FILTER_SLOT_VALUE"); ok {
		slot := int(math.Round(v))
		n := strconv.Itoa(slot)
		text := n
		if ps["FILTER_SLOT"].State == prop.Busy {
			text = "moving to " + n
		}
		r.set(obsv1.ReadingSlot, n, text)
		if f, ok := ps.text("FILTER_NAME", "FILTER_SLOT_NAME_"+n); ok {
			r.set(obsv1.ReadingFilter, f, f)
		}
	}
	return nil
}

func observeFocuser(ps propertySet, _ string, r readings) []obsv1.Condition {
	if v, ok := ps.number("ABS_FOCUS_POSITION", "FOCUS_ABSOLUTE_POSITION"); ok {
		r.set(obsv1.ReadingPosition, decimal(v, 0), decimal(v, 0)+" steps")
	}
	return nil
}

func observeRotator(ps propertySet, _ string, r readings) []obsv1.Condition {
	if v, ok := ps.number("ABS_ROTATOR_ANGLE", "ANGLE"); ok {
		r.set(obsv1.ReadingAngle, decimal(v, 2), degrees(v))
	}
	return nil
}

func observeWeatherStation(ps propertySet, label string, r readings) []obsv1.Condition {
	safe, verdict := weatherSafety(ps, label)
	if verdict != "" {
		r.set(obsv1.ReadingSafety, verdict, verdict)
	}
	if p, ok := ps["WEATHER_PARAMETERS"]; ok && p.Type == prop.Number {
		for _, e := range p.Elements {
			r.set(weatherKey(e.Name), decimal(e.Number, 2), withUnit(decimal(e.Number, 1), unitOf(e.Label)))
		}
	}
	return []obsv1.Condition{safe}
}

func observeSkyQualityMeter(ps propertySet, _ string, r readings) []obsv1.Condition {
	if v, ok := ps.number("SKY_QUALITY", "SKY_BRIGHTNESS"); ok {
		r.set(obsv1.ReadingBrightness, decimal(v, 2), strconv.FormatFloat(v, 'f', 2, 64)+" mag/arcsec²")
	}
	return nil
}

func observeReceiver(ps propertySet, _ string, r readings) []obsv1.Condition {
	if v, ok := ps.number("RECEIVER_SETTINGS", "RECEIVER_FREQUENCY"); ok {
		r.set(obsv1.ReadingFrequency, decimal(v, 6), strconv.FormatFloat(v, 'f', 3, 64)+" MHz")
	}
	return nil
}

// ObservedDeviceStatus is st with what obs says about the device whose INDI name is
// indiDevice: Connected with its state conditions, readings and display; or, while the
// driver runs but the hardware is not connected (a driver that returned disconnected, or a
// device a person disconnected), Connecting without them, as state conditions exist only
// while a device is Connected. A condition keeps its transition time while its status does
// not change. The input is not changed.
func ObservedDeviceStatus(st obsv1.DeviceStatus, kind obsv1.Kind, indiDevice string, obs DeviceObservation, generation int64, now time.Time) obsv1.DeviceStatus {
	out := *st.DeepCopy()
	out.IndiDevice = indiDevice
	out.Properties = obs.Properties
	out.Readings, out.Display = obs.Readings, obs.Display
	if !obs.Connected {
		out.Phase = obsv1.DeviceConnecting
		out.Conditions = WithoutConditions(out.Conditions, StateConditionTypes(kind)...)
		out.Conditions = WithCondition(out.Conditions, ReadyCondition(string(out.Phase), "Connecting "+indiDevice), generation, now)
		return out
	}
	out.Phase = obsv1.DeviceConnected
	out.Conditions = WithCondition(out.Conditions, ReadyCondition(string(out.Phase), "Connected as "+indiDevice), generation, now)
	for _, c := range obs.Conditions {
		out.Conditions = WithCondition(out.Conditions, c, generation, now)
		if c.Type == obsv1.ConditionParked && c.Status == metav1.ConditionFalse {
			// Unparked again (by the site's own rules): the site guard's park is over.
			out.Conditions = WithoutConditions(out.Conditions, obsv1.ConditionParkedBySafety)
		}
	}
	return out
}

// DeviceConditionEvents are the Events of the state conditions and the Ready condition that
// changed from old to updated (see ConditionEvents): Safe going from Warning to Danger is news,
// a new message alone is not.
func DeviceConditionEvents(kind obsv1.Kind, old, updated []obsv1.Condition) []Event {
	return ConditionEvents(old, updated, append(StateConditionTypes(kind), obsv1.ConditionReady)...)
}

// StatusProperties are the properties as status.properties shows them: every vector with its
// elements' values as sent, and BLOBs without their data.
func StatusProperties(props []prop.Property) []obsv1.Property {
	if len(props) == 0 {
		return nil
	}
	out := make([]obsv1.Property, 0, len(props))
	seen := map[string]bool{}
	for _, p := range props {
		if seen[p.Name] {
			continue // the list is a map keyed by name
		}
		seen[p.Name] = true
		sp := obsv1.Property{
			Name: p.Name, Label: p.Label, Group: p.Group, Type: p.Type.String(),
			State: string(p.State), Permission: string(p.Perm), Rule: string(p.Rule),
		}
		for _, e := range p.Elements {
			v := strings.TrimSpace(e.Value)
			if p.Type == prop.BLOB {
				v = ""
			}
			sp.Elements = append(sp.Elements, obsv1.PropertyElement{Name: e.Name, Label: e.Label, Value: v})
		}
		out = append(out, sp)
	}
	return out
}

type propertySet map[string]prop.Property

func (ps propertySet) has(name string) bool { _, ok := ps[name]; return ok }

func (ps propertySet) number(prop, elem string) (float64, bool) {
	p, ok := ps[prop]
	if !ok {
		return 0, false
	}
	return p.Number(elem)
}

func (ps propertySet) text(prop, elem string) (string, bool) {
	p, ok := ps[prop]
	if !ok {
		return "", false
	}
	v, ok := p.Text(elem)
	return strings.TrimSpace(v), ok
}
