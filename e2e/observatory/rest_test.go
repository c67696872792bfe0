// A site after a year of nights: 500 Released reservations start no workflow run when a device
// is edited, counted through Temporal's API and the watcher's metrics.
package observatory

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// watcherMetric reads one sample of the watcher's /metrics, such as
// workqueue_adds_total{name="reservations"}.
func watcherMetric(t *testing.T, sample string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + system.watcher + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			require.NoError(t, err)
			return f
		}
	}
	return 0
}

// reservationRuns lists the runs of the Reservation workflows of ns, by workflow ID, that
// query (beside the type) picks.
func reservationRuns(t *testing.T, c client.Client, ns, query string) map[string][]*workflowRun {
	t.Helper()
	out := map[string][]*workflowRun{}
	var token []byte
	for {
		resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowType = '" + contract.ReservationWorkflow + "'" + query, NextPageToken: token, PageSize: 1000,
		})
		require.NoError(t, err)
		for _, e := range resp.Executions {
			id := e.GetExecution().GetWorkflowId()
			if strings.HasPrefix(id, contract.ReservationID(ns, "")) {
				out[id] = append(out[id], &workflowRun{run: e.GetExecution().GetRunId(), status: e.GetStatus()})
			}
		}
		if token = resp.NextPageToken; len(token) == 0 {
			return out
		}
	}
}

type workflowRun struct {
	run    string
	status enumspb.WorkflowExecutionStatus
}

// TestAYearOfReleasedReservationsStartsNoWorkflowWhenADeviceIsEdited keeps 500 Released
// reservations of the example telescope, as a site does after a year of nights: their
// workflows ran and ended. A device edited then signals only the reservation that still
// listens, and starts no workflow run, as counted through Temporal's API.
func TestAYearOfReleasedReservationsStartsNoWorkflowWhenADeviceIsEdited(t *testing.T) {
	startSystem(t)
	ns := namespace(t, "year")
	c := temporal(t)
	env.ApplyObservatory(t, "examples/observatory.yaml", ns, obsv1.KindReservation)
	const nights = 500
	begun := time.Now()
	releasedNights(t, ns, nights)
	var before map[string][]*workflowRun
	eventually(t, time.Minute, "every night's run is listed, closed", func() (bool, string) {
		before = reservationRuns(t, c, ns, " AND ExecutionStatus = 'Completed'")
		return len(before) == nights, fmt.Sprintf("%d listed", len(before))
	})
	t.Logf("%d reservations Released, each in one run, %s after the first was created", nights, time.Since(begun).Round(time.Second))
	for id, runs := range before {
		require.Len(t, runs, 1, "%s ran once", id)
	}

	// One reservation still listens: it waits for a telescope that is not there.
	create(t, ns, "kind: Reservation\nmetadata: {name: waiting}\nspec: {telescope: west, holder: grace}")
	eventually(t, time.Minute, "the waiting reservation waits", func() (bool, string) {
		r, _ := reservation(t, ns, "waiting")
		for _, s := range r.Status.Steps {
			if s.Name == "Wait" && s.Summary == "Missing Telescope west" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", r.Status.Steps)
	})

	adds := watcherMetric(t, `workqueue_adds_total{name="reservations"}`)
	edited := time.Now().UTC()
	_, err := env.Dynamic.Resource(obsv1.KindMount.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "east",
		types.MergePatchType, []byte(`{"spec":{"deactivation":[]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	eventually(t, time.Minute, "the listening reservation heard of the device", func() (bool, string) {
		return deviceSignals(t, c, contract.ReservationID(ns, "waiting")) > 0, "no device signal yet"
	})
	eventually(t, 30*time.Second, "the watcher sent all it had", func() (bool, string) {
		depth := watcherMetric(t, `workqueue_depth{name="reservations"}`)
		return depth == 0, fmt.Sprintf("%v queued", depth)
	})
	assert.Equal(t, float64(1), watcherMetric(t, `workqueue_adds_total{name="reservations"}`)-adds,
		"the edit queued the reservation that listens, and none of the Released ones")

	started := noRunStartedSince(t, c, ns, edited, before)
	t.Logf("after the edit: %d reservation runs started, %v reservations queued by the watcher",
		len(started), watcherMetric(t, `workqueue_adds_total{name="reservations"}`)-adds)
}

// releasedNights creates nights Reservations of the example telescope whose end has passed,
// 16 at a time, and waits until every one is Released with no finalizer left: each one's
// workflow Releases it at once, without taking the telescope, and ends. They are deleted when
// the test ends.
func releasedNights(t *testing.T, ns string, nights int) {
	t.Helper()
	end := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	res := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
	names := make(chan string)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for name := range names {
				u := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": "Reservation",
					"metadata": map[string]any{"name": name, "namespace": ns},
					"spec":     map[string]any{"telescope": "east", "holder": "ada", "end": end},
				}}
				_, err := res.Create(context.Background(), u, metav1.CreateOptions{})
				assert.NoError(t, err)
			}
		})
	}
	for i := range nights {
		names <- fmt.Sprintf("night-%03d", i)
	}
	close(names)
	wg.Wait()
	t.Cleanup(func() { _ = res.DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{}) })
	eventually(t, 5*time.Minute, "every night was Released", func() (bool, string) {
		list, err := res.List(context.Background(), metav1.ListOptions{})
		require.NoError(t, err)
		released := 0
		for _, u := range list.Items {
			phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			if phase == string(obsv1.ReservationReleased) && len(u.GetFinalizers()) == 0 {
				released++
			}
		}
		return released == nights, fmt.Sprintf("%d of %d Released", released, nights)
	})
}

// noRunStartedSince wants no reservation run of ns started after edited, and each run of
// before still its workflow's last and completed (what visibility says, the executions
// confirm). It returns the runs visibility lists as started since.
func noRunStartedSince(t *testing.T, c client.Client, ns string, edited time.Time, before map[string][]*workflowRun) map[string][]*workflowRun {
	t.Helper()
	started := reservationRuns(t, c, ns, " AND StartTime > '"+edited.Format(time.RFC3339Nano)+"'")
	assert.Empty(t, started, "no workflow run started after the edit")
	for id, runs := range before {
		d, err := c.DescribeWorkflowExecution(context.Background(), id, "")
		require.NoError(t, err)
		info := d.GetWorkflowExecutionInfo()
		assert.Equal(t, runs[0].run, info.GetExecution().GetRunId(), "%s: no new run", id)
		assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, info.GetStatus(), id)
	}
	return started
}

// deviceSignals counts the device signals in a workflow's history.
func deviceSignals(t *testing.T, c client.Client, id string) int {
	return countEvents(t, c, id, func(ev *historypb.HistoryEvent) bool {
		a := ev.GetWorkflowExecutionSignaledEventAttributes()
		return a != nil && strings.Contains(string(a.GetInput().GetPayloads()[0].GetData()), `"why":"device"`)
	})
}
