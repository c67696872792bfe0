// Package phd2test is a fake PHD2 event server for tests. PHD2 is a GUI program that no
// Debian package ships and no test can drive, so the fake speaks its wire instead: each
// client is greeted with Version, the events of the current state and AppState; calls are
// answered as PHD2's event_server.cpp answers them (JSON-RPC 2.0, CR LF after each line,
// "method not found" for the rest); and a test can make set_connected fail with PHD2's words,
// make the equipment connect late, move the state, or send lines of its own.
package phd2test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"liken.sh/runner/phd2"
	"liken.sh/runner/phd2/guiding"
)

// maxRequest is PHD2's read buffer; it answers a longer request "too big".
const maxRequest = 1024

// Request is one call a client sent.
type Request struct {
	Method string
	Params json.RawMessage // as sent; nil when absent
	ID     json.RawMessage // nil for a notification, which gets no answer
}

// Error is a JSON-RPC error a Handler answers with. PHD2 uses code 1 for its refusals.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

// NoAnswer, returned by a Handler, leaves the call unanswered, as a PHD2 stuck in a modal
// dialog would.
var NoAnswer = errors.New("no answer")

// Handler answers a method in place of the fake's own behaviour: a result, or an error (an
// *Error with its code, any other as code 1), or NoAnswer.
type Handler func(s *Server, req Request) (any, error)

// Server is a fake PHD2 event server listening on 127.0.0.1.
type Server struct {
	Addr string

	ln net.Listener
	wg sync.WaitGroup

	mu        sync.Mutex
	state     string
	connected bool
	delay     time.Duration // from set_connected to connected
	timer     *time.Timer
	refusal   string
	// calibrated answers get_calibrated; scale get_pixel_scale; frame counts guide steps.
	calibrated bool
	scale      float64
	frame      int
	handlers   map[string]Handler
	calls      []Request
	conns      map[net.Conn]*sync.Mutex
	closed     bool
}

// New starts a fake server, Stopped with its equipment disconnected, that stops when the test
// ends.
func New(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{
		Addr:     ln.Addr().String(),
		ln:       ln,
		state:    guiding.StateStopped,
		handlers: map[string]Handler{},
		conns:    map[net.Conn]*sync.Mutex{},
	}
	s.wg.Go(s.accept)
	t.Cleanup(s.Close)
	return s
}

// Close stops the server and drops every client, as a PHD2 that exits would.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.ln.Close()
	s.wg.Wait()
}

// RefuseConnect makes set_connected(true) fail with PHD2's code 1 and this message, as PHD2
// does when its camera or mount will not connect; "" makes it succeed again.
func (s *Server) RefuseConnect(message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusal = message
}

// ConnectDelay makes the equipment connected only d after a successful set_connected(true):
// get_connected answers false until then.
func (s *Server) ConnectDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// Handle makes h answer method, in place of the fake's own behaviour.
func (s *Server) Handle(method string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[method] = h
}

