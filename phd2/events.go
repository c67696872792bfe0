// The reading side of the client: one goroutine reads PHD2's lines, keeps the state its
// events tell (app state, calibration, the last guide steps, the last alert) and hands each
// answer to the call waiting for it. A line that is neither is counted and skipped, since a
// newer PHD2 may send what this client does not know.

package phd2

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"liken.sh/runner/phd2/guiding"
	"strconv"
	"time"
)

// stateOfEvent is how PHD2's events move its app state, after PHD2's EventMonitoring page:
// PHD2 sends AppState only in its greeting. GuidingStopped is not in that table, but PHD2
// sends it when guiding stops without looping going on, as its own client code reads it.
var stateOfEvent = map[string]string{
	"GuideStep":               guiding.StateGuiding,
	"Paused":                  guiding.StatePaused,
	"StartCalibration":        guiding.StateCalibrating,
	"LoopingExposures":        guiding.StateLooping,
	"LoopingExposuresStopped": guiding.StateStopped,
	"GuidingStopped":          guiding.StateStopped,
	"StarLost":                guiding.StateLostLock,
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
		if len(c.steps) == guiding.MaxSteps {
			c.steps = append(c.steps[:0], c.steps[1:]...)
		}
		c.steps = append(c.steps, guiding.Step{Time: at(), RA: num("RADistanceRaw"), Dec: num("DECDistanceRaw"),
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
		c.alert = &guiding.Alert{Message: str("Msg"), Type: str("Type"), Time: at()}
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
