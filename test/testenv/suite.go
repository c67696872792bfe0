// A Temporal workflow test suite that logs quietly.
package testenv

import (
	"log/slog"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
)

// Suite is a Temporal test suite that logs warnings and errors through t.Log,
// so a failing test shows what its workflow said and a passing package prints
// nothing: the SDK's default logger writes every DEBUG line to stdout, which
// buried the one failing line of a CI run under thousands of others.
func Suite(t testing.TB) *testsuite.WorkflowTestSuite {
	s := &testsuite.WorkflowTestSuite{}
	h := slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})
	s.SetLogger(log.NewStructuredLogger(slog.New(h)))
	return s
}