// Calls returns the calls of a method received so far, in order; "" returns every call.
func (s *Server) Calls(method string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.calls {
		if method == "" || r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

// Connected says whether the fake's equipment is connected.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connected
}

// State is the fake's app state.
func (s *Server) State() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// SetState moves the app state and tells every client with the event PHD2 sends on entering
// it (GuideStep for Guiding, LoopingExposures for Looping, ...); Selected, which has none,
// goes out as AppState.
func (s *Server) SetState(state string) {
	s.mu.Lock()
	s.state = state
	s.mu.Unlock()
	switch state {
	case guiding.StateGuiding:
		s.broadcast(event("GuideStep", "Frame", 1, "dx", 0.1, "dy", -0.1))
	case guiding.StateLooping:
		s.broadcast(event("LoopingExposures", "Frame", 1))
	case guiding.StateCalibrating:
		s.broadcast(event("StartCalibration", "Mount", "INDI Mount"))
	case guiding.StatePaused:
		s.broadcast(event("Paused"))
	case guiding.StateLostLock:
		s.broadcast(event("StarLost", "Frame", 1, "Status", "star lost"))
	case guiding.StateStopped:
		s.broadcast(event("LoopingExposuresStopped"))
	default:
		s.broadcast(event("AppState", "State", state))
	}
}

// Calibrate completes a calibration: every client is told (CalibrationComplete), and
// get_calibrated answers true from then on.
func (s *Server) Calibrate() {
	s.mu.Lock()
	s.calibrated = true
	s.mu.Unlock()
	s.broadcast(event("CalibrationComplete", "Mount", "INDI Mount"))
}

// SetPixelScale sets what get_pixel_scale answers, in arc-seconds per pixel.
func (s *Server) SetPixelScale(arcsecPerPixel float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scale = arcsecPerPixel
}

// Step guides once: the server is Guiding, and every client gets a GuideStep with the star's
// distance from the lock position on each axis, in pixels, and its SNR and HFD.
func (s *Server) Step(ra, dec, snr, hfd float64) {
	s.mu.Lock()
	s.state = guiding.StateGuiding
	s.frame++
	frame := s.frame
	s.mu.Unlock()
	s.broadcast(event("GuideStep", "Frame", frame, "Time", float64(frame), "Mount", "INDI Mount",
		"RADistanceRaw", ra, "DECDistanceRaw", dec, "StarMass", 10000, "SNR", snr, "HFD", hfd))
}

// Alert shows an alert, as PHD2 does when it loses the star or a calibration fails.
func (s *Server) Alert(message, typ string) {
	s.broadcast(event("Alert", "Msg", message, "Type", typ))
}

// Send writes a line, as given, to every client; CR LF is added.
func (s *Server) Send(line string) { s.broadcast([]byte(line)) }

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		wmu := &sync.Mutex{}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = wmu
		st := s.state
		// The greeting goes out before any broadcast can reach this client.
		wmu.Lock()
		s.mu.Unlock()
		greeting := [][]byte{event("Version", "PHDVersion", "2.6.13", "PHDSubver", "", "MsgVersion", 1, "OverlapSupport", true)}
		switch st {
		case guiding.StateGuiding:
			greeting = append(greeting, event("StartGuiding"))
		case guiding.StateCalibrating:
			greeting = append(greeting, event("StartCalibration", "Mount", "INDI Mount"))
		case guiding.StatePaused:
			greeting = append(greeting, event("Paused"))
		}
		greeting = append(greeting, event("AppState", "State", st))
		for _, l := range greeting {
			_, _ = c.Write(append(l, '\r', '\n'))
		}
		wmu.Unlock()
		s.wg.Go(func() { s.serve(c, wmu) })
	}
}

func (s *Server) serve(c net.Conn, wmu *sync.Mutex) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReaderSize(c, maxRequest)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.write(c, wmu, response(json.RawMessage("0"), nil, &Error{Code: -32603, Message: "too big"}))
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			continue
		}
		if err != nil {
			return
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if out := s.call(line); out != nil {
			s.write(c, wmu, out)
		}
	}
}

func (s *Server) write(c net.Conn, wmu *sync.Mutex, line []byte) {
	wmu.Lock()
	defer wmu.Unlock()
	_ = c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, _ = c.Write(append(line, '\r', '\n'))
}

func (s *Server) broadcast(line []byte) {
	s.mu.Lock()
	type client struct {
		c   net.Conn
		wmu *sync.Mutex
	}
	var to []client
	for c, wmu := range s.conns {
		to = append(to, client{c, wmu})
	}
	s.mu.Unlock()
	for _, cl := range to {
		s.write(cl.c, cl.wmu, line)
	}
}

