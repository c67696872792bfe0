// What a user sees on a device while a reservation holds it: its state conditions (a Dome
// Parked and Open, a Mount Parked, a DustCap Open, a FlatPanel Lit, a Camera Cooling, a
// WeatherStation Safe), its readings and their display with units, and every INDI property the
// driver defines. All of it is derived from the driver's properties alone, so the runner can
// compute it again at any time (after a restart, on another worker) and get the same status,
// and a transition is recognised by comparing with the status the object already holds.
package kube

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The reasons of the state conditions (spec 6): each names the state.
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
func ObserveDevice(kind obsv1.Kind, name string, props []indi.Property) DeviceObservation {
	ps := propertySet{}
	for _, p := range props {
		ps[p.Name] = p
	}
	obs := DeviceObservation{Properties: StatusProperties(props)}
	conn, ok := ps["CONNECTION"]
	obs.Connected = ok && conn.SwitchOn("CONNECT") && conn.State != indi.Busy
	if !obs.Connected {
		return obs
	}
	label := string(kind) + " " + name
	r := readings{values: map[string]string{}, text: map[string]string{}}
	switch kind {
	case obsv1.KindDome:
		park := parkState.of(ps["DOME_PARK"], ps.has("DOME_PARK"))
		shutter := shutterState.of(ps["DOME_SHUTTER"], ps.has("DOME_SHUTTER"))
		obs.Conditions = []obsv1.Condition{park.condition(obsv1.ConditionParked, label), shutter.condition(obsv1.ConditionOpen, label)}
		if v, ok := ps.number("ABS_DOME_POSITION", "DOME_ABSOLUTE_POSITION"); ok {
			r.set(obsv1.ReadingAzimuth, decimal(v, 2), degrees(v))
		}
		r.setState(obsv1.ReadingShutter, shutter)
		r.setState(obsv1.ReadingPark, park)
	case obsv1.KindMount:
		park := parkState.of(ps["TELESCOPE_PARK"], ps.has("TELESCOPE_PARK"))
		obs.Conditions = []obsv1.Condition{park.condition(obsv1.ConditionParked, label)}
		if ra, ok := ps.number("EQUATORIAL_EOD_COORD", "RA"); ok {
			r.set(obsv1.ReadingRA, decimal(ra, 6), hms(ra))
		}
		if dec, ok := ps.number("EQUATORIAL_EOD_COORD", "DEC"); ok {
			r.set(obsv1.ReadingDec, decimal(dec, 5), dms(dec))
		}
		if s := mountState(ps, park); s != "" {
			r.set(obsv1.ReadingState, s, s)
		}
	case obsv1.KindDustCap:
		cover := coverState.of(ps["CAP_PARK"], ps.has("CAP_PARK"))
		obs.Conditions = []obsv1.Condition{cover.condition(obsv1.ConditionOpen, label)}
		r.setState(obsv1.ReadingCover, cover)
	case obsv1.KindFlatPanel:
		light := lightState.of(ps["FLAT_LIGHT_CONTROL"], ps.has("FLAT_LIGHT_CONTROL"))
		obs.Conditions = []obsv1.Condition{light.condition(obsv1.ConditionLit, label)}
		r.setState(obsv1.ReadingLight, light)
		if p, ok := ps["FLAT_LIGHT_INTENSITY"]; ok {
			if e, ok := p.Element("FLAT_LIGHT_INTENSITY_VALUE"); ok && p.Type == indi.Number {
				text := decimal(e.Number, 2)
				if e.Max > e.Min {
					text += "/" + decimal(e.Max, 2)
				}
				r.set(obsv1.ReadingBrightness, decimal(e.Number, 2), text)
			}
		}
	case obsv1.KindCamera:
		obs.Conditions = []obsv1.Condition{cameraCooling(ps, label)}
		if v, ok := ps.number("CCD_TEMPERATURE", "CCD_TEMPERATURE_VALUE"); ok {
			r.set(obsv1.ReadingTemperature, decimal(v, 2), celsius(v))
		}
		if p, ok := ps["CCD_COOLER"]; ok && p.Type == indi.Switch {
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
			case indi.Busy:
				r.set(obsv1.ReadingExposure, decimal(left, 2), decimal(left, 1)+" s left")
			case indi.Alert:
				r.set(obsv1.ReadingExposure, "0", "Failed")
			default:
				r.set(obsv1.ReadingExposure, "0", "Idle")
			}
		}
	case obsv1.KindFilterWheel:
		if v, ok := ps.number("FILTER_SLOT", "FILTER_SLOT_VALUE"); ok {
			slot := int(math.Round(v))
			n := strconv.Itoa(slot)
			text := n
			if ps["FILTER_SLOT"].State == indi.Busy {
				text = "moving to " + n
			}
			r.set(obsv1.ReadingSlot, n, text)
			if f, ok := ps.text("FILTER_NAME", "FILTER_SLOT_NAME_"+n); ok {
				r.set(obsv1.ReadingFilter, f, f)
			}
		}
	case obsv1.KindFocuser:
		if v, ok := ps.number("ABS_FOCUS_POSITION", "FOCUS_ABSOLUTE_POSITION"); ok {
			r.set(obsv1.ReadingPosition, decimal(v, 0), decimal(v, 0)+" steps")
		}
	case obsv1.KindRotator:
		if v, ok := ps.number("ABS_ROTATOR_ANGLE", "ANGLE"); ok {
			r.set(obsv1.ReadingAngle, decimal(v, 2), degrees(v))
		}
	case obsv1.KindWeatherStation:
		safe, verdict := weatherSafety(ps, label)
		obs.Conditions = []obsv1.Condition{safe}
		if verdict != "" {
			r.set(obsv1.ReadingSafety, verdict, verdict)
		}
		if p, ok := ps["WEATHER_PARAMETERS"]; ok && p.Type == indi.Number {
			for _, e := range p.Elements {
				r.set(weatherKey(e.Name), decimal(e.Number, 2), withUnit(decimal(e.Number, 1), unitOf(e.Label)))
			}
		}
	case obsv1.KindSkyQualityMeter:
		if v, ok := ps.number("SKY_QUALITY", "SKY_BRIGHTNESS"); ok {
			r.set(obsv1.ReadingBrightness, decimal(v, 2), strconv.FormatFloat(v, 'f', 2, 64)+" mag/arcsec²")
		}
	case obsv1.KindSwitch:
		switchReadings(ps, r)
	case obsv1.KindReceiver:
		if v, ok := ps.number("RECEIVER_SETTINGS", "RECEIVER_FREQUENCY"); ok {
			r.set(obsv1.ReadingFrequency, decimal(v, 6), strconv.FormatFloat(v, 'f', 3, 64)+" MHz")
		}
	case obsv1.KindGPS:
		gpsReadings(ps, r)
	}
	if len(r.values) > 0 {
		obs.Readings, obs.Display = r.values, r.text
	}
	return obs
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
func StatusProperties(props []indi.Property) []obsv1.Property {
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
			if p.Type == indi.BLOB {
				v = ""
			}
			sp.Elements = append(sp.Elements, obsv1.PropertyElement{Name: e.Name, Label: e.Label, Value: v})
		}
		out = append(out, sp)
	}
	return out
}

