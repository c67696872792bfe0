// The store is the client's live picture of a server: every device's properties as last
// defined and updated, read by many goroutines (status writers, waits, the operator's condition
// logic) while one reader goroutine applies the stream. Stored properties are immutable
// snapshots replaced on each change, so a reader never sees half an update. Subscriptions
// deliver each change in stream order through a bounded queue: a subscriber that falls far
// behind gets one Resync event instead of unbounded memory, and re-reads the store, which is
// all a level-triggered consumer needs.

package indi

import (
	"context"
	"liken.sh/runner/indi/prop"
	"slices"
	"sort"
	"sync"
)

// EventKind says what changed.
type EventKind uint8

// The kinds of Event.
const (
	// Defined: a def vector arrived; the property is new or redefined.
	Defined EventKind = iota + 1
	// Updated: a set vector changed a defined property.
	Updated
	// Deleted: a delProperty removed one property, or every property of a device (Name "").
	Deleted
	// Messaged: the driver sent a message; Device is "" for a server-wide one.
	Messaged
	// Resync: the subscriber fell behind and events were dropped; read the store again.
	Resync
)

func (k EventKind) String() string {
	switch k {
	case Defined:
		return "Defined"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Messaged:
		return "Messaged"
	case Resync:
		return "Resync"
	}
	return "EventKind(?)"
}

// Event is one change, in the order the server sent it.
type Event struct {
	Kind         EventKind
	Device, Name string
	// Property is the property after a Defined or Updated change. Its Elements are shared with
	// the store and other subscribers: read them, never write them.
	Property  prop.Property
	Message   string // Messaged: the text
	Timestamp string
}

// Filter selects events: an empty Device means every device, an empty Name every property of
// the device. A device's messages and whole-device deletions reach every subscription on it.
type Filter struct{ Device, Name string }

func (f Filter) match(e *Event) bool {
	if e.Kind == Resync {
		return true
	}
	if f.Device == "" {
		return true
	}
	if f.Device != e.Device {
		return false
	}
	return f.Name == "" || e.Name == "" || e.Name == f.Name
}

// maxQueued bounds the events waiting for one subscriber.
const maxQueued = 1024

type device struct {
	props map[string]*prop.Property
	order []string // definition order, as clients show them
}

type store struct {
	mu      sync.RWMutex
	devices map[string]*device

	// subMu is held across a change and its event, so a new subscriber sees the store either
	// before a change (and then gets its event) or after it (and then does not).
	subMu sync.Mutex
	subs  map[*Subscription]struct{}
	err   error // why the stream ended; nil while it runs
	done  chan struct{}
}

func newStore() *store {
	return &store{
		devices: make(map[string]*device),
		subs:    make(map[*Subscription]struct{}),
		done:    make(chan struct{}),
	}
}

// property returns the stored snapshot; callers must not modify its Elements.
func (s *store) property(dev, name string) (prop.Property, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if d := s.devices[dev]; d != nil {
		if p := d.props[name]; p != nil {
			return *p, true
		}
	}
	return prop.Property{}, false
}

func (s *store) properties(dev string) []prop.Property {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.devices[dev]
	if d == nil {
		return nil
	}
	out := make([]prop.Property, 0, len(d.order))
	for _, n := range d.order {
		out = append(out, d.props[n].Clone())
	}
	return out
}

func (s *store) deviceNames() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.devices))
	for n := range s.devices {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// apply changes the store by one message and tells the subscribers. Only the client's reader
// goroutine calls it, which keeps events in stream order. It returns why a message was not
// applied, for the client to count; such messages change nothing.
func (s *store) apply(m *Message) error {
	var verb Verb
	var p prop.Property
	if IsVector(m) {
		var err error
		if verb, p, err = DecodeVector(m); err != nil {
			return err
		}
	}
	s.subMu.Lock() // the change and its event, as one step (subMu)
	defer s.subMu.Unlock()
	var ev Event
	switch {
	case IsVector(m):
		switch verb {
		case Def:
			ev = s.define(p)
		case Set:
			var ok bool
			ev, ok = s.update(p, m.Attr("timeout") != "")
			if !ok {
				return nil // INDI clients ignore updates to properties they were not given
			}
		default:
			return nil // new vectors go to drivers, not clients
		}
	case m.Tag == "delProperty":
		dev := m.Attr("device")
		if dev == "" {
			return nil
		}
		ev = s.remove(dev, m.Attr("name"))
		ev.Timestamp = m.Attr("timestamp")
	case m.Tag == "message":
		ev = Event{Kind: Messaged, Device: m.Attr("device"), Message: m.Attr("message"),
			Timestamp: m.Attr("timestamp")}
	default:
		return nil
	}
	s.publish(ev)
	return nil
}

func (s *store) define(p prop.Property) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.devices[p.Device]
	if d == nil {
		d = &device{props: make(map[string]*prop.Property)}
		s.devices[p.Device] = d
	}
	if d.props[p.Name] == nil {
		d.order = append(d.order, p.Name)
	}
	d.props[p.Name] = &p
	return Event{Kind: Defined, Device: p.Device, Name: p.Name, Property: p, Timestamp: p.Timestamp}
}

