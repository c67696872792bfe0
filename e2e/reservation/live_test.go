// Devices that join and leave a Ready reservation live: their pods, Services, drivers and
// finalizers come and go, a duplicate driver is refused, and a FlatPanel runs its procedures.
package reservation

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TestADeviceJoinsAndLeavesAReadyReservationLive adds a Rotator to the example's optical
// train while the reservation is Ready: it gets its pod and Service, its driver starts on the
// telescope's INDI server (DriverStarted on the Telescope) and it is connected. A second
// Focuser with the driver the first one holds is refused (Ready Error), and nothing starts
// for it. Then the Rotator's parent is edited away: its driver stops (DriverStopped), its pod
// and Service go (PodDeleted on the Rotator), and so does its finalizer. It joins again and is
// deleted while it runs: it leaves, and goes. The reservation stays Ready throughout. The
// watcher's signals are sent here by hand.
func TestADeviceJoinsAndLeavesAReadyReservationLive(t *testing.T) {
	ns, c, local := readyReservation(t)
	ctx := context.Background()
	rotators := env.Dynamic.Resource(obsv1.KindRotator.GroupVersionResource()).Namespace(ns)
	addARotatorAndASpareFocuser(t, ns)
	deviceChanged(t, c, ns)
	theRotatorRunsOnTheTelescopesServer(t, local, ns)
	theSpareFocuserIsRefused(t, ns)

	// The leaver: its parent edited away.
	patchSpec(t, ns, obsv1.KindRotator, "east-main", `{"opticalTrain":null}`)
	deviceChanged(t, c, ns)
	theRotatorLeftTheTelescopesServer(t, local, ns)

	// Back on the train, then deleted while it runs: it leaves again, and once its pod is
	// gone its finalizer lets the delete finish.
	patchSpec(t, ns, obsv1.KindRotator, "east-main", `{"opticalTrain":"east-main"}`)
	deviceChanged(t, c, ns)
	require.Eventually(t, func() bool {
		return connected(t, local, ns, "Rotator Simulator")
	}, time.Minute, 500*time.Millisecond, "the Rotator joined again")
	require.NoError(t, rotators.Delete(ctx, "east-main", metav1.DeleteOptions{}))
	deviceChanged(t, c, ns)
	require.Eventually(t, func() bool {
		_, err := rotators.Get(ctx, "east-main", metav1.GetOptions{})
		_, perr := env.Kube.CoreV1().Pods(ns).Get(ctx, "east-main-rotator", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(perr)
	}, time.Minute, 200*time.Millisecond, "the deleted Rotator left and went")

	r, _ := reservation(t, ns, "tonight")
	assert.Equal(t, obsv1.ReservationReady, r.Status.Phase, "the reservation stays Ready")
	// The observer shows the Focuser that runs, not the refused one as its holder.
	assert.Equal(t, obsv1.DeviceError, devicePhase(t, ns, obsv1.KindFocuser, "spare"))

	// The refused Focuser is still there when the reservation ends: it never ran, so it keeps
	// no step from stopping the others, and the reservation is released.
	require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).
		Delete(ctx, "tonight", metav1.DeleteOptions{}))
	require.NoError(t, c.SignalWorkflow(ctx, contract.ReservationID(ns, "tonight"), "", contract.ReservationChanged,
		contract.ReservationChange{Deleted: true, Why: "deleted"}))
	awaitReservation(t, ns, "tonight", "was released and went", func(r *obsv1.Reservation) bool { return r == nil })
	assert.Empty(t, managedPods(t, ns), "no pod is left")
}

// addARotatorAndASpareFocuser puts a Rotator on the example's train, and a second Focuser with
// the driver the first one holds; both are deleted when the test ends.
func addARotatorAndASpareFocuser(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	rotators := env.Dynamic.Resource(obsv1.KindRotator.GroupVersionResource()).Namespace(ns)
	focusers := env.Dynamic.Resource(obsv1.KindFocuser.GroupVersionResource()).Namespace(ns)
	device := func(kind, name, driver string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": kind,
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec":     map[string]any{"opticalTrain": "east-main", "driver": map[string]any{"name": driver}},
		}}
	}
	_, err := rotators.Create(ctx, device("Rotator", "east-main", "indi_simulator_rotator"), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = focusers.Create(ctx, device("Focuser", "spare", "indi_simulator_focus"), metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, del := range []func() error{
			func() error { return rotators.Delete(context.Background(), "east-main", metav1.DeleteOptions{}) },
			func() error { return focusers.Delete(context.Background(), "spare", metav1.DeleteOptions{}) },
		} {
			_ = del()
		}
	})
}