// call answers one request line, or returns nil when no answer is due.
func (s *Server) call(line []byte) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return response(json.RawMessage("0"), nil, &Error{Code: -32700, Message: "invalid JSON request: " + err.Error()})
	}
	var req Request
	if err := json.Unmarshal(m["method"], &req.Method); err != nil || req.Method == "" {
		return response(json.RawMessage("0"), nil, &Error{Code: -32600, Message: "invalid request"})
	}
	req.Params, req.ID = m["params"], m["id"]
	s.mu.Lock()
	s.calls = append(s.calls, req)
	h := s.handlers[req.Method]
	s.mu.Unlock()

	var result any
	var err error
	if h != nil {
		result, err = h(s, req)
	} else {
		result, err = s.builtin(req)
	}
	if errors.Is(err, NoAnswer) || req.ID == nil {
		return nil
	}
	var rpcErr *Error
	if err != nil && !errors.As(err, &rpcErr) {
		rpcErr = &Error{Code: 1, Message: err.Error()}
	}
	return response(req.ID, result, rpcErr)
}

// builtin is what PHD2 does with the methods the runner calls.
func (s *Server) builtin(req Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch req.Method {
	case phd2.MethodSetConnected:
		on, ok := boolParam(req.Params, "connected")
		if !ok {
			return nil, &Error{Code: -32602, Message: "expected connected boolean param"}
		}
		if s.timer != nil {
			s.timer.Stop()
			s.timer = nil
		}
		if !on {
			s.connected, s.state = false, guiding.StateStopped
			return 0, nil
		}
		if s.refusal != "" {
			return nil, &Error{Code: 1, Message: s.refusal}
		}
		if s.delay <= 0 {
			s.connected = true
		} else if !s.connected {
			s.timer = time.AfterFunc(s.delay, func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				if !s.closed {
					s.connected = true
				}
			})
		}
		return 0, nil
	case phd2.MethodGetConnected:
		return s.connected, nil
	case phd2.MethodGetAppState:
		return s.state, nil
	case phd2.MethodGetCalibrated:
		return s.calibrated, nil
	case phd2.MethodGetPixelScale:
		return s.scale, nil
	case phd2.MethodStopCapture:
		was := s.state
		s.state = guiding.StateStopped
		if was != guiding.StateStopped {
			// PHD2 tells every client once capturing has stopped, after it answered.
			s.wg.Go(func() {
				if was == guiding.StateGuiding || was == guiding.StateLostLock || was == guiding.StateCalibrating {
					s.broadcast(event("GuidingStopped"))
				}
				s.broadcast(event("LoopingExposuresStopped"))
			})
		}
		return 0, nil
	}
	return nil, &Error{Code: -32601, Message: "method not found"}
}

// boolParam reads a boolean parameter the way PHD2 does: first by position, or by name.
func boolParam(params json.RawMessage, name string) (bool, bool) {
	var v any
	var list []json.RawMessage
	var named map[string]json.RawMessage
	switch {
	case json.Unmarshal(params, &list) == nil && len(list) > 0:
		_ = json.Unmarshal(list[0], &v)
	case json.Unmarshal(params, &named) == nil:
		_ = json.Unmarshal(named[name], &v)
	}
	b, ok := v.(bool)
	return b, ok
}

// event is one event line: Event, Timestamp, Host and Inst as PHD2 writes them, then kv.
func event(name string, kv ...any) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"Event":%q,"Timestamp":%.3f,"Host":"phd2test","Inst":1`, name, float64(time.Now().UnixMilli())/1000)
	for i := 0; i+1 < len(kv); i += 2 {
		v, _ := json.Marshal(kv[i+1])
		b.WriteString("," + strconv.Quote(kv[i].(string)) + ":")
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// response is a JSON-RPC 2.0 answer, as PHD2 writes it.
func response(id json.RawMessage, result any, e *Error) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0",`)
	if e != nil {
		msg, _ := json.Marshal(e.Message)
		fmt.Fprintf(&b, `"error":{"code":%d,"message":%s}`, e.Code, msg)
	} else {
		v, err := json.Marshal(result)
		if err != nil {
			v = []byte("null")
		}
		b.WriteString(`"result":`)
		b.Write(v)
	}
	b.WriteString(`,"id":`)
	b.Write(id)
	b.WriteByte('}')
	return b.Bytes()
}
