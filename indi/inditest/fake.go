// The fake is an INDI server inside the test process, for what the simulators cannot show:
// properties they lack (dust caps, power outputs, coolers, CCD_CONTROLS), drivers that refuse,
// answer late or never, change properties on a script, or send hostile bytes. It answers
// getProperties like indiserver (all, one device, or one property), and applies a new vector
// the way a libindi driver does unless a handler takes it over.

package inditest

import (
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
)

// Handler takes a new vector a client sent. It may answer at once or later, through f.
type Handler func(f *Fake, req prop.Property)

// Fake is a scripted INDI server listening on 127.0.0.1.
type Fake struct {
	Addr string

	ln       net.Listener
	mu       sync.Mutex
	props    map[[2]string]*prop.Property
	order    [][2]string
	handlers map[[2]string]Handler
	received map[[2]string][]prop.Property
	conns    map[net.Conn]*sync.Mutex
	closed   bool
}

// NewFake starts a fake server that stops when the test ends.
func NewFake(t testing.TB) *Fake {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &Fake{
		Addr:     ln.Addr().String(),
		ln:       ln,
		props:    make(map[[2]string]*prop.Property),
		handlers: make(map[[2]string]Handler),
		received: make(map[[2]string][]prop.Property),
		conns:    make(map[net.Conn]*sync.Mutex),
	}
	go f.accept()
	t.Cleanup(f.Close)
	return f
}

// Close stops the server and drops every client, as a crashed server would.
func (f *Fake) Close() {
	f.mu.Lock()
	f.closed = true
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.ln.Close()
}

func (f *Fake) accept() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			c.Close()
			return
		}
		f.conns[c] = &sync.Mutex{}
		f.mu.Unlock()
		go f.serve(c)
	}
}

func (f *Fake) serve(c net.Conn) {
	defer func() {
		f.mu.Lock()
		delete(f.conns, c)
		f.mu.Unlock()
		c.Close()
	}()
	r := indi.NewReader(c, indi.Limits{})
	for {
		m, err := r.Next()
		if err != nil {
			if _, refused := err.(*indi.RefusedError); refused {
				continue
			}
			return
		}
		switch {
		case m.Tag == "getProperties":
			f.define(c, m.Attr("device"), m.Attr("name"))
		case indi.IsVector(m):
			verb, p, err := indi.DecodeVector(m)
			if err != nil || verb != indi.New {
				continue
			}
			key := [2]string{p.Device, p.Name}
			f.mu.Lock()
			f.received[key] = append(f.received[key], p)
			h := f.handlers[key]
			f.mu.Unlock()
			if h == nil {
				h = Accept
			}
			h(f, p)
		}
	}
}

// define sends def vectors to one client: everything, one device, or one property.
func (f *Fake) define(c net.Conn, device, name string) {
	f.mu.Lock()
	var b []byte
	for _, k := range f.order {
		if (device == "" || k[0] == device) && (name == "" || k[1] == name) {
			b = indi.AppendVector(b, indi.Def, *f.props[k])
		}
	}
	wmu := f.conns[c]
	f.mu.Unlock()
	if wmu != nil && len(b) > 0 {
		wmu.Lock()
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		c.Write(b)
		wmu.Unlock()
	}
}

// broadcast writes b to every client.
func (f *Fake) broadcast(b []byte) {
	f.mu.Lock()
	conns := make(map[net.Conn]*sync.Mutex, len(f.conns))
	for c, m := range f.conns {
		conns[c] = m
	}
	f.mu.Unlock()
	for c, m := range conns {
		m.Lock()
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		c.Write(b)
		m.Unlock()
	}
}

// Define adds or replaces a property and sends its definition to every client.
func (f *Fake) Define(p prop.Property) {
	key := [2]string{p.Device, p.Name}
	p.Elements = slices.Clone(p.Elements)
	if p.State == "" {
		p.State = prop.Idle
	}
	if p.Perm == "" {
		p.Perm = prop.ReadWrite
	}
	f.mu.Lock()
	if f.props[key] == nil {
		f.order = append(f.order, key)
	}
	f.props[key] = &p
	f.mu.Unlock()
	f.broadcast(indi.AppendVector(nil, indi.Def, p))
}

