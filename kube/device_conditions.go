// The state conditions of a device, from its INDI switch and light vectors: a two-state
// switch vector (a park, a shutter, a cap, a light) read as a condition and a word, a mount's
// state, a camera's cooling and a weather station's safety. Each says NotReported or Moving
// rather than guess when the driver does not say, or is on its way.
package kube

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/prop"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

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

func (d twoStates) of(p prop.Property, ok bool) twoState {
	s := twoState{def: d, prop: p.Name, reported: ok && p.Type == prop.Switch}
	if !s.reported {
		return s
	}
	s.moving = p.State == prop.Busy
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

// mountState is a mount's state in a word: Parked, Parking, Unparking, Slewing, Tracking,
// Idle, or Error. libindi reports EQUATORIAL_EOD_COORD Busy while slewing and Ok while
// tracking.
func mountState(ps propertySet, park twoState) string {
	eq, hasEq := ps["EQUATORIAL_EOD_COORD"]
	switch {
	case park.moving || park.yes:
		return capitalized(park.word())
	case hasEq && eq.State == prop.Busy:
		return "Slewing"
	case hasEq && eq.State == prop.Alert:
		return "Error"
	case ps["TELESCOPE_TRACK_STATE"].SwitchOn("TRACK_ON") || hasEq && eq.State == prop.Ok:
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
	case hasCooler && cooler.State == prop.Busy:
		c.Reason, c.Message = ReasonMoving, label+" is switching its cooler off"
	case hasCooler && cooler.SwitchOn("COOLER_OFF"):
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonCoolerOff, label+" has its cooler off"
	case hasTemp && temp.State == prop.Busy:
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
		switch prop.State(strings.TrimSpace(e.Value)) {
		case prop.Busy:
			busy = append(busy, name)
			if worst != prop.Alert {
				worst = prop.Busy
			}
		case prop.Alert:
			alert = append(alert, name)
			worst = prop.Alert
		}
	}
	switch worst {
	case prop.Alert:
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, ReasonDanger, label+" reports danger"+listed(alert)
		return c, SafetyDanger
	case prop.Busy:
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
