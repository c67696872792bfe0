// The client holds one TCP connection to PHD2's event server: a reader that keeps the state
// the events tell and hands each answer to the call waiting for it, and calls sent one at a
// time, since PHD2 drops a request that arrives together with another.

package phd2

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// Port is the event server's port of PHD2's first instance; instance n listens on 4400+n-1.
const Port = 4400

// The methods the runner calls, as PHD2 names them.
const (
	MethodSetConnected  = "set_connected"   // params [bool]: connect or disconnect all equipment
	MethodGetConnected  = "get_connected"   // true when the camera and the mount are connected
	MethodStopCapture   = "stop_capture"    // stop looping exposures and guiding
	MethodGetAppState   = "get_app_state"   // the state the last AppState event would say
	MethodGetCalibrated = "get_calibrated"  // true when PHD2 has a calibration for the mount
	MethodGetPixelScale = "get_pixel_scale" // the guide camera's arc-seconds per pixel
)

// The app states, as PHD2 names them in AppState events and get_app_state.
const (
	StateStopped     = "Stopped"
	StateSelected    = "Selected"
	StateCalibrating = "Calibrating"
	StateGuiding     = "Guiding"
	StateLostLock    = "LostLock"
	StatePaused      = "Paused"
	StateLooping     = "Looping"
)

// stateOfEvent is how PHD2's events move its app state, after PHD2's EventMonitoring page:
// PHD2 sends AppState only in its greeting. GuidingStopped is not in that table, but PHD2
// sends it when guiding stops without looping going on, as its own client code reads it.
var stateOfEvent = map[string]string{
	"GuideStep":               StateGuiding,
	"Paused":                  StatePaused,
	"StartCalibration":        StateCalibrating,
	"LoopingExposures":        StateLooping,
	"LoopingExposuresStopped": StateStopped,
	"GuidingStopped":          StateStopped,
	"StarLost":                StateLostLock,
}

const (
	// DefaultMaxLine bounds a line from the server. PHD2's events are a few hundred bytes;
	// only get_star_image, which the runner does not call, answers with more.
	DefaultMaxLine = 64 << 10
	// maxRequest is PHD2's read buffer: a longer request is answered "too big".
	maxRequest = 1024
	// writeTimeout bounds one write; a server that does not read for this long is gone.
	writeTimeout = 10 * time.Second
)

// Limits bound what the client reads.
type Limits struct {
	// MaxLine is the longest line accepted, end of line included; 0 means DefaultMaxLine. A
	// longer line ends the connection.
	MaxLine int
}

// Alert is the last alert PHD2 showed: its message and type (info, question, warning, error),
// and when.
type Alert struct {
	Message, Type string
	Time          time.Time
}

// MaxSteps is how many of the last guide steps the client keeps.
const MaxSteps = 100

// GuideStep is one guide step (a GuideStep event): when, the star's distance from the lock
// position on each axis in pixels (RADistanceRaw, DECDistanceRaw), and the star's
// signal-to-noise ratio and half-flux diameter.
type GuideStep struct {
	Time     time.Time
	RA, Dec  float64
	SNR, HFD float64
}

// Guiding is what PHD2's events have told since the client connected.
type Guiding struct {
	State string
	// Calibrated: a calibration completed (or get_calibrated said so), and none has started
	// or failed since.
	Calibrated bool
	// Steps are the guide steps since guiding last started, the last MaxSteps of them.
	Steps []GuideStep
	Alert *Alert
}

// Client is a connection to one PHD2 event server. Its methods are safe for concurrent use.
type Client struct {
	server string
	conn   net.Conn

	// slot holds the one call in flight; lastID is the id of the last call, guarded by slot.
	slot   chan struct{}
	lastID uint64

	mu      sync.Mutex
	waiting *pendingCall
	state   string
	version string
	alert   *Alert
	// calibrated and steps are Guiding's; events counts the events read.
	calibrated bool
	steps      []GuideStep
	events     uint64
	greeted    chan struct{} // closed at the first AppState
	skipped    int
	lastSkip   error

	closeOnce sync.Once
	done      chan struct{}
	err       error
}

type pendingCall struct {
	id uint64
	ch chan answer
}

type answer struct {
	result json.RawMessage
	err    *RPCError
}

// Dial connects to a PHD2 event server at host:port and waits for its greeting, so AppState
// and Version are known when it returns.
func Dial(ctx context.Context, addr string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &ConnError{Protocol: "phd2", Server: addr, Err: err}
	}
	c := NewClient(conn, addr, Limits{})
	select {
	case <-c.greeted:
		return c, nil
	case <-c.done:
		return nil, c.err
	case <-ctx.Done():
		c.Close()
		return nil, &ConnError{Protocol: "phd2", Server: addr, Err: fmt.Errorf("no greeting (Version … AppState): %w", ctx.Err())}
	}
}

