// The worker binary as users run it: it completes a Probe workflow against the real stack, and
// `bake` is one of its subcommands (what baker pods run).
package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/test/testenv"
	"liken.sh/runner/workflows"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, testenv.Options{Kube: true, Temporal: true}, &env) }

// TestTheWorkerCompletesAProbeWorkflowAgainstTheRealStack runs the built binary as users do,
// with flags from the environment, and checks each promise of a worker: started before
// Temporal answers (as after a site's power cut), it waits, unready and saying why, instead of
// exiting; then it polls its task queue, its activity reaches Kubernetes, it reports ready,
// and SIGTERM stops it cleanly.
func TestTheWorkerCompletesAProbeWorkflowAgainstTheRealStack(t *testing.T) {
	bin := env.Build(t, "./cmd/worker")
	queue := "smoke-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	port, err := localstack.FreePort()
	require.NoError(t, err)
	temporal := "127.0.0.1:" + strconv.Itoa(port) // where nothing listens yet
	p := env.StartProgram(t, bin, "LIKEN_TASK_QUEUE="+queue, "TEMPORAL_ADDRESS="+temporal)
	var why string
	require.Eventually(t, func() bool { why = readyz(p); return strings.Contains(why, "connection refused") },
		30*time.Second, 100*time.Millisecond, "the worker says why it is unready: %q", why)
	forward(t, temporal, env.TemporalAddress)
	p.WaitReady()

	c, err := client.Dial(client.Options{HostPort: env.TemporalAddress, Logger: testenv.Quiet()})
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "probe-" + queue, TaskQueue: queue}, contract.ProbeWorkflow)
	require.NoError(t, err)
	var r workflows.ProbeResult
	require.NoError(t, run.Get(ctx, &r))
	require.Equal(t, localstack.KubeVersion, r.KubernetesVersion)

	// Prometheus metrics: the SDK's (the probe's workflow and activity), client-go's. The SDK
	// counts a completed workflow once the server has taken the completion, which can be
	// after the client has read the result: so wait a little for each.
	for _, want := range []string{
		`temporal_workflow_completed{`,
		`temporal_activity_execution_latency_seconds_bucket{activity_type="KubernetesVersion"`,
		`temporal_workflow_task_schedule_to_start_latency_seconds_bucket{`,
		`rest_client_requests_total{code="200"`,
		`go_goroutines `,
	} {
		require.Eventually(t, func() bool { return strings.Contains(p.Get("/metrics"), want) },
			10*time.Second, 100*time.Millisecond, "/metrics has %s", want)
	}

	p.Stop()
}

func TestBakeIsASubcommandOfTheWorkerBinary(t *testing.T) {
	bin := env.Build(t, "./cmd/worker")
	out, err := exec.Command(bin, "bake").Output()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 2, exit.ExitCode(), "bake without arguments is a usage error")
	require.Contains(t, string(out), "reason")
}

func TestTheWorkflowCacheHoldsAThousandUnlessTold(t *testing.T) {
	o, err := parseFlags(nil)
	require.NoError(t, err)
	require.Equal(t, 1000, o.cacheSize)
	t.Setenv("LIKEN_WORKFLOW_CACHE_SIZE", "250")
	o, err = parseFlags(nil)
	require.NoError(t, err)
	require.Equal(t, 250, o.cacheSize, "from the environment")
	o, err = parseFlags([]string{"--workflow-cache-size", "40"})
	require.NoError(t, err)
	require.Equal(t, 40, o.cacheSize, "the flag wins")
	_, err = parseFlags([]string{"--workflow-cache-size", "0"})
	require.Error(t, err)
	t.Setenv("LIKEN_WORKFLOW_CACHE_SIZE", "many")
	_, err = parseFlags(nil)
	require.Error(t, err)
}

// readyz is what the program's /readyz says, whatever its status.
func readyz(p *testenv.Program) string {
	resp, err := http.Get(p.Health + "/readyz")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// forward listens on from and forwards each connection to to, until the test ends: a
// Temporal that comes up late.
func forward(t *testing.T, from, to string) {
	l, err := net.Listen("tcp", from)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", to)
			if err != nil {
				in.Close()
				continue
			}
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
}