func findCondition(conds []obsv1.Condition, typ string) *obsv1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// WithoutConditions is conds without the conditions of the given types. The input is not
// changed.
func WithoutConditions(conds []obsv1.Condition, types ...string) []obsv1.Condition {
	var out []obsv1.Condition
	for _, c := range conds {
		drop := false
		for _, t := range types {
			drop = drop || c.Type == t
		}
		if !drop {
			out = append(out, c)
		}
	}
	return out
}

type propertySet map[string]indi.Property

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

// twoStates describes a switch vector with one element for each of two states, such as
// DOME_PARK's PARK (the condition holds) and UNPARK (it does not).
type twoStates struct {
	yes, no             string // element names
	yesReason, noReason string
	yesWord, noWord     string // "parked", "unparked"
	toYes, toNo         string // while Busy: "parking", "unparking"
}

var (
	parkState    = twoStates{"PARK", "UNPARK", ReasonParked, ReasonUnparked, "parked", "unparked", "parking", "unparking"}
	shutterState = twoStates{"SHUTTER_OPEN", "SHUTTER_CLOSE", ReasonOpen, ReasonClosed, "open", "closed", "opening", "closing"}
	// CAP_PARK: a parked cap covers the tube, so UNPARK is open.
	coverState = twoStates{"UNPARK", "PARK", ReasonOpen, ReasonClosed, "open", "closed", "opening", "closing"}
	lightState = twoStates{"FLAT_LIGHT_ON", "FLAT_LIGHT_OFF", ReasonLit, ReasonDark, "lit", "dark", "lighting up", "going dark"}
)