// NewClient runs a client over an established connection; server names it in errors. It does
// not wait for the greeting: AppState is "" until it comes.
func NewClient(conn net.Conn, server string, lim Limits) *Client {
	if lim.MaxLine <= 0 {
		lim.MaxLine = DefaultMaxLine
	}
	c := &Client{
		server:  server,
		conn:    conn,
		slot:    make(chan struct{}, 1),
		greeted: make(chan struct{}),
		done:    make(chan struct{}),
	}
	go c.read(lim.MaxLine)
	return c
}

// Server is the address the client was dialled with.
func (c *Client) Server() string { return c.server }

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is nil while the connection runs, and a *ConnError after.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Close ends the connection. A call in flight fails with a ConnError wrapping ErrClosed.
func (c *Client) Close() error {
	c.fail(ErrClosed)
	return nil
}

func (c *Client) fail(err error) {
	c.closeOnce.Do(func() {
		c.err = &ConnError{Protocol: "phd2", Server: c.server, Err: err}
		c.conn.Close()
		close(c.done)
	})
}

// AppState is PHD2's state as its events last told it, or "" before the greeting.
func (c *Client) AppState() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Version is PHD2's version and sub-version from its greeting, such as "2.6.13dev1".
func (c *Client) Version() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// LastAlert is the last alert PHD2 showed since the client connected.
func (c *Client) LastAlert() (Alert, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.alert == nil {
		return Alert{}, false
	}
	return *c.alert, true
}

// Guiding is what the events have told of PHD2's guiding; the Steps are a copy.
func (c *Client) Guiding() Guiding {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := Guiding{State: c.state, Calibrated: c.calibrated, Steps: append([]GuideStep(nil), c.steps...)}
	if c.alert != nil {
		a := *c.alert
		g.Alert = &a
	}
	return g
}

// Events counts the events read so far: when it has not moved, Guiding has not changed.
func (c *Client) Events() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.events
}

// Skipped counts the lines from the server that were neither an event nor an answer to a call
// of ours, and returns the last reason.
func (c *Client) Skipped() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped, c.lastSkip
}

// Call invokes a method and waits for its answer, bounded by ctx. params is nil (none), a
// slice (by position) or a struct or map (by name); result, when not nil, receives the
// answer's result as json.Unmarshal does. PHD2's refusal is an *RPCError.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	select {
	case c.slot <- struct{}{}:
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return fmt.Errorf("phd2 server %s: %s: waiting for an earlier call: %w", c.server, method, ctx.Err())
	}
	defer func() { <-c.slot }()

	c.lastID++
	id := c.lastID
	req := struct {
		Method string `json:"method"`
		Params any    `json:"params,omitempty"`
		ID     uint64 `json:"id"`
	}{method, params, id}
	line, err := json.Marshal(req)
	if err != nil {
		return &RequestError{Method: method, Reason: err.Error()}
	}
	line = append(line, '\r', '\n')
	if len(line) > maxRequest {
		return &RequestError{Method: method, Reason: fmt.Sprintf("%d bytes, and PHD2 reads at most %d", len(line), maxRequest)}
	}

	ch := make(chan answer, 1)
	c.mu.Lock()
	c.waiting = &pendingCall{id: id, ch: ch}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.waiting = nil
		c.mu.Unlock()
	}()

	deadline := time.Now().Add(writeTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.conn.SetWriteDeadline(deadline)
	if _, err := c.conn.Write(line); err != nil {
		c.fail(err)
		return c.err
	}

	select {
	case a := <-ch:
		if a.err != nil {
			a.err.Server, a.err.Method = c.server, method
			return a.err
		}
		if result != nil {
			if err := json.Unmarshal(a.result, result); err != nil {
				return fmt.Errorf("phd2 server %s: %s answered %.80s, which is not a %T: %w", c.server, method, a.result, result, err)
			}
		}
		return nil
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return fmt.Errorf("phd2 server %s: %s: no answer: %w", c.server, method, ctx.Err())
	}
}

// SetConnected connects (true) or disconnects all of PHD2's equipment. PHD2 answers when it
// has tried; a camera or mount that would not connect is an *RPCError with PHD2's reason.
func (c *Client) SetConnected(ctx context.Context, on bool) error {
	return c.Call(ctx, MethodSetConnected, []bool{on}, nil)
}

// Connected says whether PHD2's camera and mount are connected.
func (c *Client) Connected(ctx context.Context) (bool, error) {
	var ok bool
	err := c.Call(ctx, MethodGetConnected, nil, &ok)
	return ok, err
}

// StopCapture stops looping exposures, and guiding with them.
func (c *Client) StopCapture(ctx context.Context) error {
	return c.Call(ctx, MethodStopCapture, nil, nil)
}

// GetCalibrated asks PHD2 whether it has a calibration for the mount, and keeps the answer
// for Guiding: a calibration made before the client connected sent no event to it.
func (c *Client) GetCalibrated(ctx context.Context) (bool, error) {
	var ok bool
	if err := c.Call(ctx, MethodGetCalibrated, nil, &ok); err != nil {
		return false, err
	}
	c.mu.Lock()
	c.calibrated = ok
	c.mu.Unlock()
	return ok, nil
}

