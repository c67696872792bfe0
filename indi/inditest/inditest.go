// Package inditest runs real INDI servers for tests: Debian's indiserver with the simulator
// drivers of indi-bin (through indi/indiserver), stopped when the test ends, and a scriptable
// fake for what the simulators cannot show. There is no skipping: a machine without
// indiserver fails, saying how to install it.
package inditest

import (
	"context"
	"testing"
	"time"

	"liken.sh/runner/indi/indiserver"
	"liken.sh/runner/internal/localstack"
)

// Tests run inside the repository: their indiservers preload the tool cache's loopback.so
// unless the environment names another.
func init() { localstack.ExportLoopback() }

// startTimeout bounds Start: the simulators define their devices in well under a second, but
// the test machine may be busy.
const startTimeout = 30 * time.Second

// Start launches indiserver with the given drivers (see indiserver.Launch), stops it when the
// test ends, and returns its address.
func Start(t testing.TB, drivers ...string) string {
	t.Helper()
	return StartServer(t, drivers...).Addr
}

// StartServer is Start for tests that also need the Server, to kill it or read its log.
func StartServer(t testing.TB, drivers ...string) *indiserver.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := indiserver.Launch(ctx, t.TempDir(), drivers...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("indiserver log:\n%s", s.Log())
		}
	})
	return s
}
