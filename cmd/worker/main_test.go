package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"liken.sh/runner/internal/stack"
	"liken.sh/runner/internal/testenv"
	"liken.sh/runner/workflows"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, testenv.Options{Kube: true, Temporal: true}, &env) }

// TestTheWorkerCompletesAProbeWorkflowAgainstTheRealStack runs the built binary as users do,
// with flags from the environment, and checks each promise of a worker: it polls its task
// queue, its activity reaches Kubernetes, it reports ready, and SIGTERM stops it cleanly.
func TestTheWorkerCompletesAProbeWorkflowAgainstTheRealStack(t *testing.T) {
	bin := env.Build(t, "./cmd/worker")
	port, err := stack.FreePort()
	require.NoError(t, err)
	health := "127.0.0.1:" + strconv.Itoa(port)
	queue := "smoke-" + strconv.FormatInt(time.Now().UnixNano(), 36)

	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+env.Kubeconfig, "TEMPORAL_ADDRESS="+env.TemporalAddress,
		"LIKEN_TASK_QUEUE="+queue, "LIKEN_HEALTH_ADDRESS="+health)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })

	require.Eventually(t, func() bool { return get("http://"+health+"/readyz") == http.StatusOK },
		30*time.Second, 100*time.Millisecond, "the worker never reported ready")

	c, err := client.Dial(client.Options{HostPort: env.TemporalAddress})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "probe-" + queue, TaskQueue: queue}, workflows.ProbeWorkflow)
	require.NoError(t, err)
	var r workflows.ProbeResult
	require.NoError(t, run.Get(ctx, &r))
	require.Equal(t, stack.KubeVersion, r.KubernetesVersion)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-exited:
		require.NoError(t, err, "the worker should exit 0 on SIGTERM")
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not stop within 30s of SIGTERM")
	}
}

func TestBakeIsASubcommandOfTheWorkerBinary(t *testing.T) {
	bin := env.Build(t, "./cmd/worker")
	out, err := exec.Command(bin, "bake").Output()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 2, exit.ExitCode(), "bake without arguments is a usage error")
	require.Contains(t, string(out), "reason")
}

func get(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
