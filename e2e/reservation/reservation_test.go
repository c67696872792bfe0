// Package reservation runs one whole Reservation of the example observatory through the real
// Reservation workflow on a real Temporal server, with the real activities against the real
// API server, and local indiservers (the worker's dev mode) standing in for the INDI server
// pods that kwok does not run. It starts the workflow as the watcher would, so it proves the
// steps and the workflow together: Wait to Ready, and on delete, Abort to Released with
// nothing left behind.
package reservation

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Run(m, testenv.Options{Kube: true, CRDs: true, TemporalDB: true, SearchAttributes: contract.SearchAttributes,
		AlsoOnPostgres: []func(*testing.T){
			TestTheExampleReservationRunsFromWaitToReadyAndIsReleasedWithNothingLeft,
			TestAReservationReadyWhilePostgreSQLRestartsStillEndsReleasedWithNothingLeft,
		}}, &env)
}

// applyExample creates every object of examples/observatory.yaml in ns, the Reservation
// included, and lets them go when the test ends.
func applyExample(t *testing.T, ns string) { env.ApplyObservatory(t, "examples/observatory.yaml", ns) }

func reservation(t *testing.T, ns, name string) (*obsv1.Reservation, bool) {
	t.Helper()
	u, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	require.NoError(t, err)
	var r obsv1.Reservation
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r))
	return &r, true
}

// awaitReady waits (bounded) until the reservation is Ready.
func awaitReady(t *testing.T, ns, name string) {
	t.Helper()
	awaitReservation(t, ns, name, "became Ready", func(r *obsv1.Reservation) bool {
		return r != nil && r.Status.Phase == obsv1.ReservationReady
	})
}

// deviceChanged signals the reservation tonight that a device of its namespace changed, as
// the watcher would.
func deviceChanged(t *testing.T, c client.Client, ns string) {
	t.Helper()
	require.NoError(t, c.SignalWorkflow(context.Background(), contract.ReservationID(ns, "tonight"), "",
		contract.ReservationChanged, contract.ReservationChange{Why: "device"}))
}

// awaitReservation waits (bounded) until ok holds of the Reservation (nil once it is gone).
func awaitReservation(t *testing.T, ns, name, what string, ok func(*obsv1.Reservation) bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	var last *obsv1.Reservation
	for time.Now().Before(deadline) {
		r, _ := reservation(t, ns, name)
		if ok(r) {
			return
		}
		last = r
		time.Sleep(200 * time.Millisecond)
	}
	if last == nil {
		t.Fatalf("Reservation %s never %s; it is gone", name, what)
	}
	var steps []string
	for _, s := range last.Status.Steps {
		steps = append(steps, s.Name+"="+string(s.State)+": "+s.Summary)
	}
	t.Fatalf("Reservation %s never %s; phase %q step %q; steps %q", name, what, last.Status.Phase, last.Status.Step, steps)
}

func TestTheExampleReservationRunsFromWaitToReadyAndIsReleasedWithNothingLeft(t *testing.T) {
	ns, queue, c := startReservation(t)
	local := startWorker(t, c, queue)
	id := contract.ReservationID(ns, "tonight")

	awaitReservation(t, ns, "tonight", "became Ready", func(r *obsv1.Reservation) bool {
		return r != nil && (r.Status.Phase == obsv1.ReservationReady || r.Status.Phase == obsv1.ReservationFailed)
	})
	r, _ := reservation(t, ns, "tonight")
	require.Equal(t, obsv1.ReservationReady, r.Status.Phase, "steps: %+v", r.Status.Steps)
	require.NotNil(t, r.Status.Endpoint)
	assert.Equal(t, "east-telescope."+ns+".svc", r.Status.Endpoint.Host)
	assert.Equal(t, int32(7624), r.Status.Endpoint.Port)
	for _, s := range r.Status.Steps {
		t.Logf("%s %s: %s", s.Name, s.State, s.Summary)
		assert.Contains(t, []obsv1.RunState{obsv1.RunDone, obsv1.RunSkipped}, s.State, "%s: %s", s.Name, s.Summary)
	}
	for _, pod := range []string{"lab-observatory-0", "lab-dome", "lab-weatherstation", "east-telescope", "east-mount", "east-main-camera"} {
		_, err := env.Kube.CoreV1().Pods(ns).Get(context.Background(), pod, metav1.GetOptions{})
		assert.NoError(t, err, "pod %s runs while Ready", pod)
	}

	devicesAreConnectedOnTheTelescopesServer(t, local, ns)

	// Deleting the Reservation ends it: the watcher's signal, sent here by hand.
	require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).
		Delete(context.Background(), "tonight", metav1.DeleteOptions{}))
	require.NoError(t, c.SignalWorkflow(context.Background(), id, "", contract.ReservationChanged,
		contract.ReservationChange{Deleted: true, Why: "deleted"}))
	awaitReservation(t, ns, "tonight", "was released and went", func(r *obsv1.Reservation) bool { return r == nil })

	nothingRunsOnceReleased(t, ns)
}

// devicesAreConnectedOnTheTelescopesServer: the devices are connected on the indiserver that
// stands in for east-telescope.
func devicesAreConnectedOnTheTelescopesServer(t *testing.T, local *observatory.LocalINDI, ns string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	addr, err := local.Address(ctx, observatory.INDIServer{Namespace: ns, Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}})
	require.NoError(t, err)
	ic, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	defer ic.Close()
	for _, dev := range []string{"Telescope Simulator", "CCD Simulator", "Filter Simulator", "Focuser Simulator", "Light Panel Simulator"} {
		require.NoError(t, ic.Sync(ctx, dev))
		p, ok := ic.Property(dev, "CONNECTION")
		require.True(t, ok, dev)
		assert.True(t, p.SwitchOn("CONNECT"), "%s is connected", dev)
	}

}

// nothingRunsOnceReleased: no object of the runner's is left, the devices are Idle, the site's
// LocksRelayed is False/Idle, and no resource keeps the deactivation finalizer.
func nothingRunsOnceReleased(t *testing.T, ns string) {
	t.Helper()
	noObjectLeft(t, ns)
	for _, d := range []struct {
		kind obsv1.Kind
		name string
	}{{obsv1.KindMount, "east"}, {obsv1.KindCamera, "east-main"}, {obsv1.KindDome, "lab"}} {
		assert.Equal(t, obsv1.DeviceIdle, devicePhase(t, ns, d.kind, d.name), "%s %s is Idle once nothing runs it", d.kind, d.name)
	}
	var lab obsv1.Observatory
	u, err := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Get(context.Background(), "lab", metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &lab))
	idle := false
	for _, cond := range lab.Status.Conditions {
		idle = idle || cond.Type == obsv1.ConditionLocksRelayed && cond.Status == metav1.ConditionFalse && cond.Reason == kube.ReasonIdle
	}
	assert.True(t, idle, "LocksRelayed is False/Idle once the site stopped: %+v", lab.Status.Conditions)
	for _, kr := range []struct {
		kind obsv1.Kind
		name string
	}{{obsv1.KindMount, "east"}, {obsv1.KindCamera, "east-main"}, {obsv1.KindDome, "lab"}, {obsv1.KindTelescope, "east"}, {obsv1.KindObservatory, "lab"}} {
		u, err := env.Dynamic.Resource(kr.kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), kr.name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.False(t, kube.FinalizersHave(u.GetFinalizers(), kube.FinalizerDeactivate), "%s %s keeps no finalizer", kr.kind, kr.name)
	}
}
