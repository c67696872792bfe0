// Quiet Temporal logging for tests: a workflow test suite (suite.go) and the clients and
// workers of the end-to-end tests log warnings and errors only, so a failing test shows what
// its workflow said and a passing one prints nothing.
package testenv

import (
	"log/slog"
	"os"
	"strings"
	"testing"

	"go.temporal.io/sdk/log"
)

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Quiet is a Temporal logger for a test's clients and workers: warnings and errors only,
// on stderr, for the same reason as Suite.
func Quiet() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}