// Update changes a defined property through change and sends it as a set vector, as a driver
// does. It panics if the property is not defined: that is a broken test.
func (f *Fake) Update(device, name string, change func(p *prop.Property)) {
	f.mu.Lock()
	cur := f.props[[2]string{device, name}]
	if cur == nil {
		f.mu.Unlock()
		panic(fmt.Sprintf("inditest: %s.%s is not defined", device, name))
	}
	p := *cur
	p.Elements = slices.Clone(p.Elements)
	p.Message = ""
	change(&p)
	stored := p
	stored.Message = ""
	f.props[[2]string{device, name}] = &stored
	f.mu.Unlock()
	f.broadcast(indi.AppendVector(nil, indi.Set, p))
}

// Message sends a driver message, as libindi's LOG_INFO does: "[INFO] text".
func (f *Fake) Message(device, text string) {
	f.broadcast(indi.AppendMessage(nil, device, "", text))
}

// Delete removes a property, or with name "" every property of the device.
func (f *Fake) Delete(device, name string) {
	f.mu.Lock()
	f.order = slices.DeleteFunc(f.order, func(k [2]string) bool {
		if k[0] == device && (name == "" || k[1] == name) {
			delete(f.props, k)
			return true
		}
		return false
	})
	f.mu.Unlock()
	f.broadcast(indi.AppendDelProperty(nil, device, name))
}

// WriteRaw sends bytes as they are to every client: for hostile and broken streams.
func (f *Fake) WriteRaw(b []byte) { f.broadcast(b) }

// Handle routes new vectors for one property to h instead of Accept.
func (f *Fake) Handle(device, name string, h Handler) {
	f.mu.Lock()
	f.handlers[[2]string{device, name}] = h
	f.mu.Unlock()
}

// Property returns a copy of the fake's current property.
func (f *Fake) Property(device, name string) (prop.Property, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.props[[2]string{device, name}]
	if p == nil {
		return prop.Property{}, false
	}
	q := *p
	q.Elements = slices.Clone(p.Elements)
	return q, true
}

// Received returns the new vectors clients sent for a property, oldest first.
func (f *Fake) Received(device, name string) []prop.Property {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.received[[2]string{device, name}])
}

// Accept applies a new vector like a libindi driver (IUUpdate*): the sent values replace the
// current ones, a switch turned On under OneOfMany or AtMostOne turns the others Off, and the
// property goes to Ok.
func Accept(f *Fake, req prop.Property) {
	f.Update(req.Device, req.Name, func(p *prop.Property) {
		Apply(p, req)
		p.State = prop.Ok
	})
}

// Apply copies the values of req into p, following p's switch rule.
func Apply(p *prop.Property, req prop.Property) {
	if p.Type == prop.Switch && p.Rule != prop.AnyOfMany {
		for _, e := range req.Elements {
			if e.On() {
				for i := range p.Elements {
					p.Elements[i].Value = "Off"
				}
			}
		}
	}
	for _, e := range req.Elements {
		for i := range p.Elements {
			if p.Elements[i].Name == e.Name {
				p.Elements[i].Value, p.Elements[i].Number = e.Value, e.Number
			}
		}
	}
}

// Switches builds a switch vector; on names the switches that are On.
func Switches(device, name string, rule prop.Rule, on []string, names ...string) prop.Property {
	p := prop.Property{Device: device, Name: name, Label: name, Group: "Main Control",
		Type: prop.Switch, Perm: prop.ReadWrite, Rule: rule, State: prop.Idle, Timeout: 60}
	for _, n := range names {
		v := "Off"
		if slices.Contains(on, n) {
			v = "On"
		}
		p.Elements = append(p.Elements, prop.Element{Name: n, Label: n, Value: v})
	}
	return p
}

// Numbers builds a number vector from name, value pairs, with no range.
func Numbers(device, name string, pairs ...any) prop.Property {
	p := prop.Property{Device: device, Name: name, Label: name, Group: "Main Control",
		Type: prop.Number, Perm: prop.ReadWrite, State: prop.Idle, Timeout: 60}
	for i := 0; i+1 < len(pairs); i += 2 {
		v := pairs[i+1].(float64)
		p.Elements = append(p.Elements, prop.Element{Name: pairs[i].(string), Label: pairs[i].(string),
			Value: prop.FormatNumber(v), Number: v, Format: "%g"})
	}
	return p
}

// Device defines a connected device: its CONNECTION property, which every libindi device has
// and the client uses to know a device's definitions are complete.
func (f *Fake) Device(device string) {
	p := Switches(device, "CONNECTION", prop.OneOfMany, []string{"CONNECT"}, "CONNECT", "DISCONNECT")
	p.State = prop.Ok
	f.Define(p)
}
