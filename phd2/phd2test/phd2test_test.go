// These tests read the fake's wire as raw lines, to hold it to what PHD2 sends: the greeting
// in PHD2's order with CR LF after each line, answers with "jsonrpc" and the request's id,
// PHD2's refusal of a bad parameter, and no answer to a notification.

package phd2test_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"liken.sh/runner/phd2/guiding"
	"liken.sh/runner/phd2/phd2test"
)

func rawDial(t *testing.T, s *phd2test.Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

func readLine(t *testing.T, r *bufio.Reader) map[string]any {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(line, "\r\n") {
		t.Fatalf("%q does not end in CR LF", line)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	return m
}

func TestTheGreetingIsVersionThenTheStatesEventsThenAppState(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	s.SetState(guiding.StatePaused)
	_, r := rawDial(t, s)
	var events []string
	for range 3 {
		m := readLine(t, r)
		for _, k := range []string{"Event", "Timestamp", "Host", "Inst"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%v lacks %s", m, k)
			}
		}
		events = append(events, fmt.Sprint(m["Event"]))
		if m["Event"] == "AppState" && m["State"] != guiding.StatePaused {
			t.Errorf("AppState %v", m["State"])
		}
	}
	if got := strings.Join(events, " "); got != "Version Paused AppState" {
		t.Errorf("greeting %s", got)
	}
}

func TestAnswersCarryTheRequestsIDAndABadParameterIsRefused(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	c, r := rawDial(t, s)
	for range 2 {
		readLine(t, r) // Version, AppState
	}
	fmt.Fprint(c, `{"method":"set_connected","params":["yes"],"id":7}`+"\r\n")
	m := readLine(t, r)
	e, _ := m["error"].(map[string]any)
	if m["jsonrpc"] != "2.0" || m["id"] != 7.0 || e["code"] != -32602.0 {
		t.Errorf("got %v", m)
	}
	// A notification (no id) is done but not answered; the next call's answer comes first.
	fmt.Fprint(c, `{"method":"set_connected","params":{"connected":true}}`+"\r\n")
	fmt.Fprint(c, `{"method":"get_connected","id":"a"}`+"\r\n")
	m = readLine(t, r)
	if m["id"] != "a" || m["result"] != true {
		t.Errorf("got %v", m)
	}
}
