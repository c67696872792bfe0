// Twelve hours of a condition changing each minute keep each run's history bounded, as the
// Reservation workflow continues as new.
package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TestTwelveHoursOfAConditionChangingEachMinuteKeepEachRunsHistoryBounded sends a Ready
// reservation, on a real Temporal server, the 720 condition signals of a 12-hour session
// whose weather changes every minute, each answered by a pass over the triggers. The run
// continues as new whenever its history passes the limit (lowered here, so that the test
// shows several runs), and no run's history grows much past it.
func TestTwelveHoursOfAConditionChangingEachMinuteKeepEachRunsHistoryBounded(t *testing.T) {
	old := reservationHistoryLimit
	reservationHistoryLimit = 1000
	t.Cleanup(func() { reservationHistoryLimit = old })

	f := newFakeSite(t)
	f.telescope("east", "lab")
	q := f.startWorker()
	f.reserve(q, "a", "east", time.Now().Add(-time.Minute), nil)
	f.await("a", "became Ready", phaseIs(obsv1.ReservationReady))
	ctx := context.Background()
	id := contract.ReservationID(f.ns, "a")
	// One change a minute: each signal is answered by its own pass before the next comes.
	for i := range int64(12 * 60) {
		before := f.passes.Load()
		require.NoError(t, f.c.SignalWorkflow(ctx, id, "", contract.ReservationChanged, contract.ReservationChange{Why: contract.WhyCondition}))
		require.Eventually(t, func() bool { return f.passes.Load() > before }, 30*time.Second, time.Millisecond,
			"the pass for change %d", i)
	}
	f.remove("a")
	f.await("a", "was Released", phaseIs(obsv1.ReservationReleased))

	resp, err := f.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: "WorkflowId = '" + id + "'"})
	require.NoError(t, err)
	continued, largest := 0, 0
	for _, e := range resp.Executions {
		events, bytes := 0, 0
		it := f.c.GetWorkflowHistory(ctx, id, e.GetExecution().GetRunId(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(t, err)
			events++
			bytes += ev.Size()
		}
		t.Logf("run %s: %s, %d events, %d KiB", e.GetExecution().GetRunId(), e.GetStatus(), events, bytes/1024)
		largest = max(largest, events)
		if e.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
			continued++
		}
	}
	assert.GreaterOrEqual(t, continued, 5, "720 passes make several runs of a 1000-event limit")
	// A run checks its length between two waits: one wait's signals and pass pass it by little.
	assert.LessOrEqual(t, largest, reservationHistoryLimit+300)
}