// PixelScale asks PHD2 for the guide camera's image scale, in arc-seconds per pixel; 0 when
// PHD2 does not know it (no focal length in its profile).
func (c *Client) PixelScale(ctx context.Context) (float64, error) {
	var v float64
	err := c.Call(ctx, MethodGetPixelScale, nil, &v)
	return v, err
}

// GetAppState asks PHD2 for its state, and keeps it as AppState.
func (c *Client) GetAppState(ctx context.Context) (string, error) {
	var st string
	if err := c.Call(ctx, MethodGetAppState, nil, &st); err != nil {
		return "", err
	}
	c.mu.Lock()
	c.state = st
	c.mu.Unlock()
	return st, nil
}

// read runs until the connection ends. bufio's buffer is the line limit: a line that does not
// fit ends the connection instead of growing memory.
func (c *Client) read(maxLine int) {
	r := bufio.NewReaderSize(c.conn, maxLine)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			c.fail(&ProtocolError{Reason: fmt.Sprintf("a line longer than %d bytes", maxLine)})
			return
		}
		if len(line) > 0 && (err == nil || errors.Is(err, io.EOF)) {
			c.handle(bytes.TrimSpace(line))
		}
		if err != nil {
			c.fail(err)
			return
		}
	}
}

// handle takes one line: an event has an "Event" member, an answer "jsonrpc" or "id". The
// members are read by their exact names: encoding/json matches struct fields without regard
// to case, and SettleDone's "Error" (a string) is not JSON-RPC's "error" (an object).
func (c *Client) handle(line []byte) {
	if len(line) == 0 {
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		c.skip(fmt.Errorf("not a JSON object: %.80q", line))
		return
	}
	if raw, ok := m["Event"]; ok {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			c.skip(fmt.Errorf("an event whose name is not a string: %.80q", line))
			return
		}
		c.event(name, m)
		return
	}
	_, rpc := m["jsonrpc"]
	if _, ok := m["id"]; ok || rpc {
		c.answer(m, line)
		return
	}
	c.skip(fmt.Errorf("neither an event nor an answer: %.80q", line))
}

func (c *Client) event(name string, m map[string]json.RawMessage) {
	str := func(key string) string {
		var s string
		_ = json.Unmarshal(m[key], &s)
		return s
	}
	num := func(key string) float64 {
		var v float64
		_ = json.Unmarshal(m[key], &v)
		return v
	}
	at := func() time.Time { // zero for a line without one
		if sec := num("Timestamp"); sec > 0 {
			return time.Unix(0, int64(sec*1e9)).UTC()
		}
		return time.Time{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events++
	switch name {
	case "StartGuiding":
		c.steps = nil
	case "GuideStep":
		if len(c.steps) == MaxSteps {
			c.steps = append(c.steps[:0], c.steps[1:]...)
		}
		c.steps = append(c.steps, GuideStep{Time: at(), RA: num("RADistanceRaw"), Dec: num("DECDistanceRaw"),
			SNR: num("SNR"), HFD: num("HFD")})
	case "StartCalibration", "CalibrationFailed":
		c.calibrated = false
	case "CalibrationComplete":
		c.calibrated = true
	}
	switch name {
	case "Version":
		c.version = str("PHDVersion") + str("PHDSubver")
	case "AppState":
		if st := str("State"); st != "" {
			c.state = st
		}
		select {
		case <-c.greeted:
		default:
			close(c.greeted)
		}
	case "Alert":
		c.alert = &Alert{Message: str("Msg"), Type: str("Type"), Time: at()}
	default:
		if st, ok := stateOfEvent[name]; ok {
			c.state = st
		}
	}
}

// answer hands an answer to the call in flight. PHD2 answers a request it could not read at
// all with id 0; with one call in flight, that answer is that call's.
func (c *Client) answer(m map[string]json.RawMessage, line []byte) {
	var id uint64
	if raw := m["id"]; len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			c.skip(fmt.Errorf("an answer whose id is not ours: %.80q", line))
			return
		}
		id = n
	}
	var a answer
	if raw, ok := m["error"]; ok && !bytes.Equal(raw, []byte("null")) {
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			e.Code, e.Message = 0, string(raw)
		}
		a.err = &RPCError{Code: e.Code, Message: e.Message}
	} else {
		a.result = m["result"]
	}
	c.mu.Lock()
	w := c.waiting
	if w != nil && (w.id == id || id == 0 && a.err != nil) {
		c.waiting = nil
		c.mu.Unlock()
		w.ch <- a
		return
	}
	c.mu.Unlock()
	c.skip(fmt.Errorf("an answer to no call in flight: %.80q", line))
}

func (c *Client) skip(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skipped++
	c.lastSkip = err
}
