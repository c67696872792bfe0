// Changes to a property: each Set is a target (the values wanted, how to tell they are
// reached, and how to build the vector that asks for them from the property as it is),
// checked against the property's type, permission and switch rule before anything is sent.
// change reads first and sends nothing when the target is already reached and settled, so
// calling a Set again is harmless; Press and Send always send.

package indi

import (
	"context"
	"fmt"
	"liken.sh/runner/indi/prop"
	"math"
	"slices"
	"strings"
)

// target describes a change to one property.
type target struct {
	device, name string
	typ          prop.Type
	want         string                   // for errors: "PARK=On"
	reached      func(prop.Property) bool // the values are where we want them
	// build returns the vector to send, made from the current property, or a *RequestError
	// when the change can never be valid.
	build func(prop.Property) (prop.Property, error)
	// done ends the wait; nil means reached and settled.
	done func(prop.Property) bool
}

// change brings a property to a target state: it reads the property first and sends nothing
// when the target is reached and settled; when the change is already under way (Busy towards
// the target) it only waits; otherwise it sends and waits. sent says whether it wrote.
func (c *Client) change(ctx context.Context, t target) (sent bool, p prop.Property, err error) {
	if err := c.ensureSynced(ctx, t.device); err != nil {
		return false, prop.Property{}, err
	}
	sub, cur, ok := c.store.subscribeReading(Filter{Device: t.device}, t.device, t.name)
	defer sub.Close()
	if !ok {
		return false, prop.Property{}, &MissingError{Device: t.device, Property: t.name}
	}
	if cur.Type != t.typ {
		return false, prop.Property{}, &RequestError{Device: t.device, Property: t.name,
			Reason: fmt.Sprintf("it is a %s property, not %s", cur.Type, t.typ)}
	}
	nv, err := t.build(cur.Clone())
	if err != nil {
		return false, prop.Property{}, err
	}
	done := t.done
	if done == nil {
		done = func(p prop.Property) bool { return p.State.Settled() && t.reached(p) }
	}
	want := t.want + ", settled"
	if cur.Perm != prop.WriteOnly && t.reached(cur) { // a write-only property reads nothing true
		switch {
		case done(cur):
			return false, cur.Clone(), nil
		case cur.State == prop.Busy: // under way already
			p, err := c.await(ctx, sub, t.device, t.name, want, done)
			return false, p, err
		}
	}
	if cur.Perm == prop.ReadOnly {
		return false, prop.Property{}, &RequestError{Device: t.device, Property: t.name,
			Reason: "it is read-only"}
	}
	if err := c.write(AppendVector(nil, New, nv)); err != nil {
		return false, prop.Property{}, err
	}
	c.sent.Add(1)
	p, err = c.await(ctx, sub, t.device, t.name, want, done)
	return true, p, err
}

// SetSwitch sets switches of a vector and waits until it settles with them. Names not given
// keep their state, except that under OneOfMany and AtMostOne turning one switch On turns the
// others Off. The result must obey the vector's rule. Nothing is sent if the switches already
// are so and the vector is settled.
func (c *Client) SetSwitch(ctx context.Context, device, name string, states map[string]bool) (bool, error) {
	sent, _, err := c.change(ctx, c.switchTarget(device, name, states))
	return sent, err
}

func (c *Client) switchTarget(device, name string, states map[string]bool) target {
	var keys []string
	anyOn := false
	for k, v := range states {
		keys = append(keys, k+"="+onOff(v))
		anyOn = anyOn || v
	}
	slices.Sort(keys)
	invalid := func(format string, args ...any) (prop.Property, error) {
		return prop.Property{}, &RequestError{Device: device, Property: name,
			Reason: fmt.Sprintf(format, args...)}
	}
	return target{
		device: device, name: name, typ: prop.Switch, want: strings.Join(keys, " "),
		reached: func(p prop.Property) bool {
			for k, v := range states {
				e, ok := p.Element(k)
				if !ok || e.On() != v {
					return false
				}
			}
			return true
		},
		build: func(p prop.Property) (prop.Property, error) {
			for k := range states {
				if _, ok := p.Element(k); !ok {
					return invalid("it has no switch %s (it has %s)", k, elementNames(p))
				}
			}
			on := 0
			for i := range p.Elements {
				e := &p.Elements[i]
				if v, ok := states[e.Name]; ok {
					e.Value = onOff(v)
				} else if anyOn && p.Rule != prop.AnyOfMany {
					e.Value = "Off"
				}
				if e.On() {
					on++
				}
			}
			switch {
			case p.Rule == prop.OneOfMany && on != 1:
				return invalid("rule OneOfMany needs exactly one switch On, not %d", on)
			case p.Rule == prop.AtMostOne && on > 1:
				return invalid("rule AtMostOne allows at most one switch On, not %d", on)
			}
			return p, nil
		},
	}
}

func onOff(v bool) string {
	if v {
		return "On"
	}
	return "Off"
}

