// Package lx200 plays a Meade LX200-compatible telescope mount on the far side of a Linux
// pseudo-terminal, so that Debian's stock INDI LX200 drivers (indi_lx200fs2, indi_lx200generic)
// drive it as they would drive the hardware on a serial port: the tests give the driver the
// pty's slave as its DEVICE_PORT, and no simulator mode or patched driver is involved. The
// mount keeps its coordinates, slews to a target in SetSlewTime, parks, syncs and stops, and
// answers the commands those drivers send in the formats they parse; commands it does not
// know it ignores, as a real mount does, and records for the test to print. Only tests import
// it.
package lx200

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// DefaultSlewTime is how long a goto or a park takes unless SetSlewTime says otherwise: long
// enough for a driver polling every second to see the slew under way, short enough for tests.
const DefaultSlewTime = 2 * time.Second

// logSize bounds the command log and the unknown list: drivers poll every second, forever.
const logSize = 256

// Mount is a simulated LX200 mount behind a pty. Its methods are safe for concurrent use.
type Mount struct {
	slave  string
	master *os.File
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	err    error

	mu      sync.Mutex
	st      state
	counts  map[string]int
	log     []string
	unknown []string
}

// Status is what the mount is doing, as its motors and controller would tell.
type Status struct {
	RA, Dec             float64 // where it points: RA in hours, Dec in degrees (JNow)
	TargetRA, TargetDec float64 // the last target set with :Sr and :Sd
	Slewing             bool    // a goto or a park is under way
	Moving              bool    // a manual motion (:Mn, :Ms, :Me, :Mw) is under way
	Parked              bool    // it reached its park position after :hP# (a park by goto is a goto)
	HighPrecision       bool    // coordinates are HH:MM:SS and sDD*MM:SS, not HH:MM.T and sDD*MM
}

// Open makes a pty pair and starts answering on its master. The slave is left for the driver
// to open (Slave names it). Close the mount when done.
func Open() (*Mount, error) {
	master, slave, err := openPTY()
	if err != nil {
		return nil, err
	}
	m := &Mount{slave: slave, master: master, stop: make(chan struct{}), done: make(chan struct{}),
		counts: make(map[string]int)}
	m.st = newState(time.Now())
	go m.serve()
	return m, nil
}

// Slave is the path of the pty's slave, /dev/pts/N: the mount's serial port.
func (m *Mount) Slave() string { return m.slave }

// Close stops answering and closes the master; a driver still holding the slave then reads
// end of file and errors, as from a mount whose cable was pulled. It is safe to call more
// than once.
func (m *Mount) Close() error {
	m.once.Do(func() {
		close(m.stop)
		m.err = m.master.Close()
		<-m.done
	})
	return m.err
}

// SetSlewTime sets how long each later goto or park takes, whatever the distance.
func (m *Mount) SetSlewTime(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.slewTime = d
}

// SetPosition puts the mount at ra (hours) and dec (degrees) at once and stops any motion, as
// if it had been moved by hand with the power off.
func (m *Mount) SetPosition(ra, dec float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.advance(time.Now())
	m.st.halt()
	m.st.ra, m.st.dec = wrapHours(ra), clampDec(dec)
	m.st.parked = false
}

// SetSite sets the site the mount's controller keeps: latitude north positive, longitude east
// positive as INDI has them. The drivers read it on every connect and publish it as
// GEOGRAPHIC_COORD, over what a client set before; indi_lx200fs2 never writes it back.
func (m *Mount) SetSite(latitude, longitude float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if longitude > 180 {
		longitude -= 360
	}
	m.st.lat, m.st.long = clampDec(latitude), -longitude // Meade counts west positive
}

// Position is where the mount points now: RA in hours, Dec in degrees.
func (m *Mount) Position() (ra, dec float64) {
	s := m.Status()
	return s.RA, s.Dec
}

// Status is what the mount is doing now.
func (m *Mount) Status() Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.advance(time.Now())
	return Status{RA: m.st.ra, Dec: m.st.dec, TargetRA: m.st.targetRA, TargetDec: m.st.targetDec,
		Slewing: m.st.slew != nil, Moving: m.st.moveRA != 0 || m.st.moveDec != 0,
		Parked: m.st.parked, HighPrecision: m.st.high}
}

// Commands counts the commands received so far by name: "ACK" for the 0x06 byte, ":GR#" for
// a command without arguments, ":Sr" for one with (its arguments left out). Unknown commands
// count under their full text.
func (m *Mount) Commands() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.counts))
	for k, v := range m.counts {
		out[k] = v
	}
	return out
}

// Log is the last commands received with the mount's replies, oldest first, for a test to
// print when it fails.
func (m *Mount) Log() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.log...)
}

// Unknown lists the commands received that the mount does not know and so ignored, in order
// (the last logSize of them).
func (m *Mount) Unknown() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.unknown...)
}

// answer runs one command received and returns the reply to write ("" for none).
func (m *Mount) answer(raw string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.advance(time.Now())
	name, reply, known := m.st.run(raw)
	if !known {
		m.unknown = capped(m.unknown, printable(raw))
	}
	m.counts[name]++
	m.log = capped(m.log, fmt.Sprintf("%s -> %q", printable(raw), reply))
	return reply
}

// capped appends s to list, dropping the oldest entry past logSize.
func capped(list []string, s string) []string {
	if len(list) == logSize {
		list = append(list[:0], list[1:]...)
	}
	return append(list, s)
}

// printable shows a command as a driver's log does: the ACK byte by name.
func printable(raw string) string {
	if raw == ack {
		return "ACK"
	}
	return ":" + raw + "#"
}
