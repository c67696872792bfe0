// The codec sits between wire Messages and Properties: it checks a vector's attributes and
// values against INDI 1.7 (states, permissions, rules, On/Off, numbers) before anything reaches
// the store, and it writes the XML we send. The writer covers the server's side too (def, set,
// message, delProperty) so a fake server in tests speaks exactly what we parse.

package indi

import (
	"errors"
	"fmt"
	"liken.sh/runner/indi/prop"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Verb says what a vector message does: def defines a property, set updates it (driver to
// client), new asks for a change (client to driver).
type Verb string

// The vector verbs.
const (
	Def Verb = "def"
	Set Verb = "set"
	New Verb = "new"
)

var typeNames = map[string]prop.Type{
	"Text": prop.Text, "Number": prop.Number, "Switch": prop.Switch, "Light": prop.Light, "BLOB": prop.BLOB,
}

// IsVector reports whether a message is a def, set or new vector.
func IsVector(m *Message) bool {
	_, _, ok := vectorTag(m.Tag)
	return ok
}

func vectorTag(tag string) (Verb, prop.Type, bool) {
	if len(tag) < 9 || !strings.HasSuffix(tag, "Vector") {
		return "", 0, false
	}
	verb := Verb(tag[:3])
	if verb != Def && verb != Set && verb != New {
		return "", 0, false
	}
	t, ok := typeNames[tag[3:len(tag)-len("Vector")]]
	return verb, t, ok
}

// DecodeVector checks a def, set or new vector and returns it as a Property. For set and new,
// State is "" when the message leaves it unchanged, and only the elements sent are listed.
// BLOB data is never kept.
func DecodeVector(m *Message) (Verb, prop.Property, error) {
	verb, typ, ok := vectorTag(m.Tag)
	if !ok {
		return "", prop.Property{}, fmt.Errorf("<%s> is not a property vector", m.Tag)
	}
	p := prop.Property{Type: typ}
	// The error names the vector as far as its attributes were read.
	bad := func(err error) (Verb, prop.Property, error) {
		return "", prop.Property{}, fmt.Errorf("<%s device=%q name=%q>: %s", m.Tag, p.Device, p.Name, err)
	}
	if err := decodeVectorAttrs(&p, m.Attrs); err != nil {
		return bad(err)
	}
	if p.Device == "" || p.Name == "" {
		return bad(errors.New("device and name are required"))
	}
	if verb == Def {
		definitionDefaults(&p)
	}
	p.Elements = make([]prop.Element, 0, len(m.Children))
	for i := range m.Children {
		e, err := decodeElement(typ, &m.Children[i], p.Elements)
		if err != nil {
			return bad(err)
		}
		p.Elements = append(p.Elements, e)
	}
	return verb, p, nil
}

// decodeVectorAttrs sets p's fields from a vector's attributes, checking the ones INDI
// restricts to a set of words or a number.
func decodeVectorAttrs(p *prop.Property, attrs []Attr) error {
	for _, a := range attrs {
		switch a.Name {
		case "device":
			p.Device = a.Value
		case "name":
			p.Name = a.Value
		case "label":
			p.Label = a.Value
		case "group":
			p.Group = a.Value
		case "state":
			s, ok := prop.ParseState(a.Value)
			if !ok {
				return fmt.Errorf("bad state %q", a.Value)
			}
			p.State = s
		case "perm":
			switch prop.Perm(a.Value) {
			case prop.ReadOnly, prop.WriteOnly, prop.ReadWrite:
				p.Perm = prop.Perm(a.Value)
			default:
				return fmt.Errorf("bad perm %q", a.Value)
			}
		case "rule":
			switch prop.Rule(a.Value) {
			case prop.OneOfMany, prop.AtMostOne, prop.AnyOfMany:
				p.Rule = prop.Rule(a.Value)
			default:
				return fmt.Errorf("bad rule %q", a.Value)
			}
		case "timeout":
			v, err := strconv.ParseFloat(strings.TrimSpace(a.Value), 64)
			if err != nil {
				return fmt.Errorf("bad timeout %q", a.Value)
			}
			p.Timeout = v
		case "timestamp":
			p.Timestamp = a.Value
		case "message":
			p.Message = a.Value
		}
	}
	return nil
}

// definitionDefaults fills in what a definition may leave out.
func definitionDefaults(p *prop.Property) {
	if p.State == "" {
		p.State = prop.Idle
	}
	if p.Perm == "" {
		p.Perm = prop.ReadOnly // lights have no perm; clients never write them
	}
	if p.Type == prop.Switch && p.Rule == "" {
		p.Rule = prop.AnyOfMany
	}
}

// decodeElement checks one element of a vector of type typ: a name not among the elements
// before it, numbers that parse, switches On or Off, lights a state.
func decodeElement(typ prop.Type, c *Child, before []prop.Element) (prop.Element, error) {
	e, err := decodeElementAttrs(c.Attrs)
	if err != nil {
		return prop.Element{}, err
	}
	if e.Name == "" {
		return prop.Element{}, errors.New("an element has no name")
	}
	for _, seen := range before {
		if seen.Name == e.Name {
			return prop.Element{}, fmt.Errorf("element %q appears twice", e.Name)
		}
	}
	switch typ {
	case prop.Number:
		v, err := prop.ParseNumber(c.Text)
		if err != nil {
			return prop.Element{}, fmt.Errorf("element %q: %v", e.Name, err)
		}
		e.Value, e.Number = c.Text, v
	case prop.Switch:
		if c.Text != "On" && c.Text != "Off" {
			return prop.Element{}, fmt.Errorf("switch %q is %q, not On or Off", e.Name, c.Text)
		}
		e.Value = c.Text
	case prop.Light:
		s, ok := prop.ParseState(c.Text)
		if !ok {
			return prop.Element{}, fmt.Errorf("light %q is %q, not a state", e.Name, c.Text)
		}
		e.Value = string(s)
	case prop.Text:
		e.Value = c.Text
	case prop.BLOB: // never kept: we do not enable BLOBs, and status omits them
	}
	return e, nil
}

// decodeElementAttrs reads an element's name, label, format and number bounds.
func decodeElementAttrs(attrs []Attr) (prop.Element, error) {
	e := prop.Element{}
	for _, a := range attrs {
		switch a.Name {
		case "name":
			e.Name = a.Value
		case "label":
			e.Label = a.Value
		case "format":
			e.Format = a.Value
		case "min", "max", "step":
			v, err := prop.ParseNumber(a.Value)
			if err != nil {
				return prop.Element{}, fmt.Errorf("element %q: bad %s %q", e.Name, a.Name, a.Value)
			}
			switch a.Name {
			case "min":
				e.Min = v
			case "max":
				e.Max = v
			default:
				e.Step = v
			}
		}
	}
	return e, nil
}

// appendEscaped writes s as XML character data or attribute text. Invalid UTF-8 and control
// characters XML cannot carry become U+FFFD, so what we write always parses.
func appendEscaped(b []byte, s string) []byte {
	for _, r := range s {
		switch {
		case r == '<':
			b = append(b, "&lt;"...)
		case r == '>':
			b = append(b, "&gt;"...)
		case r == '&':
			b = append(b, "&amp;"...)
		case r == '"':
			b = append(b, "&quot;"...)
		case r == '\'':
			b = append(b, "&apos;"...)
		case r == '\n' || r == '\t' || r == '\r':
			b = append(b, "&#"...)
			b = strconv.AppendInt(b, int64(r), 10)
			b = append(b, ';')
		case r == utf8.RuneError || !xmlChar(r):
			b = append(b, "\uFFFD"...)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

func appendAttr(b []byte, name, value string) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendEscaped(b, value)
	return append(b, '"')
}

func appendNumberAttr(b []byte, name string, v float64) []byte {
	return appendAttr(b, name, prop.FormatNumber(v))
}

// AppendVector writes p as a def, set or new vector. For new, only what a driver reads is
// written (device, name, elements and values); for set, a State of "" is left out.
func AppendVector(b []byte, verb Verb, p prop.Property) []byte {
	tag := string(verb) + p.Type.String() + "Vector"
	child := "one" + p.Type.String()
	if verb == Def {
		child = "def" + p.Type.String()
	}
	b = append(b, '<')
	b = append(b, tag...)
	b = appendAttr(b, "device", p.Device)
	b = appendAttr(b, "name", p.Name)
	if verb == Def {
		b = appendAttr(b, "label", p.Label)
		b = appendAttr(b, "group", p.Group)
	}
	if verb != New && p.State != "" {
		b = appendAttr(b, "state", string(p.State))
	}
	if verb == Def && p.Type != prop.Light {
		b = appendAttr(b, "perm", string(p.Perm))
	}
	if verb == Def && p.Type == prop.Switch {
		b = appendAttr(b, "rule", string(p.Rule))
	}
	if verb != New {
		b = appendNumberAttr(b, "timeout", p.Timeout)
		if p.Timestamp != "" {
			b = appendAttr(b, "timestamp", p.Timestamp)
		}
		if p.Message != "" {
			b = appendAttr(b, "message", p.Message)
		}
	}
	b = append(b, ">\n"...)
	for _, e := range p.Elements {
		b = append(b, "  <"...)
		b = append(b, child...)
		b = appendAttr(b, "name", e.Name)
		if verb == Def {
			b = appendAttr(b, "label", e.Label)
			if p.Type == prop.Number {
				b = appendAttr(b, "format", e.Format)
				b = appendNumberAttr(b, "min", e.Min)
				b = appendNumberAttr(b, "max", e.Max)
				b = appendNumberAttr(b, "step", e.Step)
			}
		}
		b = append(b, '>')
		if p.Type == prop.Number {
			b = append(b, prop.FormatNumber(e.Number)...)
		} else {
			b = appendEscaped(b, e.Value)
		}
		b = append(b, "</"...)
		b = append(b, child...)
		b = append(b, ">\n"...)
	}
	b = append(b, "</"...)
	b = append(b, tag...)
	return append(b, ">\n"...)
}

// AppendGetProperties asks for definitions: of everything, one device, or one property.
func AppendGetProperties(b []byte, device, name string) []byte {
	b = append(b, `<getProperties version="1.7"`...)
	if device != "" {
		b = appendAttr(b, "device", device)
	}
	if name != "" {
		b = appendAttr(b, "name", name)
	}
	return append(b, "/>\n"...)
}

// AppendMessage writes a driver message; device may be "" for a server-wide one.
func AppendMessage(b []byte, device, timestamp, text string) []byte {
	b = append(b, "<message"...)
	if device != "" {
		b = appendAttr(b, "device", device)
	}
	if timestamp != "" {
		b = appendAttr(b, "timestamp", timestamp)
	}
	b = appendAttr(b, "message", text)
	return append(b, "/>\n"...)
}

// AppendDelProperty removes one property, or with name "" the whole device.
func AppendDelProperty(b []byte, device, name string) []byte {
	b = append(b, "<delProperty"...)
	b = appendAttr(b, "device", device)
	if name != "" {
		b = appendAttr(b, "name", name)
	}
	return append(b, "/>\n"...)
}
