// The client against the fake event server of phd2test, and against a raw pipe where a test
// must see exactly what goes over the wire: PHD2's greeting, its answers and refusals, the
// state its events tell, the line limit, and one call at a time.

package phd2_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"liken.sh/runner/phd2"
	"liken.sh/runner/phd2/guiding"
	"liken.sh/runner/phd2/phd2test"
)

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func dial(t *testing.T, s *phd2test.Server) *phd2.Client {
	t.Helper()
	c, err := phd2.Dial(testContext(t), s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// eventually polls cond until it holds, or fails the test after a few seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestDialWaitsForTheGreetingSoTheStateAndVersionAreKnown(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	s.SetState(guiding.StateGuiding)
	c := dial(t, s)
	if got := c.AppState(); got != guiding.StateGuiding {
		t.Errorf("AppState = %q, want Guiding", got)
	}
	if got := c.Version(); got != "2.6.13" {
		t.Errorf("Version = %q", got)
	}
	if n, err := c.Skipped(); n != 0 {
		t.Errorf("skipped %d lines of the greeting: %v", n, err)
	}
}

func TestDialToNothingFailsNamingTheServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = phd2.Dial(testContext(t), addr)
	var ce *phd2.ConnError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "phd2 server "+addr+" cannot be reached") {
		t.Fatalf("got %v", err)
	}
}

func TestDialToAServerThatNeverGreetsEndsWithTheContext(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		if c, err := ln.Accept(); err == nil {
			t.Cleanup(func() { c.Close() })
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = phd2.Dial(ctx, ln.Addr().String())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no greeting") {
		t.Fatalf("got %v", err)
	}
}

