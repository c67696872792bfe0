// Package rollout moves the runner from one build to the next without changing a night under
// way, with Temporal's Worker Versioning. Each worker build is a version of the Worker
// Deployment named after the task queue; a Reservation is Pinned, so it ends on the build that
// started it, while the long-lived workflows move to the current build (workflows/register.go).
//
// Two parts act. The worker makes its build current when the deployment has none yet (a first
// install, a test stack): ClaimIfNone. The people side's watcher makes its own build current
// once that build's workers poll, and removes the Kubernetes Deployment of every other build
// that Temporal says has drained, that is, has no pinned workflow left open: Builds. So a
// release's `kubectl apply` adds the new build's Deployment beside the old one, and the old
// one goes when its last night has ended.
package rollout

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// BuildLabel is the label on a worker Deployment (and its pods) that names its build, as the
// worker's LIKEN_BUILD_ID reads it.
const BuildLabel = "liken.sh/build"

// WorkerSelector selects the runner's worker Deployments among others in their namespace.
const WorkerSelector = "app.kubernetes.io/component=worker,app.kubernetes.io/part-of=liken"

// Version is the worker's version: build of the Worker Deployment named after the task queue.
func Version(taskQueue, build string) worker.WorkerDeploymentVersion {
	return worker.WorkerDeploymentVersion{DeploymentName: taskQueue, BuildID: build}
}

// ClaimIfNone makes build the deployment's current version whenever it has none, until ctx
// ends: at the start, when the server knows a version only once its workers poll, and after a
// Temporal that lost its state (a bundled server's volume wiped), which would otherwise leave
// every new workflow waiting for an unversioned worker that never comes.
func ClaimIfNone(ctx context.Context, tc client.Client, v worker.WorkerDeploymentVersion, log *slog.Logger) {
	h := tc.WorkerDeploymentClient().GetHandle(v.DeploymentName)
	for wait := 200 * time.Millisecond; ; {
		current, err := currentBuild(ctx, h)
		if err == nil && current == "" {
			if _, err = h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: v.BuildID}); err == nil {
				log.Info("made this build current: the deployment had none", "deployment", v.DeploymentName, "build", v.BuildID)
				current = v.BuildID
			}
		}
		if current != "" {
			wait = time.Minute
		} else {
			log.Debug("the deployment has no current build yet", "deployment", v.DeploymentName, "err", err)
			wait = min(2*wait, 10*time.Second)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// currentBuild is the deployment's current build, or empty when it has none (or does not
// exist yet: no worker has polled).
func currentBuild(ctx context.Context, h client.WorkerDeploymentHandle) (string, error) {
	d, err := h.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if cv := d.Info.RoutingConfig.CurrentVersion; cv != nil {
		return cv.BuildID, nil
	}
	return "", nil
}