func elementNames(p prop.Property) string {
	names := make([]string, len(p.Elements))
	for i, e := range p.Elements {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}

// SetNumber sets numbers of a vector and waits until the driver settles it (any values: drivers
// may round). Elements not given keep their values. Nothing is sent if every given value is
// within tolerance of the current one and the vector is settled.
func (c *Client) SetNumber(ctx context.Context, device, name string, values map[string]float64,
	tolerance float64) (bool, error) {
	sent, _, err := c.change(ctx, c.numberTarget(device, name, values, tolerance))
	return sent, err
}

func (c *Client) numberTarget(device, name string, values map[string]float64, tolerance float64) target {
	var keys []string
	for k, v := range values {
		keys = append(keys, k+"="+prop.FormatNumber(v))
	}
	slices.Sort(keys)
	reached := func(p prop.Property) bool {
		for k, v := range values {
			e, ok := p.Element(k)
			if !ok || !(math.Abs(e.Number-v) <= tolerance) {
				return false
			}
		}
		return true
	}
	return target{
		device: device, name: name, typ: prop.Number, want: strings.Join(keys, " "),
		reached: reached,
		done:    func(p prop.Property) bool { return p.State.Settled() },
		build: func(p prop.Property) (prop.Property, error) {
			for k, v := range values {
				e, ok := p.Element(k)
				if !ok {
					return prop.Property{}, &RequestError{Device: device, Property: name,
						Reason: fmt.Sprintf("it has no number %s (it has %s)", k, elementNames(p))}
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return prop.Property{}, &RequestError{Device: device, Property: name,
						Reason: fmt.Sprintf("%s must be a finite number", k)}
				}
				if e.Max > e.Min && (v < e.Min || v > e.Max) {
					return prop.Property{}, &RequestError{Device: device, Property: name,
						Reason: fmt.Sprintf("%s=%s is outside %s..%s", k, prop.FormatNumber(v),
							prop.FormatNumber(e.Min), prop.FormatNumber(e.Max))}
				}
			}
			for i := range p.Elements {
				if v, ok := values[p.Elements[i].Name]; ok {
					p.Elements[i].Number = v
				}
			}
			return p, nil
		},
	}
}

// SetText sets texts of a vector and waits until the driver settles it. Elements not given keep
// their values. Nothing is sent if they already read so and the vector is settled.
func (c *Client) SetText(ctx context.Context, device, name string, values map[string]string) (bool, error) {
	sent, _, err := c.change(ctx, c.textTarget(device, name, values))
	return sent, err
}

func (c *Client) textTarget(device, name string, values map[string]string) target {
	var keys []string
	for k, v := range values {
		keys = append(keys, fmt.Sprintf("%s=%q", k, v))
	}
	slices.Sort(keys)
	return target{
		device: device, name: name, typ: prop.Text, want: strings.Join(keys, " "),
		reached: func(p prop.Property) bool {
			for k, v := range values {
				if e, ok := p.Element(k); !ok || e.Value != v {
					return false
				}
			}
			return true
		},
		done: func(p prop.Property) bool { return p.State.Settled() },
		build: func(p prop.Property) (prop.Property, error) {
			for k := range values {
				if _, ok := p.Element(k); !ok {
					return prop.Property{}, &RequestError{Device: device, Property: name,
						Reason: fmt.Sprintf("it has no text %s (it has %s)", k, elementNames(p))}
				}
			}
			for i := range p.Elements {
				if v, ok := values[p.Elements[i].Name]; ok {
					p.Elements[i].Value = v
				}
			}
			return p, nil
		},
	}
}

// Press turns one switch On as a command, like a button: ABORT, CONFIG_SAVE, PARK_CURRENT.
// Drivers turn such switches back Off, so it waits only for the vector to settle after
// sending; Alert fails. It always sends.
func (c *Client) Press(ctx context.Context, device, name, element string) error {
	t := c.switchTarget(device, name, map[string]bool{element: true})
	t.want = "settled after " + element
	t.reached = func(prop.Property) bool { return false }
	t.done = func(p prop.Property) bool { return p.State.Settled() }
	_, _, err := c.change(ctx, t)
	return err
}

// Send writes a new vector as is, without reading first or waiting: for one-shot commands
// such as starting an exposure. It checks only that the property exists and is writable.
func (c *Client) Send(ctx context.Context, p prop.Property) error {
	if err := c.ensureSynced(ctx, p.Device); err != nil {
		return err
	}
	cur, ok := c.store.property(p.Device, p.Name)
	if !ok {
		return &MissingError{Device: p.Device, Property: p.Name}
	}
	if cur.Perm == prop.ReadOnly {
		return &RequestError{Device: p.Device, Property: p.Name, Reason: "it is read-only"}
	}
	p.Type = cur.Type
	if err := c.write(AppendVector(nil, New, p)); err != nil {
		return err
	}
	c.sent.Add(1)
	return nil
}
