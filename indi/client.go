// The client holds one TCP connection to an indiserver: it asks for every property, keeps them
// in the store, and sends changes. Every change is a target: it is checked against the
// property's permission, type and switch rule before anything is written, then awaited in
// stream order, where Busy means moving, Ok or Idle means settled, and Alert fails with the
// driver's own message. Every wait takes a context, and a lost connection fails every pending
// wait at once with an error naming the server.

package indi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// writeTimeout bounds one write; a server that does not read for this long is gone.
const writeTimeout = 10 * time.Second

// alertGrace bounds how long an Alert without a message waits for the driver's explanation,
// which libindi sends as a separate <message> right after the vector.
const alertGrace = time.Second

// Client is a connection to one INDI server. Its methods are safe for concurrent use.
type Client struct {
	server string
	conn   net.Conn
	store  *store

	wmu  sync.Mutex
	sent atomic.Uint64

	mu      sync.Mutex
	synced  map[string]bool // devices whose definitions are known to be complete
	refused uint64
	lastRef error
}

// traffic is this process's INDI traffic, over every client: what a benchmark counts per
// reservation (Totals), since load changes its timings but not its counts.
var traffic struct{ connections, written, received atomic.Uint64 }

// Traffic counts a process's INDI work since it started.
type Traffic struct {
	Connections uint64 // clients made (Dial, NewClient)
	Written     uint64 // writes to servers: a request or a vector each, the opening pair once
	Received    uint64 // messages read from servers (definitions, updates, messages)
}

// Totals is this process's INDI traffic so far.
func Totals() Traffic {
	return Traffic{Connections: traffic.connections.Load(), Written: traffic.written.Load(), Received: traffic.received.Load()}
}

// Dial connects to an INDI server at host:port (7624 is INDI's port) and asks for every
// property. BLOBs stay off.
func Dial(ctx context.Context, addr string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &ConnError{Protocol: "indi", Server: addr, Err: err}
	}
	return NewClient(conn, addr, Limits{})
}

// NewClient runs a client over an established connection; server names it in errors.
func NewClient(conn net.Conn, server string, lim Limits) (*Client, error) {
	c := &Client{server: server, conn: conn, store: newStore(), synced: make(map[string]bool)}
	traffic.connections.Add(1)
	b := AppendGetProperties(nil, "", "")
	b = append(b, "<enableBLOB>Never</enableBLOB>\n"...)
	if err := c.write(b); err != nil {
		return nil, err
	}
	go c.read(NewReader(conn, lim))
	return c, nil
}

// Server is the address the client was dialled with.
func (c *Client) Server() string { return c.server }

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.store.done }

// Err is nil while the connection runs, and a *ConnError after.
func (c *Client) Err() error {
	select {
	case <-c.store.done:
		return c.store.err
	default:
		return nil
	}
}

// Close ends the connection. Pending waits fail with a ConnError wrapping ErrClosed.
func (c *Client) Close() error {
	c.fail(ErrClosed)
	return nil
}

// Sent counts the vectors this client has sent; a change that was already in place sends none.
func (c *Client) Sent() uint64 { return c.sent.Load() }

// Refused counts the messages from the server that were skipped as not INDI 1.7, and returns
// the last reason.
func (c *Client) Refused() (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused, c.lastRef
}

// Property returns a copy of a property as last defined and updated.
func (c *Client) Property(device, name string) (Property, bool) {
	p, ok := c.store.property(device, name)
	return p.clone(), ok
}

// Properties returns copies of a device's properties in the order the driver defined them.
func (c *Client) Properties(device string) []Property { return c.store.properties(device) }

// Devices lists the devices that have properties, sorted.
func (c *Client) Devices() []string { return c.store.deviceNames() }

// Subscribe delivers the changes f selects from now on; Close it when done.
func (c *Client) Subscribe(f Filter) *Subscription { return c.store.subscribe(f) }

func (c *Client) fail(err error) {
	c.store.close(&ConnError{Protocol: "indi", Server: c.server, Err: err})
	c.conn.Close()
}

func (c *Client) read(rd *Reader) {
	for {
		m, err := rd.Next()
		if err != nil {
			var refused *RefusedError
			if errors.As(err, &refused) {
				c.refuse(err)
				continue
			}
			c.fail(err)
			return
		}
		traffic.received.Add(1)
		switch m.Tag {
		case "pingRequest": // newer servers check that clients keep up
			b := append([]byte(`<pingReply`), ` uid="`...)
			b = append(appendEscaped(b, m.Attr("uid")), "\"/>\n"...)
			go c.write(b)
		case "delProperty":
			if m.Attr("name") == "" {
				c.mu.Lock()
				delete(c.synced, m.Attr("device"))
				c.mu.Unlock()
			}
		}
		if err := c.store.apply(m); err != nil {
			c.refuse(err)
		}
	}
}

func (c *Client) refuse(err error) {
	c.mu.Lock()
	c.refused++
	c.lastRef = err
	c.mu.Unlock()
}