// theRotatorRunsOnTheTelescopesServer: the joiner has its pod, Service and finalizer, and its
// driver runs on the server (DriverStarted on the Telescope), linked and connected.
func theRotatorRunsOnTheTelescopesServer(t *testing.T, local *observatory.LocalINDI, ns string) {
	t.Helper()
	ctx := context.Background()
	pods, svcs := env.Kube.CoreV1().Pods(ns), env.Kube.CoreV1().Services(ns)
	require.Eventually(t, func() bool {
		p, err := pods.Get(ctx, "east-main-rotator", metav1.GetOptions{})
		_, serr := svcs.Get(ctx, "east-main-rotator", metav1.GetOptions{})
		return err == nil && serr == nil && p.Labels[kube.LabelServer] == "east-telescope"
	}, time.Minute, 200*time.Millisecond, "the Rotator's pod and Service run for east-telescope")
	awaitEvent(t, ns, obsv1.KindTelescope, "east", kube.ReasonDriverStarted)
	require.Eventually(t, func() bool {
		return connected(t, local, ns, "Rotator Simulator")
	}, time.Minute, 500*time.Millisecond, "the Rotator's driver runs on east-telescope and is connected")
	rot, err := env.Dynamic.Resource(obsv1.KindRotator.GroupVersionResource()).Namespace(ns).Get(ctx, "east-main", metav1.GetOptions{})
	require.NoError(t, err)
	assert.True(t, kube.FinalizersHave(rot.GetFinalizers(), kube.FinalizerDeactivate), "the joiner holds the finalizer")
	srv, err := pods.Get(ctx, "east-telescope", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Contains(t, kube.LinkedServices(srv.Annotations[kube.AnnotationDrivers]), "east-main-rotator", "the server links its driver")
}

// theSpareFocuserIsRefused: the refused joiner is in Ready Error with a message naming both
// focusers, the driver and the server, and
// nothing started for it.
func theSpareFocuserIsRefused(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	require.Eventually(t, func() bool {
		u, err := env.Dynamic.Resource(obsv1.KindFocuser.GroupVersionResource()).Namespace(ns).Get(ctx, "spare", metav1.GetOptions{})
		if err != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == obsv1.ConditionReady && m["reason"] == kube.ReasonError &&
				m["message"] == "Focuser east-main and Focuser spare both use the driver indi_simulator_focus, which the INDI server east-telescope can run only once" {
				return true
			}
		}
		return false
	}, time.Minute, 200*time.Millisecond, "the second Focuser is refused")
	_, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "spare-focuser", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "nothing runs for the refused Focuser: %v", err)
}

// theRotatorLeftTheTelescopesServer: the leaver's pod and Service are gone (DriverStopped on
// the Telescope, PodDeleted on the Rotator), its finalizer is removed and it is back on the
// shelf; the server no longer links or runs its driver, and the Mount stays connected.
func theRotatorLeftTheTelescopesServer(t *testing.T, local *observatory.LocalINDI, ns string) {
	t.Helper()
	ctx := context.Background()
	pods, svcs := env.Kube.CoreV1().Pods(ns), env.Kube.CoreV1().Services(ns)
	require.Eventually(t, func() bool {
		_, err := pods.Get(ctx, "east-main-rotator", metav1.GetOptions{})
		_, serr := svcs.Get(ctx, "east-main-rotator", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(serr)
	}, time.Minute, 200*time.Millisecond, "the Rotator's pod and Service are gone")
	awaitEvent(t, ns, obsv1.KindTelescope, "east", kube.ReasonDriverStopped)
	awaitEvent(t, ns, obsv1.KindRotator, "east-main", kube.ReasonPodDeleted)
	require.Eventually(t, func() bool {
		u, err := env.Dynamic.Resource(obsv1.KindRotator.GroupVersionResource()).Namespace(ns).Get(ctx, "east-main", metav1.GetOptions{})
		return err == nil && !kube.FinalizersHave(u.GetFinalizers(), kube.FinalizerDeactivate)
	}, 30*time.Second, 200*time.Millisecond, "the leaver's finalizer is removed")
	assert.Equal(t, obsv1.DeviceInventory, devicePhase(t, ns, obsv1.KindRotator, "east-main"), "back on the shelf")
	srv, err := pods.Get(ctx, "east-telescope", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, kube.LinkedServices(srv.Annotations[kube.AnnotationDrivers]), "east-main-rotator")
	require.Eventually(t, func() bool {
		return !defined(t, local, ns, "Rotator Simulator") && connected(t, local, ns, "Telescope Simulator")
	}, time.Minute, 500*time.Millisecond, "the Rotator's driver no longer runs on east-telescope, and the Mount is connected")
}

// telescopeServer dials the indiserver that stands in for east-telescope.
func telescopeServer(t *testing.T, local *observatory.LocalINDI, ns string) (*indi.Client, context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	addr, err := local.Address(ctx, observatory.INDIServer{Namespace: ns, Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}})
	if err != nil {
		cancel()
		return nil, nil, nil
	}
	ic, err := indi.Dial(ctx, addr)
	if err != nil {
		cancel()
		return nil, nil, nil
	}
	return ic, ctx, func() { ic.Close(); cancel() }
}

