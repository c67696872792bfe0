// Properties are INDI's unit of state: a named vector of numbers, texts, switches, lights or
// BLOBs on one device, with a state (Idle, Ok, Busy, Alert), a permission and, for switches, a
// rule. The operator shows them in status.properties, derives readings and conditions from them,
// and writes to them to move hardware, so these types are plain values that are safe to copy
// and compare.

package prop

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is the kind of a property's elements.
type Type uint8

// The INDI property types.
const (
	Number Type = iota + 1
	Text
	Switch
	Light
	BLOB
)

func (t Type) String() string {
	switch t {
	case Number:
		return "Number"
	case Text:
		return "Text"
	case Switch:
		return "Switch"
	case Light:
		return "Light"
	case BLOB:
		return "BLOB"
	}
	return "Type(" + strconv.Itoa(int(t)) + ")"
}

// State is a property's state, and a light's value. Busy means a change is under way; Ok and
// Idle mean settled; Alert means the driver failed or refused.
type State string

// The INDI property states.
const (
	Idle  State = "Idle"
	Ok    State = "Ok"
	Busy  State = "Busy"
	Alert State = "Alert"
)

func ParseState(s string) (State, bool) {
	switch State(s) {
	case Idle, Ok, Busy, Alert:
		return State(s), true
	}
	return "", false
}

// Settled reports whether the state is Ok or Idle.
func (s State) Settled() bool { return s == Ok || s == Idle }

// Perm says whether clients may read and write a property.
type Perm string

// The INDI permissions.
const (
	ReadOnly  Perm = "ro"
	WriteOnly Perm = "wo"
	ReadWrite Perm = "rw"
)

// Rule says how many switches of a vector may be On.
type Rule string

// The INDI switch rules.
const (
	OneOfMany Rule = "OneOfMany" // exactly one On
	AtMostOne Rule = "AtMostOne" // none or one On
	AnyOfMany Rule = "AnyOfMany" // any combination
)

// Property is one INDI vector as last defined and updated by its driver.
type Property struct {
	Device, Name string
	Label, Group string
	Type         Type
	Perm         Perm
	Rule         Rule // switches only
	State        State
	Timeout      float64 // seconds the driver expects a change to take at most
	Timestamp    string  // as sent, e.g. 2026-11-29T20:24:37
	Message      string  // the message attribute of the last definition or update
	Elements     []Element
}

// Element is one member of a vector. Value holds the text as sent for every type ("On"/"Off"
// for switches, a State for lights, nothing for BLOBs); Number holds the parsed value of a
// number element.
type Element struct {
	Name, Label string
	Value       string
	Number      float64
	// Number definitions only.
	Format         string
	Min, Max, Step float64
}

// On reports whether a switch element is On.
func (e Element) On() bool { return e.Value == "On" }

// ID is "device.name", the way INDI tools name a property.
func (p Property) ID() string { return p.Device + "." + p.Name }

// Element returns the named element.
func (p Property) Element(name string) (Element, bool) {
	for _, e := range p.Elements {
		if e.Name == name {
			return e, true
		}
	}
	return Element{}, false
}

// Number returns the value of a number element.
func (p Property) Number(name string) (float64, bool) {
	e, ok := p.Element(name)
	return e.Number, ok && p.Type == Number
}

// Text returns the value of a text element.
func (p Property) Text(name string) (string, bool) {
	e, ok := p.Element(name)
	return e.Value, ok && p.Type == Text
}

// SwitchOn reports whether the named switch is On; false if there is no such switch.
func (p Property) SwitchOn(name string) bool {
	e, ok := p.Element(name)
	return ok && p.Type == Switch && e.On()
}

// OnSwitches lists the switches that are On.
func (p Property) OnSwitches() []string {
	var on []string
	for _, e := range p.Elements {
		if e.On() {
			on = append(on, e.Name)
		}
	}
	return on
}

// Summary is a short, stable rendering for errors and logs: "Busy PARK=On UNPARK=Off".
func (p Property) Summary() string {
	var b strings.Builder
	b.WriteString(string(p.State))
	for _, e := range p.Elements {
		b.WriteByte(' ')
		b.WriteString(e.Name)
		b.WriteByte('=')
		if p.Type == Number {
			b.WriteString(strconv.FormatFloat(e.Number, 'g', 6, 64))
		} else {
			b.WriteString(e.Value)
		}
	}
	return b.String()
}

// Clone copies the property with its own Elements, so changing the copy never changes a
// stored snapshot.
func (p Property) Clone() Property {
	p.Elements = append([]Element(nil), p.Elements...)
	return p
}

// ParseNumber reads an INDI number: a decimal, or sexagesimal "-12:30:15.5" (also with spaces
// or semicolons between the parts), as drivers may send either.
func ParseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, nil
	}
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ' ' || r == ';' })
	if len(fields) < 2 || len(fields) > 3 {
		return math.NaN(), fmt.Errorf("not a number: %q", s)
	}
	neg := strings.HasPrefix(fields[0], "-")
	var v float64
	for i, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || (i > 0 && (x < 0 || strings.HasPrefix(f, "+"))) {
			return math.NaN(), fmt.Errorf("not a number: %q", s)
		}
		if i == 0 {
			x = math.Abs(x)
		}
		v += x / math.Pow(60, float64(i))
	}
	if neg {
		v = -v
	}
	return v, nil
}

// FormatNumber writes a number the way drivers parse it: plain decimal, no exponent.
func FormatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