func (c *Client) write(b []byte) error {
	if err := c.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := c.conn.Write(b); err != nil {
		c.fail(err)
		return c.Err()
	}
	traffic.written.Add(1)
	return nil
}

// Sync waits until the server has sent every definition of device that was under way, by
// asking for its CONNECTION property again: a driver answers in order, so the answer comes
// after everything before it. Use it to wait for a driver to define its device.
func (c *Client) Sync(ctx context.Context, device string) error {
	sub := c.store.subscribe(Filter{Device: device, Name: "CONNECTION"})
	defer sub.Close()
	// If CONNECTION is not here yet, the first definitions are still to come, and their
	// CONNECTION (always the first property a libindi device defines) comes before ours.
	need := 1
	if _, ok := c.store.property(device, "CONNECTION"); !ok {
		need = 2
	}
	if err := c.write(AppendGetProperties(nil, device, "CONNECTION")); err != nil {
		return err
	}
	for need > 0 {
		ev, err := sub.Next(ctx)
		if err != nil {
			if c.Err() != nil {
				return c.Err()
			}
			return &WaitError{Device: device, Property: "CONNECTION", Want: "defined",
				Last: c.describe(device, "CONNECTION"), Err: err}
		}
		switch ev.Kind {
		case Defined:
			need--
		case Resync:
			if _, ok := c.store.property(device, "CONNECTION"); ok {
				need = 0
			}
		}
	}
	c.mu.Lock()
	c.synced[device] = true
	c.mu.Unlock()
	return nil
}

func (c *Client) ensureSynced(ctx context.Context, device string) error {
	if err := c.Err(); err != nil {
		return err // what the store holds is stale
	}
	c.mu.Lock()
	ok := c.synced[device]
	c.mu.Unlock()
	if ok {
		return nil
	}
	return c.Sync(ctx, device)
}

func (c *Client) describe(device, name string) string {
	if p, ok := c.store.property(device, name); ok {
		return p.Summary()
	}
	return "undefined"
}

// Wait returns the property once done(p) holds, checking the current value first and then
// every change. A change to Alert (where done does not hold) fails with an *AlertError; a
// deleted property or an ended ctx with a *WaitError; a lost connection with a *ConnError.
func (c *Client) Wait(ctx context.Context, device, name string, done func(Property) bool) (Property, error) {
	if err := c.Err(); err != nil {
		return Property{}, err
	}
	sub := c.store.subscribe(Filter{Device: device})
	defer sub.Close()
	if p, ok := c.store.property(device, name); ok && done(p) {
		return p.clone(), nil
	}
	return c.await(ctx, sub, device, name, "as awaited", done)
}

// await reads events until done holds for the property.
func (c *Client) await(ctx context.Context, sub *Subscription, device, name, want string,
	done func(Property) bool) (Property, error) {
	var lastMessage string
	_, seen := c.store.property(device, name) // a property deleted after this fails the wait
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if cerr := c.Err(); cerr != nil {
				return Property{}, cerr
			}
			return Property{}, &WaitError{Device: device, Property: name, Want: want,
				Last: c.describe(device, name), Err: err}
		}
		switch ev.Kind {
		case Messaged:
			if ev.Device == device {
				lastMessage = ev.Message
			}
			continue
		case Resync:
			p, ok := c.store.property(device, name)
			if !ok {
				continue
			}
			ev.Property, ev.Name = p, name
		case Deleted:
			if seen && (ev.Name == "" || ev.Name == name) {
				return Property{}, &WaitError{Device: device, Property: name, Want: want,
					Last: "deleted", Err: errDeleted}
			}
			continue
		}
		if ev.Name != name {
			continue
		}
		seen = true
		p := ev.Property
		if done(p) {
			return p.clone(), nil
		}
		if p.State == Alert {
			return Property{}, c.alert(ctx, sub, p, lastMessage)
		}
	}
}

// alert builds the error for a property that went to Alert. libindi drivers often log their
// reason as a separate message right after the vector, so without a message attribute the
// next event from the device is awaited briefly; failing that, the device's last message
// since the change began is used.
func (c *Client) alert(ctx context.Context, sub *Subscription, p Property, lastMessage string) error {
	msg := p.Message
	if msg == "" {
		ctx, cancel := context.WithTimeout(ctx, alertGrace)
		defer cancel()
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				break
			}
			if ev.Device != p.Device {
				continue
			}
			if ev.Kind == Messaged {
				lastMessage = ev.Message
			}
			break
		}
		msg = lastMessage
	}
	return &AlertError{Device: p.Device, Property: p.Name, Message: cleanMessage(msg)}
}

// target describes a change to one property.
type target struct {
	device, name string
	typ          Type
	want         string              // for errors: "PARK=On"
	reached      func(Property) bool // the values are where we want them
	// build returns the vector to send, made from the current property, or a *RequestError
	// when the change can never be valid.
	build func(Property) (Property, error)
	// done ends the wait; nil means reached and settled.
	done func(Property) bool
}