// connected says whether the INDI device is defined on east-telescope and connected.
func connected(t *testing.T, local *observatory.LocalINDI, ns, dev string) bool {
	ic, ctx, done := telescopeServer(t, local, ns)
	if ic == nil {
		return false
	}
	defer done()
	if ic.Sync(ctx, dev) != nil {
		return false
	}
	p, ok := ic.Property(dev, "CONNECTION")
	return ok && p.SwitchOn("CONNECT")
}

// defined says whether the INDI device is defined on east-telescope: a driver answers a Sync
// within seconds, so one that does not is not there.
func defined(t *testing.T, local *observatory.LocalINDI, ns, dev string) bool {
	ic, _, done := telescopeServer(t, local, ns)
	if ic == nil {
		return true
	}
	defer done()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return ic.Sync(ctx, dev) == nil || slices.Contains(ic.Devices(), dev)
}

// awaitEvent waits (bounded) for a Normal Event of reason on the object.
func awaitEvent(t *testing.T, ns string, kind obsv1.Kind, name, reason string) {
	t.Helper()
	require.Eventually(t, func() bool {
		evs, err := env.Kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: fields.Set{
			"involvedObject.kind": string(kind), "involvedObject.name": name, "reason": reason,
		}.String()})
		return err == nil && len(evs.Items) == 1 && evs.Items[0].Type == corev1.EventTypeNormal
	}, 30*time.Second, 200*time.Millisecond, fmt.Sprintf("a %s Event on %s %s", reason, kind, name))
}

// TestAFlatPanelThatLeavesRunsItsDeactivationAndWhenItJoinsItsActivation gives the example's
// FlatPanel procedures (Lit on activation, Dark on deactivation). Edited off its train while
// Ready, it runs its deactivation before its driver stops; put back, it runs its activation,
// since the Telescope is Active, and the panel is lit again.
func TestAFlatPanelThatLeavesRunsItsDeactivationAndWhenItJoinsItsActivation(t *testing.T) {
	ns, c, local := readyReservation(t, func(ns string) {
		patchSpec(t, ns, obsv1.KindFlatPanel, "east-main", `{"activation":[{"state":"Lit"}],"deactivation":[{"state":"Dark"}]}`)
	})
	lit := func() bool { return panelLit(t, local, ns) }
	first := panelRecord(t, ns, kube.TriggerActivation)
	require.NotNil(t, first, "the FlatPanel ran its activation in the Activation step")
	require.Equal(t, obsv1.RunDone, first.State, first.Summary)
	require.Eventually(t, lit, 30*time.Second, 500*time.Millisecond, "the panel is lit")

	patchSpec(t, ns, obsv1.KindFlatPanel, "east-main", `{"opticalTrain":null}`)
	deviceChanged(t, c, ns)
	awaitPanelPodGone(t, ns, "the FlatPanel's pod is gone")
	deact := panelRecord(t, ns, kube.TriggerDeactivation)
	require.NotNil(t, deact, "the leaver ran its deactivation")
	assert.Equal(t, obsv1.RunDone, deact.State, "its deactivation ran while its driver did: %s", deact.Summary)
	assert.False(t, deact.Since.Before(first.Since), "after its activation")
	awaitEvent(t, ns, obsv1.KindTelescope, "east", kube.ReasonDriverStopped)

	patchSpec(t, ns, obsv1.KindFlatPanel, "east-main", `{"opticalTrain":"east-main"}`)
	deviceChanged(t, c, ns)
	require.Eventually(t, func() bool {
		rec := panelRecord(t, ns, kube.TriggerActivation)
		return rec != nil && rec.State == obsv1.RunDone && !rec.Since.Equal(first.Since)
	}, time.Minute, 200*time.Millisecond, "the joiner ran its activation again")
	require.Eventually(t, lit, 30*time.Second, 500*time.Millisecond, "the panel is lit again")

	aFailedActivationIsRunAgainByTheRetryAnnotation(t, c, local, ns)
	r, _ := reservation(t, ns, "tonight")
	assert.Equal(t, obsv1.ReservationReady, r.Status.Phase, "the reservation stays Ready")
}