func TestSetConnectedConnectsTheEquipmentAndGetConnectedSaysWhenItIs(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	s.ConnectDelay(200 * time.Millisecond)
	c := dial(t, s)
	ctx := testContext(t)
	if ok, err := c.Connected(ctx); err != nil || ok {
		t.Fatalf("connected before set_connected: %v, %v", ok, err)
	}
	if err := c.SetConnected(ctx, true); err != nil {
		t.Fatal(err)
	}
	eventually(t, "get_connected true", func() bool {
		ok, err := c.Connected(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	})
	calls := s.Calls(phd2.MethodSetConnected)
	if len(calls) != 1 || string(calls[0].Params) != "[true]" || string(calls[0].ID) == "" {
		t.Fatalf("set_connected calls: %+v", calls)
	}
}

func TestARefusedSetConnectedCarriesPHD2sOwnWords(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	s.RefuseConnect("Camera Connect failed: INDI camera CCD Simulator not found")
	c := dial(t, s)
	err := c.SetConnected(testContext(t), true)
	var rpc *phd2.RPCError
	if !errors.As(err, &rpc) {
		t.Fatalf("got %v", err)
	}
	if rpc.Code != 1 || rpc.Method != phd2.MethodSetConnected || rpc.Message != "Camera Connect failed: INDI camera CCD Simulator not found" {
		t.Errorf("got %+v", rpc)
	}
	if !strings.Contains(err.Error(), "INDI camera CCD Simulator not found") || !strings.Contains(err.Error(), s.Addr) {
		t.Errorf("the error's text lacks PHD2's words or the server: %v", err)
	}
	if s.Connected() {
		t.Error("the refused equipment is connected")
	}
	if c.Err() != nil {
		t.Errorf("a refusal ended the connection: %v", c.Err())
	}
}

func TestStopCaptureStopsGuidingAndTheEventsSaySo(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	c := dial(t, s)
	s.SetState(guiding.StateGuiding)
	eventually(t, "AppState Guiding", func() bool { return c.AppState() == guiding.StateGuiding })
	ctx := testContext(t)
	if err := c.StopCapture(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := c.GetAppState(ctx)
	if err != nil || st != guiding.StateStopped {
		t.Fatalf("get_app_state = %q, %v", st, err)
	}
	eventually(t, "AppState Stopped", func() bool { return c.AppState() == guiding.StateStopped })
	if len(s.Calls(phd2.MethodStopCapture)) != 1 {
		t.Errorf("calls: %+v", s.Calls(""))
	}
}

func TestPHD2sEventsMoveTheAppState(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	c := dial(t, s)
	for _, tc := range []struct{ line, want string }{
		{`{"Event":"LoopingExposures","Frame":3}`, guiding.StateLooping},
		{`{"Event":"StartCalibration","Mount":"INDI Mount [Telescope Simulator]"}`, guiding.StateCalibrating},
		{`{"Event":"GuideStep","Frame":1,"dx":0.2,"dy":-0.1}`, guiding.StateGuiding},
		{`{"Event":"StarLost","Frame":2,"Status":"star lost"}`, guiding.StateLostLock},
		{`{"Event":"Paused"}`, guiding.StatePaused},
		{`{"Event":"GuidingStopped"}`, guiding.StateStopped},
		{`{"Event":"AppState","State":"Selected"}`, guiding.StateSelected},
		// SettleDone's "Error" is a string, not JSON-RPC's error: no state change, no skip.
		{`{"Event":"SettleDone","Status":1,"Error":"timed out","TotalFrames":3,"DroppedFrames":0}`, guiding.StateSelected},
		{`{"Event":"LoopingExposuresStopped"}`, guiding.StateStopped},
	} {
		s.Send(tc.line)
		// A call's answer comes after every line sent before it.
		if _, err := c.Connected(testContext(t)); err != nil {
			t.Fatal(err)
		}
		if got := c.AppState(); got != tc.want {
			t.Errorf("after %s: AppState = %q, want %q", tc.line, got, tc.want)
		}
	}
	if n, err := c.Skipped(); n != 0 {
		t.Errorf("skipped %d: %v", n, err)
	}
}

func TestAnAlertIsKept(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	c := dial(t, s)
	if _, ok := c.LastAlert(); ok {
		t.Fatal("an alert before any was sent")
	}
	s.Send(`{"Event":"Alert","Msg":"Guide star lost","Type":"warning"}`)
	eventually(t, "the alert", func() bool { _, ok := c.LastAlert(); return ok })
	if a, _ := c.LastAlert(); a != (guiding.Alert{Message: "Guide star lost", Type: "warning"}) {
		t.Errorf("got %+v", a)
	}
}

func TestAnUnknownMethodIsPHD2sMethodNotFound(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	c := dial(t, s)
	err := c.Call(testContext(t), "no_such_method", nil, nil)
	var rpc *phd2.RPCError
	if !errors.As(err, &rpc) || rpc.Code != -32601 || !strings.Contains(err.Error(), "method not found") {
		t.Fatalf("got %v", err)
	}
}

func TestAResultOfAnotherTypeIsAnErrorNotAPanic(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	s.Handle(phd2.MethodGetConnected, func(*phd2test.Server, phd2test.Request) (any, error) { return "yes", nil })
	c := dial(t, s)
	_, err := c.Connected(testContext(t))
	if err == nil || !strings.Contains(err.Error(), `answered "yes"`) {
		t.Fatalf("got %v", err)
	}
}

func TestLinesThatAreNotPHD2sAreSkippedAndTheConnectionGoesOn(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	c := dial(t, s)
	s.Send("not json")
	s.Send(`{"jsonrpc":"2.0","result":0,"id":999}`)
	if _, err := c.Connected(testContext(t)); err != nil {
		t.Fatal(err)
	}
	n, err := c.Skipped()
	if n != 2 || err == nil || !strings.Contains(err.Error(), "no call in flight") {
		t.Fatalf("skipped %d: %v", n, err)
	}
}

func TestAnAnswerWithIDZeroIsTheCallInFlights(t *testing.T) {
	t.Parallel()
	// PHD2 answers a request it could not read with id 0.
	s := phd2test.New(t)
	s.Handle(phd2.MethodStopCapture, func(*phd2test.Server, phd2test.Request) (any, error) { return nil, phd2test.NoAnswer })
	c := dial(t, s)
	errc := make(chan error, 1)
	go func() { errc <- c.StopCapture(testContext(t)) }()
	eventually(t, "stop_capture sent", func() bool { return len(s.Calls(phd2.MethodStopCapture)) == 1 })
	s.Send(`{"jsonrpc":"2.0","error":{"code":-32603,"message":"too big"},"id":0}`)
	err := <-errc
	var rpc *phd2.RPCError
	if !errors.As(err, &rpc) || rpc.Message != "too big" {
		t.Fatalf("got %v", err)
	}
}

func TestACallWithoutAnAnswerEndsWithItsContextAndTheNextCallWorks(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	s.Handle(phd2.MethodStopCapture, func(*phd2test.Server, phd2test.Request) (any, error) { return nil, phd2test.NoAnswer })
	c := dial(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.StopCapture(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "stop_capture: no answer") {
		t.Fatalf("got %v", err)
	}
	if _, err := c.GetAppState(testContext(t)); err != nil {
		t.Fatal(err)
	}
}

func TestALostServerFailsTheCallInFlight(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	s.Handle(phd2.MethodSetConnected, func(*phd2test.Server, phd2test.Request) (any, error) { return nil, phd2test.NoAnswer })
	c := dial(t, s)
	errc := make(chan error, 1)
	go func() { errc <- c.SetConnected(testContext(t), true) }()
	eventually(t, "set_connected sent", func() bool { return len(s.Calls(phd2.MethodSetConnected)) == 1 })
	s.Close()
	err := <-errc
	var ce *phd2.ConnError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "connection lost") {
		t.Fatalf("got %v", err)
	}
	if c.Err() == nil {
		t.Errorf("Err = %v", c.Err())
	}
}

func TestClosingTheClientFailsLaterCalls(t *testing.T) {
	t.Parallel()
	c := dial(t, phd2test.New(t))
	c.Close()
	err := c.StopCapture(testContext(t))
	if !errors.Is(err, phd2.ErrClosed) {
		t.Fatalf("got %v", err)
	}
}

func TestALineOverTheLimitEndsTheConnection(t *testing.T) {
	t.Parallel()
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close() })
	c := phd2.NewClient(client, "pipe", phd2.Limits{MaxLine: 64})
	t.Cleanup(func() { c.Close() })
	go func() { _, _ = fmt.Fprintf(server, `{"Event":"Alert","Msg":"%s"}`+"\r\n", strings.Repeat("x", 100)) }()
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection goes on")
	}
	var pe *phd2.ProtocolError
	if !errors.As(c.Err(), &pe) || !strings.Contains(c.Err().Error(), "pipe sent a stream we refuse: a line longer than 64 bytes") {
		t.Fatalf("got %v", c.Err())
	}
}

