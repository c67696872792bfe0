// The client holds one TCP connection to PHD2's event server: a reader (events.go) that
// keeps the state the events tell and hands each answer to the call waiting for it, and calls
// sent one at a time, since PHD2 drops a request that arrives together with another.

package phd2

import (
	"context"
	"encoding/json"
	"fmt"
	"liken.sh/runner/phd2/guiding"
	"net"
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
	alert   *guiding.Alert
	// calibrated and steps are Guiding's; events counts the events read.
	calibrated bool
	steps      []guiding.Step
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
func (c *Client) LastAlert() (guiding.Alert, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.alert == nil {
		return guiding.Alert{}, false
	}
	return *c.alert, true
}

// Guiding is what the events have told of PHD2's guiding; the Steps are a copy.
func (c *Client) Guiding() guiding.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := guiding.Status{State: c.state, Calibrated: c.calibrated, Steps: append([]guiding.Step(nil), c.steps...)}
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
