// The watcher binary as an operator runs it, against a real API server and Temporal: it reports
// ready and stops cleanly on SIGTERM, and refuses an unknown log format or side.
package main

import (
	"net/http"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, testenv.Options{Kube: true, Temporal: true}, &env) }

func TestTheWatcherReportsReadyAndStopsCleanlyOnSIGTERM(t *testing.T) {
	p := env.StartProgram(t, env.Build(t, "./cmd/watcher"))
	p.WaitReady()
	require.Equal(t, http.StatusOK, p.Status("/healthz"))
	// Prometheus metrics: its side's counters (this stack has no Lease namespace, so it
	// waits to lead), client-go's requests, the Temporal SDK's.
	m := p.Get("/metrics")
	for _, want := range []string{
		`liken_watcher_leading{side="people"} 0`, `rest_client_requests_total{`, `temporal_request{`,
	} {
		require.Contains(t, m, want)
	}
	p.Stop()
}

func TestTheWatcherRefusesAnUnknownLogFormat(t *testing.T) {
	bin := env.Build(t, "./cmd/watcher")
	out, err := exec.Command(bin, "--log-format=xml").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "--log-format \"xml\": use json or text")
}

func TestTheWatcherRefusesAnUnknownSide(t *testing.T) {
	bin := env.Build(t, "./cmd/watcher")
	cmd := exec.Command(bin, "--side=telescopes")
	cmd.Env = append(os.Environ(), "LIKEN_WATCHER_SIDE=")
	out, err := cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "--side \"telescopes\": use people, observatory or all")
}
