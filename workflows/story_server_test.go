// What the Temporal UI shows of the reservations, asked of a real Temporal server as the UI
// asks it: the words each workflow started with (DescribeWorkflowExecution), the summary of
// every activity, local activity and timer in the history (its user metadata), the current
// details, and the search attributes of every run, continued and started again.
package workflows

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestEveryWorkflowActivityAndTimerOfAReservationSaysInWordsWhatItDoes(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	q := f.startWorker()
	ctx := context.Background()
	end := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	f.reserve(q, "tonight", "east", time.Now().Add(-time.Minute), nil)
	f.mu.Lock()
	f.reservations["tonight"].Spec.End = mt(end.Format(time.RFC3339))
	f.mu.Unlock()
	id := contract.ReservationID(f.ns, "tonight")
	require.NoError(t, f.c.SignalWorkflow(ctx, id, "", contract.ReservationChanged, contract.ReservationChange{Why: "updated"}))
	f.await("tonight", "became Ready", phaseIs(obsv1.ReservationReady))

	// While Ready, the current details say so and where to connect.
	require.Eventually(t, func() bool {
		return strings.HasPrefix(currentDetails(t, f.c, id), "**Ready**\n\nINDI server: `east-telescope."+f.ns+".svc:7624`")
	}, 10*time.Second, 50*time.Millisecond, "the current details while Ready: %q", currentDetails(t, f.c, id))

	f.remove("tonight")
	f.await("tonight", "was Released", phaseIs(obsv1.ReservationReleased))
	f.ended(contract.TelescopeLockID(f.ns, "east"))
	f.ended(contract.SiteTurnsID(f.ns, "lab"))

	// Each workflow's words, as the list and its page show them.
	for wid, want := range map[string]contract.Words{
		id:                                     contract.ReservationWords(f.ns, "tonight", obsv1.ReservationSpec{Telescope: "east", Holder: "holder-of-tonight"}),
		contract.TelescopeLockID(f.ns, "east"): TelescopeLockWords(f.ns, "east"),
		contract.SiteTurnsID(f.ns, "lab"):      SiteTurnsWords(f.ns, "lab"),
	} {
		d, err := f.c.DescribeWorkflow(ctx, wid, "")
		require.NoError(t, err)
		summary, err := d.GetStaticSummary()
		require.NoError(t, err)
		details, err := d.GetStaticDetails()
		require.NoError(t, err)
		assert.Equal(t, want.Summary, summary, wid)
		assert.Equal(t, want.Details, details, wid)
	}
	d, err := f.c.DescribeWorkflow(ctx, contract.TelescopeLockID(f.ns, "east"), "")
	require.NoError(t, err)
	tel, _ := d.TypedSearchAttributes.GetKeyword(contract.SearchTelescope)
	assert.Equal(t, "east", tel, "the telescope's lock is listed under its Telescope too")

	// Every command that the history shows has words.
	summaries := historySummaries(t, f.c, id)
	for _, s := range summaries {
		assert.NotEmpty(t, s.summary, "event %d (%s, %s) has no summary", s.id, s.typ, s.name)
	}
	byName := map[string][]string{}
	for _, s := range summaries {
		byName[s.name] = append(byName[s.name], s.summary)
	}
	assert.Equal(t, []string{"Mount east, Camera east-main"}, byName["StartDevices"], "the devices PowerOn named")
	assert.Equal(t, []string{"Camera east-main, Mount east"}, byName["StopDevices"])
	assert.Equal(t, []string{"Telescope east's INDI server, Switches and power"}, byName["PowerOn"])
	assert.Equal(t, []string{"end at " + contract.At(end)}, byName["timer"], "the one timer is the end")
	assert.Contains(t, byName["SignalCoordinator"], "ask Telescope east's lock to take")
	assert.Contains(t, byName["ObserveDevices"], "the status of the devices of Telescope east and Observatory lab, while Ready")
	for _, name := range []string{"ReadReservation", "WriteReservationStatus", "AddDeactivateFinalizer", "RemoveDeactivateFinalizer", "RunTriggers"} {
		assert.NotEmpty(t, byName[name], "no %s in the history", name)
	}
}

