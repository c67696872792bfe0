// A minute without Temporal while the example reservation starts and its end is moved: the
// one workflow run becomes Ready, ends at the new end and is Released with nothing left.
package faults

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func getReservation(ctx context.Context, ns, name string) (*obsv1.Reservation, error) {
	u, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var r obsv1.Reservation
	return &r, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r)
}

// awaitPhase waits until the Reservation reaches phase, failing with the step it is at.
func awaitPhase(t *testing.T, ctx context.Context, ns, name string, phase obsv1.ReservationPhase, limit time.Duration) {
	t.Helper()
	eventually(t, limit, "Reservation "+name+" became "+string(phase), func() (bool, string) {
		r, err := getReservation(ctx, ns, name)
		if err != nil {
			return false, err.Error()
		}
		return r.Status.Phase == phase, fmt.Sprintf("phase %s, step %s; its pods: %s", r.Status.Phase, r.Status.Step, podsStand(ctx, ns))
	})
}

// podsStand says where each pod of ns stands (kube.PodReady), so a wait that fails says why a
// step did not end.
func podsStand(ctx context.Context, ns string) string {
	pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, p := range pods.Items {
		ready, why := kube.PodReady(&p)
		if !ready {
			out = append(out, p.Name+" on "+orNone(p.Spec.NodeName)+" ("+why+")")
		}
	}
	return fmt.Sprintf("%d, not Ready: [%s]", len(pods.Items), strings.Join(out, "; "))
}

func orNone(s string) string {
	if s == "" {
		return "no node"
	}
	return s
}

// TestTemporalAwayForAMinuteDuringAReservationLosesNoChange stops the Temporal server for
// 60 s while the example reservation is starting, and sets the reservation's end while it
// is away. The watcher retries the change with back-off; once Temporal is back, the
// reservation becomes Ready, ends at the new end and is Released with nothing left behind,
// all in the one workflow run it started with.
func TestTemporalAwayForAMinuteDuringAReservationLosesNoChange(t *testing.T) {
	ctx := timeout(t, 6*time.Minute)
	s := newSystem(t)
	s.startWatcher("observatory").WaitReady()
	s.startWorker("LIKEN_DEV_LOCAL_INDI=true")
	c := temporal(t)
	ns := "faults-" + utilrand.String(6)
	_, err := env.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	env.ApplyObservatory(t, "examples/observatory.yaml", ns)
	t.Cleanup(func() {
		for _, id := range []string{contract.TelescopeLockID(ns, "east"), contract.SiteTurnsID(ns, "lab")} {
			_ = c.TerminateWorkflow(context.Background(), id, "", "test over")
		}
	})

	eventually(t, 2*time.Minute, "the reservation started its devices", func() (bool, string) {
		r, err := getReservation(ctx, ns, "tonight")
		if err != nil {
			return false, err.Error()
		}
		return r.Status.Step == kube.StepStartDevices || r.Status.Step == kube.StepConnect, "step " + r.Status.Step
	})
	stopped := time.Now()
	bringBack := stopProcess(t, "temporal")
	end := stopped.Add(100 * time.Second).UTC().Format(time.RFC3339)
	_, err = env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Patch(ctx, "tonight",
		types.MergePatchType, []byte(`{"spec":{"end":"`+end+`"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	time.Sleep(time.Until(stopped.Add(60 * time.Second)))
	bringBack(ctx)

	awaitPhase(t, ctx, ns, "tonight", obsv1.ReservationReady, 90*time.Second)
	awaitPhase(t, ctx, ns, "tonight", obsv1.ReservationReleased, 2*time.Minute)
	r, err := getReservation(ctx, ns, "tonight")
	require.NoError(t, err)
	require.NotNil(t, r.Spec.End)
	require.Equal(t, end, r.Spec.End.UTC().Format(time.RFC3339))
	pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=" + kube.ObservatoryComponent})
	require.NoError(t, err)
	require.Empty(t, pods.Items, "no pod is left")
	svcs, err := env.Kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=" + kube.ObservatoryComponent})
	require.NoError(t, err)
	require.Empty(t, svcs.Items, "no Service is left")

	id := contract.ReservationID(ns, "tonight")
	n := runs(t, ctx, c, contract.ReservationWorkflow, map[string]bool{id: true})
	require.Equal(t, 1, n[id], "the reservation ran in one workflow")
}
