// What Temporal itself says of a workflow's Worker Versioning, for the tests of upgrades: the
// closing proof that a night ran on the build it started on is Temporal's own describe, and
// its history names the worker of each activity.
package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// RequireRunsOn checks that the workflow id has the versioning behavior and that its last
// task ran on build, and logs what it saw.
func RequireRunsOn(t testing.TB, c client.Client, id string, behavior enumspb.VersioningBehavior, build string) {
	t.Helper()
	d, err := c.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	v := d.GetWorkflowExecutionInfo().GetVersioningInfo()
	require.Equal(t, behavior, v.GetBehavior(), "%s's versioning behavior", id)
	require.Equal(t, build, v.GetDeploymentVersion().GetBuildId(), "the build %s runs on", id)
	t.Logf("%s: %s on build %s (%s)", id, v.GetBehavior(), build, d.GetWorkflowExecutionInfo().GetStatus())
}

// AwaitCurrentBuild waits, at most limit, until build is the current version of the Worker
// Deployment deployment.
func AwaitCurrentBuild(t testing.TB, c client.Client, deployment, build string, limit time.Duration) {
	t.Helper()
	h := c.WorkerDeploymentClient().GetHandle(deployment)
	Eventually(t, limit, "build "+build+" became current", func() (bool, string) {
		d, err := h.Describe(context.Background(), client.WorkerDeploymentDescribeOptions{})
		if err != nil {
			return false, err.Error()
		}
		cv := d.Info.RoutingConfig.CurrentVersion
		return cv != nil && cv.BuildID == build, fmt.Sprintf("current: %+v", cv)
	})
}

// RequireActivitiesSince waits until activities of the workflow id have completed since
// since, and checks that each ran on a worker whose identity on accepts: a pinned night's
// steps stay on its build's workers. (A started event is written only when its activity ends.)
func RequireActivitiesSince(t testing.TB, c client.Client, id string, since time.Time, on func(identity string) bool) {
	t.Helper()
	Eventually(t, time.Minute, "activities of "+id+" completed after the upgrade", func() (bool, string) {
		var seen []string
		it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			require.NoError(t, err)
			if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && e.GetEventTime().AsTime().After(since) {
				seen = append(seen, a.GetIdentity())
				require.True(t, on(a.GetIdentity()), "an activity of %s ran on %s after the upgrade, not on its build's worker", id, a.GetIdentity())
			}
		}
		return len(seen) > 0, fmt.Sprintf("completed on %v", seen)
	})
}