// change brings a property to a target state: it reads the property first and sends nothing
// when the target is reached and settled; when the change is already under way (Busy towards
// the target) it only waits; otherwise it sends and waits. sent says whether it wrote.
func (c *Client) change(ctx context.Context, t target) (sent bool, p Property, err error) {
	if err := c.ensureSynced(ctx, t.device); err != nil {
		return false, Property{}, err
	}
	sub := c.store.subscribe(Filter{Device: t.device})
	defer sub.Close()
	cur, ok := c.store.property(t.device, t.name)
	if !ok {
		return false, Property{}, &MissingError{Device: t.device, Property: t.name}
	}
	if cur.Type != t.typ {
		return false, Property{}, &RequestError{Device: t.device, Property: t.name,
			Reason: fmt.Sprintf("it is a %s property, not %s", cur.Type, t.typ)}
	}
	nv, err := t.build(cur.clone())
	if err != nil {
		return false, Property{}, err
	}
	done := t.done
	if done == nil {
		done = func(p Property) bool { return p.State.Settled() && t.reached(p) }
	}
	want := t.want + ", settled"
	if cur.Perm != WriteOnly && t.reached(cur) { // a write-only property reads nothing true
		switch {
		case done(cur):
			return false, cur.clone(), nil
		case cur.State == Busy: // under way already
			p, err := c.await(ctx, sub, t.device, t.name, want, done)
			return false, p, err
		}
	}
	if cur.Perm == ReadOnly {
		return false, Property{}, &RequestError{Device: t.device, Property: t.name,
			Reason: "it is read-only"}
	}
	if err := c.write(AppendVector(nil, New, nv)); err != nil {
		return false, Property{}, err
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
	invalid := func(format string, args ...any) (Property, error) {
		return Property{}, &RequestError{Device: device, Property: name,
			Reason: fmt.Sprintf(format, args...)}
	}
	return target{
		device: device, name: name, typ: Switch, want: strings.Join(keys, " "),
		reached: func(p Property) bool {
			for k, v := range states {
				e, ok := p.Element(k)
				if !ok || e.On() != v {
					return false
				}
			}
			return true
		},
		build: func(p Property) (Property, error) {
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
				} else if anyOn && p.Rule != AnyOfMany {
					e.Value = "Off"
				}
				if e.On() {
					on++
				}
			}
			switch {
			case p.Rule == OneOfMany && on != 1:
				return invalid("rule OneOfMany needs exactly one switch On, not %d", on)
			case p.Rule == AtMostOne && on > 1:
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

func elementNames(p Property) string {
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
		keys = append(keys, k+"="+FormatNumber(v))
	}
	slices.Sort(keys)
	reached := func(p Property) bool {
		for k, v := range values {
			e, ok := p.Element(k)
			if !ok || !(math.Abs(e.Number-v) <= tolerance) {
				return false
			}
		}
		return true
	}
	return target{
		device: device, name: name, typ: Number, want: strings.Join(keys, " "),
		reached: reached,
		done:    func(p Property) bool { return p.State.Settled() },
		build: func(p Property) (Property, error) {
			for k, v := range values {
				e, ok := p.Element(k)
				if !ok {
					return Property{}, &RequestError{Device: device, Property: name,
						Reason: fmt.Sprintf("it has no number %s (it has %s)", k, elementNames(p))}
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return Property{}, &RequestError{Device: device, Property: name,
						Reason: fmt.Sprintf("%s must be a finite number", k)}
				}
				if e.Max > e.Min && (v < e.Min || v > e.Max) {
					return Property{}, &RequestError{Device: device, Property: name,
						Reason: fmt.Sprintf("%s=%s is outside %s..%s", k, FormatNumber(v),
							FormatNumber(e.Min), FormatNumber(e.Max))}
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
		device: device, name: name, typ: Text, want: strings.Join(keys, " "),
		reached: func(p Property) bool {
			for k, v := range values {
				if e, ok := p.Element(k); !ok || e.Value != v {
					return false
				}
			}
			return true
		},
		done: func(p Property) bool { return p.State.Settled() },
		build: func(p Property) (Property, error) {
			for k := range values {
				if _, ok := p.Element(k); !ok {
					return Property{}, &RequestError{Device: device, Property: name,
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
	t.reached = func(Property) bool { return false }
	t.done = func(p Property) bool { return p.State.Settled() }
	_, _, err := c.change(ctx, t)
	return err
}

// Send writes a new vector as is, without reading first or waiting: for one-shot commands
// such as starting an exposure. It checks only that the property exists and is writable.
func (c *Client) Send(ctx context.Context, p Property) error {
	if err := c.ensureSynced(ctx, p.Device); err != nil {
		return err
	}
	cur, ok := c.store.property(p.Device, p.Name)
	if !ok {
		return &MissingError{Device: p.Device, Property: p.Name}
	}
	if cur.Perm == ReadOnly {
		return &RequestError{Device: p.Device, Property: p.Name, Reason: "it is read-only"}
	}
	p.Type = cur.Type
	if err := c.write(AppendVector(nil, New, p)); err != nil {
		return err
	}
	c.sent.Add(1)
	return nil
}

var _ io.Closer = (*Client)(nil)
