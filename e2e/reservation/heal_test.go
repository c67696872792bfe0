// Pods deleted while a reservation is Ready are created again, with a PodCreated Event on each
// resource, and the reservation stays Ready.
package reservation

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TestPodsDeletedWhileReadyAreCreatedAgain deletes the telescope's server pod and its mount's
// pod while the reservation is Ready; the watcher's signal (sent here by hand) makes the
// reservation create both again, with a PodCreated Event on each resource, and it stays Ready.
func TestPodsDeletedWhileReadyAreCreatedAgain(t *testing.T) {
	ns, c, _ := readyReservation(t)
	ctx := context.Background()

	pods := env.Kube.CoreV1().Pods(ns)
	deleted := map[string]types.UID{}
	for _, name := range []string{"east-telescope", "east-mount"} {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		deleted[name] = p.UID
		require.NoError(t, pods.Delete(ctx, name, *metav1.NewDeleteOptions(0)))
	}
	require.NoError(t, c.SignalWorkflow(ctx, contract.ReservationID(ns, "tonight"), "", contract.ReservationChanged,
		contract.ReservationChange{Why: "pod"}))

	for name, old := range deleted {
		require.Eventually(t, func() bool {
			p, err := pods.Get(ctx, name, metav1.GetOptions{})
			return err == nil && p.UID != old && p.DeletionTimestamp == nil
		}, time.Minute, 200*time.Millisecond, "the pod %s was created again", name)
	}
	for kind, name := range map[obsv1.Kind]string{obsv1.KindTelescope: "east", obsv1.KindMount: "east"} {
		require.Eventually(t, func() bool {
			evs, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
				"involvedObject.kind": string(kind), "involvedObject.name": name, "reason": observatory.ReasonPodCreated,
			}.String()})
			return err == nil && len(evs.Items) == 1 && evs.Items[0].Type == corev1.EventTypeNormal
		}, 30*time.Second, 200*time.Millisecond, "a PodCreated Event on %s %s", kind, name)
	}
	r, _ := reservation(t, ns, "tonight")
	assert.Equal(t, obsv1.ReservationReady, r.Status.Phase, "the reservation stays Ready")
	n := len(managedPods(t, ns))

	// A look with nothing missing creates nothing.
	require.NoError(t, c.SignalWorkflow(ctx, contract.ReservationID(ns, "tonight"), "", contract.ReservationChanged,
		contract.ReservationChange{Why: "resync"}))
	require.Eventually(t, func() bool { return healsDone(t, c, ns) == 2 }, 30*time.Second, 200*time.Millisecond,
		"the second look ran its heal")
	assert.Len(t, managedPods(t, ns), n)
	evs, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + observatory.ReasonPodCreated})
	require.NoError(t, err)
	assert.Len(t, evs.Items, 2, "one PodCreated per pod created again, no more")
}

// healsDone counts the heals the reservation's workflow completed: the live plan's
// StartLiveDevices, the part that creates the pods again.
const healActivity = "StartLiveDevices"

func healsDone(t *testing.T, c client.Client, ns string) int {
	t.Helper()
	scheduled := map[int64]bool{}
	n := 0
	it := c.GetWorkflowHistory(context.Background(), contract.ReservationID(ns, "tonight"), "", false, 0)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == healActivity {
			scheduled[e.GetEventId()] = true
		}
		if a := e.GetActivityTaskCompletedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] {
			n++
		}
	}
	return n
}