// twoState is what a two-state vector says now.
type twoState struct {
	def      twoStates
	prop     string
	reported bool
	moving   bool
	yes, no  bool
}

func (d twoStates) of(p indi.Property, ok bool) twoState {
	s := twoState{def: d, prop: p.Name, reported: ok && p.Type == indi.Switch}
	if !s.reported {
		return s
	}
	s.moving = p.State == indi.Busy
	s.yes, s.no = p.SwitchOn(d.yes), p.SwitchOn(d.no)
	return s
}

// condition is the state condition of type typ this state gives the device label.
func (s twoState) condition(typ, label string) obsv1.Condition {
	c := obsv1.Condition{Type: typ, Status: metav1.ConditionUnknown}
	switch {
	case !s.reported:
		c.Reason, c.Message = ReasonNotReported, label+" does not report whether it is "+s.def.yesWord
	case s.moving:
		c.Reason, c.Message = ReasonMoving, label+" is "+s.word()
	case s.yes:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, s.def.yesReason, label+" is "+s.def.yesWord
	case s.no:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, s.def.noReason, label+" is "+s.def.noWord
	default:
		c.Reason, c.Message = ReasonNotReported, label+" reports neither "+s.def.yes+" nor "+s.def.no
	}
	return c
}

// word is the state in a word: "parked", "parking", or "" when it is not known.
func (s twoState) word() string {
	switch {
	case !s.reported:
		return ""
	case s.moving && s.yes:
		return s.def.toYes
	case s.moving && s.no:
		return s.def.toNo
	case s.moving:
		return "moving"
	case s.yes:
		return s.def.yesWord
	case s.no:
		return s.def.noWord
	}
	return ""
}

