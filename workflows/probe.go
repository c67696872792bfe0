// Package workflows holds the lifecycles the worker runs, as deterministic Temporal workflow
// code: every side effect is an activity, every wait a durable timer or a signal.
//
// Probe is the smallest whole lifecycle: it runs one activity on a worker and returns what the
// worker saw of its cluster. `make run` starts it to show the path watcher → Temporal → worker
// → Kubernetes works, and the smoke test proves it on the real stack.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ProbeResult is what the worker saw.
type ProbeResult struct {
	KubernetesVersion string
}

// probeActivity is short: the API server answers within a second or not at all. A few quick
// retries ride over a server that is still starting.
var probeActivity = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Second,
	RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
}

// Probe asks one worker which Kubernetes version it talks to.
func Probe(ctx workflow.Context) (ProbeResult, error) {
	opts := probeActivity
	opts.Summary = "ask the cluster which version it runs"
	ctx = workflow.WithActivityOptions(ctx, opts)
	var r ProbeResult
	err := workflow.ExecuteActivity(ctx, probeActs.KubernetesVersion).Get(ctx, &r.KubernetesVersion)
	return r, err
}
