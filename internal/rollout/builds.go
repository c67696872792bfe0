// The watcher's half of a rollout: make its own build current once that build's workers poll,
// and remove the worker Deployments of the builds that have drained. Retire is the decision,
// pure; Builds.Run is the loop around it.
package rollout

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Worker is one worker Deployment and the build its label names.
type Worker struct {
	Name, Build string
}

// Retire lists the worker Deployments to remove: those of a build that is neither current nor
// the one being made current, and that Temporal says has drained (no pinned workflow open on
// it). A build Temporal has no drainage for stays: it may be the next build, whose workers are
// still starting while the last build's watcher leads. Without a current build nothing is
// removed.
func Retire(workers []Worker, current, own string, drained map[string]bool) []string {
	if current == "" {
		return nil
	}
	var out []string
	for _, w := range workers {
		if w.Build != current && w.Build != own && w.Build != "" && drained[w.Build] {
			out = append(out, w.Name)
		}
	}
	return out
}

// Builds is the watcher's rollout loop for one Worker Deployment.
type Builds struct {
	Temporal client.Client
	// Kube and Namespace find the worker Deployments (none in dev mode, whose workers are
	// processes).
	Kube      kubernetes.Interface
	Namespace string
	// Deployment is the Worker Deployment's name (the task queue), Build the build to make current.
	Deployment, Build string
	Every             time.Duration
	Log               *slog.Logger
}

// Run makes a pass at once and then every b.Every until ctx ends.
func (b Builds) Run(ctx context.Context) {
	for {
		if err := b.pass(ctx); err != nil && ctx.Err() == nil {
			b.Log.Warn("rollout: will try again", "deployment", b.Deployment, "build", b.Build, "err", err, "retryIn", b.Every)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(b.Every):
		}
	}
}

func (b Builds) pass(ctx context.Context) error {
	h := b.Temporal.WorkerDeploymentClient().GetHandle(b.Deployment)
	current, err := currentBuild(ctx, h)
	if err != nil {
		return err
	}
	if current != b.Build {
		if _, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: b.Build}); err != nil {
			b.Log.Info("waiting for this build's workers to poll before making it current", "deployment", b.Deployment,
				"build", b.Build, "current", current, "err", err)
			return nil
		}
		b.Log.Info("made this build current: new reservations run on it, those under way stay on theirs",
			"deployment", b.Deployment, "build", b.Build, "previous", current)
		current = b.Build
	}
	workers, err := b.workers(ctx)
	if err != nil {
		return err
	}
	drained := map[string]bool{}
	for _, w := range workers {
		if w.Build != current && w.Build != b.Build {
			drained[w.Build] = hasDrained(ctx, h, w.Build)
		}
	}
	for _, name := range Retire(workers, current, b.Build, drained) {
		err := b.Kube.AppsV1().Deployments(b.Namespace).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil {
			return err
		}
		b.Log.Info("removed the workers of a build that has drained: no reservation runs on it", "deployment", name)
	}
	return nil
}

// workers are the worker Deployments in the namespace, with their builds.
func (b Builds) workers(ctx context.Context) ([]Worker, error) {
	list, err := b.Kube.AppsV1().Deployments(b.Namespace).List(ctx, metav1.ListOptions{LabelSelector: WorkerSelector})
	if err != nil {
		return nil, err
	}
	out := make([]Worker, 0, len(list.Items))
	for _, d := range list.Items {
		out = append(out, Worker{Name: d.Name, Build: d.Labels[BuildLabel]})
	}
	return out, nil
}

// hasDrained asks Temporal whether build has drained; an error, or a build it does not know,
// counts as not drained.
func hasDrained(ctx context.Context, h client.WorkerDeploymentHandle, build string) bool {
	v, err := h.DescribeVersion(ctx, client.WorkerDeploymentDescribeVersionOptions{BuildID: build})
	return err == nil && v.Info.DrainageInfo != nil &&
		v.Info.DrainageInfo.DrainageStatus == client.WorkerDeploymentVersionDrainageStatusDrained
}
