// What the end-to-end tests share besides the stack: a Temporal client that lives as long as
// the test, and a poll that fails with the last state it saw.
package testenv

import (
	"testing"
	"time"

	"go.temporal.io/sdk/client"
)

// Temporal dials the stack's Temporal; the client closes when the test ends.
func (e *Env) Temporal(t testing.TB) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: e.TemporalAddress, Logger: Quiet()})
	if err != nil {
		t.Fatalf("dial Temporal at %s: %v", e.TemporalAddress, err)
	}
	t.Cleanup(c.Close)
	return c
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
