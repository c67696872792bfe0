// Two reservations of one telescope: the second waits for the first, and a Telescope deleted
// mid-session ends the first and leaves the second waiting, with nothing started.
package reservation

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TestASecondReservationWaitsAndATelescopeDeletedMidSessionEndsTheFirst runs two reservations
// of the example telescope with the real activities: the second waits, naming the holder; the
// Telescope deleted while the first is Ready ends the first ("Telescope east was deleted"),
// whose deactivation lets the Telescope go; the second then waits for a telescope that is no
// more ("Missing Telescope east"), and starts nothing.
func TestASecondReservationWaitsAndATelescopeDeletedMidSessionEndsTheFirst(t *testing.T) {
	ns, queue, c := startReservation(t)
	startWorker(t, c, queue)
	ctx := context.Background()
	reservations := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)

	awaitReady(t, ns, "tonight")
	podsWhileReady := len(managedPods(t, ns))

	// A second reservation of east, started as the watcher would.
	later := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": "Reservation",
		"metadata": map[string]any{"name": "later", "namespace": ns},
		"spec":     map[string]any{"telescope": "east", "holder": "grace"},
	}}
	_, err := reservations.Create(ctx, later, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = reservations.Delete(context.Background(), "later", metav1.DeleteOptions{})
		_ = c.TerminateWorkflow(context.Background(), contract.ReservationID(ns, "later"), "", "test over")
	})
	laterID := contract.ReservationID(ns, "later")
	_, err = c.SignalWithStartWorkflow(ctx, laterID, contract.ReservationChanged, contract.ReservationChange{Why: "added"},
		client.StartWorkflowOptions{ID: laterID, TaskQueue: queue}, contract.ReservationWorkflow, contract.ReservationInput{Namespace: ns, Name: "later"})
	require.NoError(t, err)
	awaitReservation(t, ns, "later", "named the holder", func(r *obsv1.Reservation) bool {
		return r != nil && waitSummary(r) == "Telescope east is held by Reservation tonight"
	})
	r, _ := reservation(t, ns, "later")
	assert.Equal(t, obsv1.ReservationScheduled, r.Status.Phase)
	assert.Len(t, managedPods(t, ns), podsWhileReady, "the waiting reservation started nothing")

	// The Telescope is deleted mid-session: its finalizer holds it until the deactivation.
	telescopes := env.Dynamic.Resource(obsv1.KindTelescope.GroupVersionResource()).Namespace(ns)
	require.NoError(t, telescopes.Delete(ctx, "east", metav1.DeleteOptions{}))
	u, err := telescopes.Get(ctx, "east", metav1.GetOptions{})
	require.NoError(t, err, "the Telescope waits for the deactivation")
	require.NotNil(t, u.GetDeletionTimestamp())
	for _, name := range []string{"tonight", "later"} {
		require.NoError(t, c.SignalWorkflow(ctx, contract.ReservationID(ns, name), "", contract.ReservationChanged,
			contract.ReservationChange{TelescopeDeleted: true, Why: "telescope"}))
	}
	awaitReservation(t, ns, "tonight", "was Released", func(r *obsv1.Reservation) bool {
		return r != nil && r.Status.Phase == obsv1.ReservationReleased
	})
	r, _ = reservation(t, ns, "tonight")
	abort := stepSummary(r, kube.StepAbort)
	assert.True(t, strings.HasPrefix(abort, "Telescope east was deleted"), "the Abort step says why: %q", abort)
	for _, s := range r.Status.Steps {
		assert.Contains(t, []obsv1.RunState{obsv1.RunDone, obsv1.RunSkipped}, s.State, "%s: %s", s.Name, s.Summary)
	}
	require.Eventually(t, func() bool {
		_, err := telescopes.Get(ctx, "east", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, 200*time.Millisecond, "the deactivation gave the Telescope's finalizer back")

	// The second never takes a telescope that is gone: it says so (told again by the watcher
	// when the Telescope goes), and starts no pod.
	require.NoError(t, c.SignalWorkflow(ctx, laterID, "", contract.ReservationChanged,
		contract.ReservationChange{TelescopeDeleted: true, Why: "telescope"}))
	awaitReservation(t, ns, "later", "says the telescope is missing", func(r *obsv1.Reservation) bool {
		return r != nil && waitSummary(r) == "Missing Telescope east"
	})
	r, _ = reservation(t, ns, "later")
	assert.Equal(t, obsv1.ReservationScheduled, r.Status.Phase)
	assert.Empty(t, managedPods(t, ns), "no pod is left, and the waiting reservation started none")
}

func waitSummary(r *obsv1.Reservation) string { return stepSummary(r, kube.StepWait) }

func stepSummary(r *obsv1.Reservation, step string) string {
	for _, s := range r.Status.Steps {
		if s.Name == step {
			return s.Summary
		}
	}
	return ""
}
