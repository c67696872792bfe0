// The client holds one TCP connection to an indiserver: it asks for every property, keeps them
// in the store, and sends changes (change.go). A change is awaited in stream order, where Busy
// means moving, Ok or Idle means settled, and Alert fails with the driver's own message. Every
// wait takes a context, and a lost connection fails every pending wait at once with an error
// naming the server.

package indi

import (
	"context"
	"errors"
	"io"
	"liken.sh/runner/indi/prop"
	"net"
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
func (c *Client) Property(device, name string) (prop.Property, bool) {
	p, ok := c.store.property(device, name)
	return p.Clone(), ok
}

// Properties returns copies of a device's properties in the order the driver defined them.
func (c *Client) Properties(device string) []prop.Property { return c.store.properties(device) }

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
	sub, _, seen := c.store.subscribeReading(Filter{Device: device, Name: "CONNECTION"}, device, "CONNECTION")
	defer sub.Close()
	// If CONNECTION is not here yet, the first definitions are still to come, and their
	// CONNECTION (always the first property a libindi device defines) comes before ours.
	need := 1
	if !seen {
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
func (c *Client) Wait(ctx context.Context, device, name string, done func(prop.Property) bool) (prop.Property, error) {
	if err := c.Err(); err != nil {
		return prop.Property{}, err
	}
	sub, p, ok := c.store.subscribeReading(Filter{Device: device}, device, name)
	defer sub.Close()
	if ok && done(p) {
		return p.Clone(), nil
	}
	return c.await(ctx, sub, device, name, "as awaited", done)
}

// await reads events until done holds for the property.
func (c *Client) await(ctx context.Context, sub *Subscription, device, name, want string,
	done func(prop.Property) bool) (prop.Property, error) {
	var lastMessage string
	_, seen := c.store.property(device, name) // a property deleted after this fails the wait
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if cerr := c.Err(); cerr != nil {
				return prop.Property{}, cerr
			}
			return prop.Property{}, &WaitError{Device: device, Property: name, Want: want,
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
				return prop.Property{}, &WaitError{Device: device, Property: name, Want: want,
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
			return p.Clone(), nil
		}
		if p.State == prop.Alert {
			return prop.Property{}, c.alert(ctx, sub, p, lastMessage)
		}
	}
}

// alert builds the error for a property that went to Alert. libindi drivers often log their
// reason as a separate message right after the vector, so without a message attribute the
// next event from the device is awaited briefly; failing that, the device's last message
// since the change began is used.
func (c *Client) alert(ctx context.Context, sub *Subscription, p prop.Property, lastMessage string) error {
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

var _ io.Closer = (*Client)(nil)