// aFailedActivationIsRunAgainByTheRetryAnnotation: the FlatPanel leaves, and joins again with
// an activation it cannot do in a millisecond: Failed. The retry annotation on the device runs
// it again, once fixed, and is removed.
func aFailedActivationIsRunAgainByTheRetryAnnotation(t *testing.T, c client.Client, local *observatory.LocalINDI, ns string) {
	t.Helper()
	ctx := context.Background()
	panels := env.Dynamic.Resource(obsv1.KindFlatPanel.GroupVersionResource()).Namespace(ns)
	patchSpec(t, ns, obsv1.KindFlatPanel, "east-main", `{"opticalTrain":null,"activation":[{"state":"Lit","timeout":"1ms"}]}`)
	deviceChanged(t, c, ns)
	awaitPanelPodGone(t, ns, "the FlatPanel left again")
	patchSpec(t, ns, obsv1.KindFlatPanel, "east-main", `{"opticalTrain":"east-main"}`)
	deviceChanged(t, c, ns)
	var failed *obsv1.ProcedureRecord
	require.Eventually(t, func() bool {
		failed = panelRecord(t, ns, kube.TriggerActivation)
		return failed != nil && failed.State == obsv1.RunFailed
	}, time.Minute, 200*time.Millisecond, "the joiner's activation failed")
	_, err := panels.Patch(ctx, "east-main", types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"observatory.liken.sh/retry":"1"}},"spec":{"activation":[{"state":"Lit"}]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	deviceChanged(t, c, ns)
	require.Eventually(t, func() bool {
		rec := panelRecord(t, ns, kube.TriggerActivation)
		return rec != nil && rec.State == obsv1.RunDone && rec.Since.After(failed.Since.Time)
	}, time.Minute, 200*time.Millisecond, "the retry ran the activation again")
	require.Eventually(t, func() bool { return panelLit(t, local, ns) }, 30*time.Second, 500*time.Millisecond, "the panel is lit after the retry")
	u, err := panels.Get(ctx, "east-main", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, u.GetAnnotations(), kube.AnnotationRetry, "the retry annotation is removed")
}

// panelRecord is the FlatPanel east-main's last run of trigger, nil when it has none.
func panelRecord(t *testing.T, ns, trigger string) *obsv1.ProcedureRecord {
	u, err := env.Dynamic.Resource(obsv1.KindFlatPanel.GroupVersionResource()).Namespace(ns).Get(context.Background(), "east-main", metav1.GetOptions{})
	require.NoError(t, err)
	var st obsv1.DeviceStatus
	if m, ok := u.Object["status"].(map[string]any); ok {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st))
	}
	return kube.FindProcedureRecord(st.Procedures, trigger)
}

// panelLit says whether the light panel simulator on east-telescope is lit.
func panelLit(t *testing.T, local *observatory.LocalINDI, ns string) bool {
	ic, ctx, done := telescopeServer(t, local, ns)
	if ic == nil {
		return false
	}
	defer done()
	if ic.Sync(ctx, "Light Panel Simulator") != nil {
		return false
	}
	p, ok := ic.Property("Light Panel Simulator", "FLAT_LIGHT_CONTROL")
	return ok && p.SwitchOn("FLAT_LIGHT_ON")
}

// awaitPanelPodGone waits (bounded) until the FlatPanel's pod is gone.
func awaitPanelPodGone(t *testing.T, ns, what string) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, err := env.Kube.CoreV1().Pods(ns).Get(context.Background(), "east-main-flatpanel", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, 200*time.Millisecond, what)
}