func TestContinuedAndRestartedRunsOfAReservationCarryItsSearchAttributes(t *testing.T) {
	old := reservationReadLimit
	reservationReadLimit = 3
	t.Cleanup(func() { reservationReadLimit = old })
	f := newFakeSite(t)
	f.telescope("east", "lab")
	q := f.startWorker()
	ctx := context.Background()
	f.reserve(q, "long", "east", time.Now().Add(-time.Minute), nil)
	f.await("long", "became Ready", phaseIs(obsv1.ReservationReady))
	id := contract.ReservationID(f.ns, "long")
	first, err := f.c.DescribeWorkflow(ctx, id, "")
	require.NoError(t, err)

	// A few looks while Ready pass the read limit: the run continues as new.
	require.Eventually(t, func() bool {
		_ = f.c.SignalWorkflow(ctx, id, "", contract.ReservationChanged, contract.ReservationChange{Why: "resync"})
		d, err := f.c.DescribeWorkflow(ctx, id, "")
		return err == nil && d.WorkflowExecution.RunID != first.WorkflowExecution.RunID
	}, 20*time.Second, 200*time.Millisecond, "the run never continued as new")
	runs := listRuns(t, f.c, id, "")
	require.GreaterOrEqual(t, len(runs), 2)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, runs[len(runs)-1].GetStatus(), "the oldest run continued as new")

	f.remove("long")
	f.await("long", "was Released", phaseIs(obsv1.ReservationReleased))
	require.Eventually(t, func() bool {
		d, err := f.c.DescribeWorkflow(ctx, id, "")
		return err == nil && d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}, 20*time.Second, 50*time.Millisecond)
	// The watcher's resync signals the Released reservation: a run starts again, and ends.
	runs = listRuns(t, f.c, id, "")
	_, err = f.c.SignalWithStartWorkflow(ctx, id, contract.ReservationChanged, contract.ReservationChange{Why: "resync"},
		client.StartWorkflowOptions{ID: id, TaskQueue: q}, contract.ReservationWorkflow, contract.ReservationInput{Namespace: f.ns, Name: "long"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		rs := listRuns(t, f.c, id, "")
		return len(rs) == len(runs)+1 && rs[0].GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}, 20*time.Second, 100*time.Millisecond, "the run started again did not end")

	// The list a person filters by telescope and holder shows every run: the first, those
	// that continued, and the one started again without the watcher's words.
	all := listRuns(t, f.c, id, "")
	byTelescope := listRuns(t, f.c, id, `Telescope = "east" AND Holder = "holder-of-long"`)
	assert.Len(t, byTelescope, len(all), "every run is listed by its Telescope and Holder")
	released := listRuns(t, f.c, id, `Phase = "Released"`)
	require.NotEmpty(t, released)
	assert.Equal(t, all[0].GetExecution().GetRunId(), released[0].GetExecution().GetRunId(), "the run started again says Released")
}

// currentDetails asks a running workflow for its current details, as the UI does.
func currentDetails(t *testing.T, c client.Client, id string) string {
	t.Helper()
	v, err := c.QueryWorkflow(context.Background(), id, "", "__temporal_workflow_metadata")
	if err != nil {
		return ""
	}
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	return md.GetCurrentDetails()
}

// eventWords is one history event's summary.
type eventWords struct {
	id      int64
	typ     enumspb.EventType
	name    string // the activity type, or "timer"
	summary string
}

// historySummaries lists the summary of every activity, local activity and timer of the
// workflow's latest run.
func historySummaries(t *testing.T, c client.Client, id string) []eventWords {
	t.Helper()
	dc := converter.GetDefaultDataConverter()
	text := func(p *commonpb.Payload) string {
		var s string
		if p != nil {
			require.NoError(t, dc.FromPayload(p, &s))
		}
		return s
	}
	var out []eventWords
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		w := eventWords{id: ev.GetEventId(), typ: ev.GetEventType(), summary: text(ev.GetUserMetadata().GetSummary())}
		switch {
		case ev.GetActivityTaskScheduledEventAttributes() != nil:
			w.name = ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
		case ev.GetTimerStartedEventAttributes() != nil:
			w.name = "timer"
		case ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "LocalActivity":
			var md struct{ ActivityType string }
			require.NoError(t, dc.FromPayloads(ev.GetMarkerRecordedEventAttributes().GetDetails()["data"], &md))
			w.name = md.ActivityType
		default:
			continue
		}
		out = append(out, w)
	}
	require.NotEmpty(t, out)
	return out
}

// listRuns lists the runs of a workflow ID that match query, newest first, as the UI's
// workflow list does.
func listRuns(t *testing.T, c client.Client, id, query string) []*workflowpb.WorkflowExecutionInfo {
	t.Helper()
	q := `WorkflowId = "` + id + `"`
	if query != "" {
		q += " AND " + query
	}
	resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: q})
	require.NoError(t, err)
	return resp.GetExecutions()
}