func (s *store) update(u prop.Property, hasTimeout bool) (Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.devices[u.Device]
	if d == nil || d.props[u.Name] == nil || d.props[u.Name].Type != u.Type {
		return Event{}, false
	}
	p := d.props[u.Name].Clone()
	for _, ue := range u.Elements {
		for i := range p.Elements {
			if p.Elements[i].Name == ue.Name {
				p.Elements[i].Value, p.Elements[i].Number = ue.Value, ue.Number
				break
			}
		}
	}
	if u.State != "" {
		p.State = u.State
	}
	if hasTimeout {
		p.Timeout = u.Timeout
	}
	if u.Timestamp != "" {
		p.Timestamp = u.Timestamp
	}
	p.Message = u.Message
	d.props[u.Name] = &p
	return Event{Kind: Updated, Device: p.Device, Name: p.Name, Property: p, Timestamp: p.Timestamp}, true
}

func (s *store) remove(dev, name string) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.devices[dev]; d != nil {
		if name == "" {
			delete(s.devices, dev)
		} else if d.props[name] != nil {
			delete(d.props, name)
			d.order = slices.DeleteFunc(d.order, func(n string) bool { return n == name })
			if len(d.order) == 0 {
				delete(s.devices, dev)
			}
		}
	}
	return Event{Kind: Deleted, Device: dev, Name: name}
}

// publish tells the subscribers of ev; the caller holds subMu.
func (s *store) publish(ev Event) {
	for sub := range s.subs {
		if sub.filter.match(&ev) {
			sub.push(ev)
		}
	}
}

// close ends the store: subscriptions drain what they have, then return err.
func (s *store) close(err error) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if s.err != nil {
		return
	}
	s.err = err
	close(s.done)
	for sub := range s.subs {
		sub.wakeUp()
	}
}

func (s *store) subscribe(f Filter) *Subscription {
	sub, _, _ := s.subscribeReading(f, "", "")
	return sub
}

// subscribeReading subscribes and reads device dev's property name at that point of the
// stream: every change after the read is an event of the subscription, and none before it.
// So Sync can count the definitions it awaits, and a wait never takes an older event for news.
func (s *store) subscribeReading(f Filter, dev, name string) (*Subscription, prop.Property, bool) {
	sub := &Subscription{store: s, filter: f, wake: make(chan struct{}, 1)}
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.subs[sub] = struct{}{}
	p, ok := s.property(dev, name)
	return sub, p, ok
}

// Subscription receives the changes its Filter selects, in stream order.
type Subscription struct {
	store  *store
	filter Filter
	wake   chan struct{} // holds a token when the queue may have grown

	mu    sync.Mutex
	queue []Event
	head  int
}

func (sub *Subscription) push(ev Event) {
	sub.mu.Lock()
	if len(sub.queue)-sub.head >= maxQueued {
		sub.queue, sub.head = append(sub.queue[:0], Event{Kind: Resync}), 0
	} else {
		sub.queue = append(sub.queue, ev)
	}
	sub.mu.Unlock()
	sub.wakeUp()
}

func (sub *Subscription) wakeUp() {
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

func (sub *Subscription) pop() (Event, bool) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.head == len(sub.queue) {
		return Event{}, false
	}
	ev := sub.queue[sub.head]
	sub.queue[sub.head] = Event{}
	sub.head++
	if sub.head == len(sub.queue) {
		sub.queue, sub.head = sub.queue[:0], 0
	}
	return ev, true
}

// Next returns the next event. When the connection has ended and the queue is empty it returns
// the connection's error; it returns ctx.Err() when ctx ends first.
func (sub *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		if ev, ok := sub.pop(); ok {
			return ev, nil
		}
		select {
		case <-sub.store.done:
			if ev, ok := sub.pop(); ok {
				return ev, nil
			}
			return Event{}, sub.store.err
		default:
		}
		select {
		case <-sub.wake:
		case <-sub.store.done:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Close stops delivery. It is safe to call more than once.
func (sub *Subscription) Close() {
	sub.store.subMu.Lock()
	delete(sub.store.subs, sub)
	sub.store.subMu.Unlock()
	sub.mu.Lock()
	sub.queue, sub.head = nil, 0
	sub.mu.Unlock()
}