func capitalized(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

type readings struct{ values, text map[string]string }

func (r readings) set(key, value, text string) {
	r.values[key] = value
	r.text[key] = text
}

func (r readings) setState(key string, s twoState) {
	if w := capitalized(s.word()); w != "" {
		r.set(key, w, w)
	}
}

// mountState is a mount's state in a word: Parked, Parking, Unparking, Slewing, Tracking,
// Idle, or Error. libindi reports EQUATORIAL_EOD_COORD Busy while slewing and Ok while
// tracking.
func mountState(ps propertySet, park twoState) string {
	eq, hasEq := ps["EQUATORIAL_EOD_COORD"]
	switch {
	case park.moving || park.yes:
		return capitalized(park.word())
	case hasEq && eq.State == indi.Busy:
		return "Slewing"
	case hasEq && eq.State == indi.Alert:
		return "Error"
	case ps["TELESCOPE_TRACK_STATE"].SwitchOn("TRACK_ON") || hasEq && eq.State == indi.Ok:
		return "Tracking"
	case hasEq:
		return "Idle"
	}
	return ""
}

// cameraCooling is the Cooling condition: the cooler switch when the camera has one; else a
// temperature on its way to a set point (CCD_TEMPERATURE Busy) means cooling, and anything
// else is not known. libindi cameras keep CCD_COOLER Busy for as long as the cooler works, so
// only a cooler that is Busy while it is off is on its way somewhere.
func cameraCooling(ps propertySet, label string) obsv1.Condition {
	c := obsv1.Condition{Type: obsv1.ConditionCooling, Status: metav1.ConditionUnknown}
	cooler, hasCooler := ps["CCD_COOLER"]
	temp, hasTemp := ps["CCD_TEMPERATURE"]
	switch {
	case hasCooler && cooler.SwitchOn("COOLER_ON"):
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonCooling, label+" is cooling"
	case hasCooler && cooler.State == indi.Busy:
		c.Reason, c.Message = ReasonMoving, label+" is switching its cooler off"
	case hasCooler && cooler.SwitchOn("COOLER_OFF"):
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonCoolerOff, label+" has its cooler off"
	case hasTemp && temp.State == indi.Busy:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonCooling, label+" is cooling"
	default:
		c.Reason, c.Message = ReasonNotReported, label+" does not report a cooler"
	}
	return c
}

// weatherSafety is the Safe condition and the verdict, from WEATHER_STATUS: the worst of the
// vector's state and its lights, where Idle and Ok are safe, Busy a warning and Alert a danger
// (what libindi's weather drivers send for a parameter near or past its limits).
func weatherSafety(ps propertySet, label string) (obsv1.Condition, string) {
	c := obsv1.Condition{Type: obsv1.ConditionSafe, Status: metav1.ConditionUnknown}
	p, ok := ps["WEATHER_STATUS"]
	if !ok {
		c.Reason, c.Message = ReasonNotReported, label+" does not report WEATHER_STATUS"
		return c, ""
	}
	worst := p.State
	var busy, alert []string
	for _, e := range p.Elements {
		name := strings.TrimSpace(strings.TrimSuffix(e.Label, "("+unitOf(e.Label)+")"))
		if name == "" {
			name = e.Name
		}
		switch indi.State(strings.TrimSpace(e.Value)) {
		case indi.Busy:
			busy = append(busy, name)
			if worst != indi.Alert {
				worst = indi.Busy
			}
		case indi.Alert:
			alert = append(alert, name)
			worst = indi.Alert
		}
	}
	switch worst {
	case indi.Alert:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonDanger, label+" reports danger"+listed(alert)
		return c, SafetyDanger
	case indi.Busy:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonWarning, label+" reports a warning"+listed(busy)
		return c, SafetyWarning
	}
	c.Status, c.Reason, c.Message = metav1.ConditionTrue, ReasonSafe, label+" reports safe weather"
	return c, SafetySafe
}

func listed(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return ": " + strings.Join(names, ", ")
}

// weatherKey is the readings key of a weather parameter: WEATHER_WIND_SPEED is windSpeed.
func weatherKey(element string) string {
	parts := strings.Split(strings.ToLower(strings.TrimPrefix(element, "WEATHER_")), "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = capitalized(parts[i])
	}
	return strings.Join(parts, "")
}

// unitOf is the unit a label names in parentheses at its end: "Wind (kph)" is kph.
func unitOf(label string) string {
	label = strings.TrimSpace(label)
	open := strings.LastIndex(label, "(")
	if open < 0 || !strings.HasSuffix(label, ")") {
		return ""
	}
	return label[open+1 : len(label)-1]
}

func withUnit(v, unit string) string {
	switch unit {
	case "":
		return v
	case "C":
		return v + " °C"
	case "F":
		return v + " °F"
	case "%":
		return v + "%"
	}
	return v + " " + unit
}

// switchReadings: outputs is how many DIGITAL_OUTPUT_<n> there are, on which of them are
// on, inputs the DIGITAL_INPUT_<n> states.
func switchReadings(ps propertySet, r readings) {
	var outputs, inputs []int
	for name := range ps {
		if n, ok := numbered(name, "DIGITAL_OUTPUT_"); ok {
			outputs = append(outputs, n)
		} else if n, ok := numbered(name, "DIGITAL_INPUT_"); ok {
			inputs = append(inputs, n)
		}
	}
	if len(outputs) > 0 {
		sort.Ints(outputs)
		var on []string
		for _, n := range outputs {
			if ps["DIGITAL_OUTPUT_"+strconv.Itoa(n)].SwitchOn("ON") {
				on = append(on, strconv.Itoa(n))
			}
		}
		r.set(obsv1.ReadingOutputs, strconv.Itoa(len(outputs)), strconv.Itoa(len(outputs)))
		text := "none"
		if len(on) > 0 {
			text = strings.Join(on, ", ")
		}
		r.set(obsv1.ReadingOn, strings.Join(on, ","), text)
	}
	if len(inputs) > 0 {
		sort.Ints(inputs)
		var vals, text []string
		for _, n := range inputs {
			v := "Off"
			if ps["DIGITAL_INPUT_"+strconv.Itoa(n)].SwitchOn("ON") {
				v = "On"
			}
			vals = append(vals, strconv.Itoa(n)+"="+v)
			text = append(text, strconv.Itoa(n)+" "+strings.ToLower(v))
		}
		r.set(obsv1.ReadingInputs, strings.Join(vals, ","), strings.Join(text, ", "))
	}
}

func numbered(name, prefix string) (int, bool) {
	if !strings.HasPrefix(name, prefix) {
		return 0, false
	}
	n, err := strconv.Atoi(name[len(prefix):])
	return n, err == nil && n > 0
}

// gpsReadings: fix from the state of GEOGRAPHIC_COORD (Ok once the receiver has a fix), time
// from TIME_UTC, position as latitude, longitude (east positive, -180..180) and elevation.
func gpsReadings(ps propertySet, r readings) {
	if geo, ok := ps["GEOGRAPHIC_COORD"]; ok {
		fix := "No fix"
		switch geo.State {
		case indi.Ok:
			fix = "Fix"
		case indi.Busy:
			fix = "Searching"
		}
		r.set(obsv1.ReadingFix, fix, fix)
		lat, ok1 := geo.Number("LAT")
		lon, ok2 := geo.Number("LONG")
		elev, ok3 := geo.Number("ELEV")
		if ok1 && ok2 && ok3 {
			if lon > 180 {
				lon -= 360
			}
			ns, ew := "N", "E"
			if lat < 0 {
				ns = "S"
			}
			if lon < 0 {
				ew = "W"
			}
			r.set(obsv1.ReadingPosition, decimal(lat, 6)+","+decimal(lon, 6)+","+decimal(elev, 1),
				fmt.Sprintf("%.4f° %s, %.4f° %s, %s m", math.Abs(lat), ns, math.Abs(lon), ew, decimal(elev, 0)))
		}
	}
	if t, ok := ps.text("TIME_UTC", "UTC"); ok && t != "" {
		r.set(obsv1.ReadingTime, t, strings.Replace(t, "T", " ", 1)+" UTC")
	}
}

// decimal writes v rounded to at most places decimals, without trailing zeros.
func decimal(v float64, places int) string {
	p := math.Pow(10, float64(places))
	r := math.Round(v*p) / p
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func degrees(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "°" }

func celsius(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + " °C" }

// hms writes hours as 05h34m32s.
func hms(hours float64) string {
	s := int(math.Round(math.Mod(hours, 24) * 3600))
	if s < 0 {
		s += 24 * 3600
	}
	s %= 24 * 3600
	return fmt.Sprintf("%02dh%02dm%02ds", s/3600, s/60%60, s%60)
}

// dms writes degrees as +22°00'52".
func dms(deg float64) string {
	sign := "+"
	if deg < 0 {
		sign = "-"
	}
	s := int(math.Round(math.Abs(deg) * 3600))
	return fmt.Sprintf("%s%02d°%02d'%02d\"", sign, s/3600, s/60%60, s%60)
}