func TestARequestLongerThanPHD2ReadsIsNotSent(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	c := dial(t, s)
	err := c.Call(testContext(t), "set_profile", []string{strings.Repeat("p", 1100)}, nil)
	var re *phd2.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("got %v", err)
	}
	if n := len(s.Calls("")); n != 0 {
		t.Errorf("%d calls reached the server", n)
	}
}

// PHD2 discards a request that arrives together with another, so a second call waits until
// the first is answered: the server never sees two requests at once.
func TestCallsGoOneAtATime(t *testing.T) {
	t.Parallel()
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close() })
	c := phd2.NewClient(client, "pipe", phd2.Limits{})
	t.Cleanup(func() { c.Close() })

	const calls = 4
	serverErr := make(chan error, 1)
	go func() {
		r := bufio.NewReader(server)
		for i := range calls {
			line, err := r.ReadString('\n')
			if err != nil {
				serverErr <- err
				return
			}
			// Nothing more may come before this one is answered.
			_ = server.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if _, err := r.Peek(1); err == nil {
				serverErr <- fmt.Errorf("request %d came with another: %q", i, line)
				return
			}
			_ = server.SetReadDeadline(time.Time{})
			id := line[strings.LastIndex(line, ":")+1 : strings.LastIndex(line, "}")]
			if _, err := fmt.Fprintf(server, `{"jsonrpc":"2.0","result":true,"id":%s}`+"\r\n", id); err != nil {
				serverErr <- err
				return
			}
		}
		serverErr <- nil
	}()
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			if ok, err := c.Connected(testContext(t)); err != nil || !ok {
				t.Errorf("got %v, %v", ok, err)
			}
		})
	}
	wg.Wait()
	if err := <-serverErr; err != nil {
		t.Fatal(err)
	}
}

func TestGuidingKeepsTheLastStepsTheCalibrationAndTheAlert(t *testing.T) {
	t.Parallel()
	s := phd2test.New(t)
	c := dial(t, s)
	ctx := testContext(t)
	if ok, err := c.GetCalibrated(ctx); err != nil || ok {
		t.Fatalf("get_calibrated = %v, %v before any calibration", ok, err)
	}
	s.SetPixelScale(1.25)
	if v, err := c.PixelScale(ctx); err != nil || v != 1.25 {
		t.Fatalf("get_pixel_scale = %v, %v", v, err)
	}
	s.Calibrate()
	for i := range guiding.MaxSteps + 5 {
		s.Step(float64(i), -float64(i), 20, 2.5)
	}
	s.Alert("Star lost", "warning")
	// A call's answer comes after every line sent before it.
	if _, err := c.Connected(ctx); err != nil {
		t.Fatal(err)
	}
	g := c.Guiding()
	if g.State != guiding.StateGuiding || !g.Calibrated {
		t.Errorf("state %q, calibrated %v", g.State, g.Calibrated)
	}
	if len(g.Steps) != guiding.MaxSteps || g.Steps[0].RA != 5 || g.Steps[guiding.MaxSteps-1].Dec != -104 {
		t.Errorf("kept %d steps, from RA %v to Dec %v: want the last %d", len(g.Steps), g.Steps[0].RA, g.Steps[len(g.Steps)-1].Dec, guiding.MaxSteps)
	}
	if st := g.Steps[0]; st.SNR != 20 || st.HFD != 2.5 || time.Since(st.Time) > time.Minute {
		t.Errorf("step %+v", st)
	}
	if g.Alert == nil || g.Alert.Message != "Star lost" || g.Alert.Type != "warning" || g.Alert.Time.IsZero() {
		t.Errorf("alert %+v", g.Alert)
	}
	before := c.Events()

	// A new calibration forgets the old one until it completes; a new guiding run starts
	// its steps afresh.
	s.Send(`{"Event":"StartCalibration","Mount":"INDI Mount"}`)
	s.Send(`{"Event":"StartGuiding"}`)
	if _, err := c.Connected(ctx); err != nil {
		t.Fatal(err)
	}
	if g := c.Guiding(); g.Calibrated || len(g.Steps) != 0 {
		t.Errorf("after a new calibration and guiding: calibrated %v, %d steps", g.Calibrated, len(g.Steps))
	}
	if c.Events() != before+2 {
		t.Errorf("events %d, want %d", c.Events(), before+2)
	}
}
