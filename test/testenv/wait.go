// What the end-to-end tests share besides the stack: a Temporal client that lives as long as
// the test, the environment that points the runner at the stack's Temporal, and a poll that
// fails with the last state it saw.
package testenv

import (
	"log/slog"
	"os"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"liken.sh/runner/internal/app"
)

// Temporal dials the stack's Temporal; the client closes when the test ends.
func (e *Env) Temporal(t testing.TB) client.Client {
	t.Helper()
	c, err := e.DialTemporal()
	if err != nil {
		t.Fatalf("dial Temporal at %s: %v", e.TemporalAddress, err)
	}
	t.Cleanup(c.Close)
	return c
}

// DialTemporal builds a client of the stack's Temporal as the runner builds its own, with
// the stack's TLS and API key when it has them.
func (e *Env) DialTemporal() (client.Client, error) {
	cfg := app.Config{TemporalAddress: e.TemporalAddress, TemporalNamespace: "default"}
	if sec := e.Stack.TemporalSecurity; sec != nil {
		cfg.TemporalSecurity = *sec
	}
	return cfg.Temporal("test", slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), nil)
}

// TemporalEnv is the environment that points the runner's binaries at the stack's Temporal.
func (e *Env) TemporalEnv() []string {
	env := []string{"TEMPORAL_ADDRESS=" + e.TemporalAddress}
	if sec := e.Stack.TemporalSecurity; sec != nil {
		env = append(env, sec.Env()...)
	}
	return env
}

// Eventually polls cond until it holds, failing with the last state it saw.
func Eventually(t testing.TB, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var last string
	for time.Now().Before(deadline) {
		var ok bool
		if ok, last = cond(); ok {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s within %s; last seen: %s", what, limit, last)
}
