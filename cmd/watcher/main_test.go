package main

import (
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"liken.sh/runner/internal/stack"
	"liken.sh/runner/internal/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, testenv.Options{Kube: true, Temporal: true}, &env) }

func TestTheWatcherReportsReadyAndStopsCleanlyOnSIGTERM(t *testing.T) {
	bin := env.Build(t, "./cmd/watcher")
	port, err := stack.FreePort()
	require.NoError(t, err)
	health := "http://127.0.0.1:" + strconv.Itoa(port)

	cmd := exec.Command(bin, "--kubeconfig="+env.Kubeconfig, "--temporal-address="+env.TemporalAddress,
		"--health-address=127.0.0.1:"+strconv.Itoa(port), "--log-format=text")
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })

	require.Eventually(t, func() bool { return status(health+"/readyz") == http.StatusOK },
		30*time.Second, 100*time.Millisecond, "the watcher never reported ready")
	require.Equal(t, http.StatusOK, status(health+"/healthz"))

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		require.NoError(t, err, "the watcher should exit 0 on SIGTERM")
	case <-time.After(30 * time.Second):
		t.Fatal("the watcher did not stop within 30s of SIGTERM")
	}
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

func status(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
