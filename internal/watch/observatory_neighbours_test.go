// The observatory side on the real stack, for the neighbours of a Reservation: a Telescope or
// Observatory deleted, a pod of the worker's deleted, a retry annotation on a device, Telescope
// or Observatory, a device that may join or leave, and a new leader each signal the Reservations
// they concern once, and status writes and other annotations send nothing.
package watch_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestDeletingATelescopeOrItsObservatorySignalsItsReservationsOnly(t *testing.T) {
	ctx := timeout(t, 90*time.Second)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	site, other := unique("site"), unique("other")
	tel, tel2, elsewhere := unique("tel"), unique("tel"), unique("tel")
	newObservatory(t, ctx, site)
	newObservatory(t, ctx, other)
	// A held Telescope lingers while its delete runs: the update that begins it must signal.
	newTelescope(t, ctx, tel, site, "observatory.liken.sh/deactivate")
	newTelescope(t, ctx, tel2, site)
	newTelescope(t, ctx, elsewhere, other)
	onTel, onTel2, onElsewhere := unique("res"), unique("res"), unique("res")
	newReservation(t, ctx, onTel, tel)
	newReservation(t, ctx, onTel2, tel2)
	newReservation(t, ctx, onElsewhere, elsewhere)
	for _, n := range []string{onTel, onTel2, onElsewhere} {
		exactlyResSignals(t, ctx, w, n, 1)
	}

	deleteAstro(t, ctx, obsv1.KindTelescope, tel)
	got := exactlyResSignals(t, ctx, w, onTel, 2)
	if c := got[1].Change; c.Why != "telescope" || !c.TelescopeDeleted || c.Deleted {
		t.Errorf("the signal of the Telescope's delete: %+v", c)
	}
	exactlyResSignals(t, ctx, w, onTel2, 1)
	exactlyResSignals(t, ctx, w, onElsewhere, 1)

	// The Observatory, gone at once (no finalizer): each Reservation of each of its Telescopes.
	deleteAstro(t, ctx, obsv1.KindObservatory, site)
	got = exactlyResSignals(t, ctx, w, onTel2, 2)
	if c := got[1].Change; c.Why != "observatory" || !c.ObservatoryDeleted || c.TelescopeDeleted {
		t.Errorf("the signal of the Observatory's delete: %+v", c)
	}
	got = exactlyResSignals(t, ctx, w, onTel, 3)
	if c := got[2].Change; c.Why != "observatory" || !c.TelescopeDeleted {
		t.Errorf("the Observatory's signal to the Reservation of a Telescope being deleted: %+v", c)
	}
	exactlyResSignals(t, ctx, w, onElsewhere, 1)
}

func TestANewLeaderSignalsEveryReservationOnce(t *testing.T) {
	ctx := timeout(t, time.Minute)
	astroAtEnd(t)
	name := unique("res")
	newReservation(t, ctx, name, "t1")
	w := startObservatoryWatcher(t, taskQueue(t))
	got := exactlyResSignals(t, ctx, w, name, 1)
	if got[0].Change.Why != "resync" {
		t.Errorf("the first list's signal: %+v", got[0].Change)
	}
}

func TestDeletingAPodOfTheWorkerSignalsTheReservationsOfItsNamespace(t *testing.T) {
	ctx := timeout(t, time.Minute)
	w, name := aSignalledReservation(t, ctx)

	// A pod of the worker's (by its label) and one of somebody else's, both deleted.
	for _, p := range []struct {
		name   string
		labels map[string]string
	}{
		{unique("east-mount"), map[string]string{kube.LabelManagedBy: kube.ObservatoryComponent}},
		{unique("someone-else"), map[string]string{"app": "other"}},
	} {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: obsNS, Labels: p.labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/none"}}},
		}
		if _, err := env.Kube.CoreV1().Pods(obsNS).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := env.Kube.CoreV1().Pods(obsNS).Delete(ctx, p.name, *metav1.NewDeleteOptions(0)); err != nil {
			t.Fatal(err)
		}
	}
	got := waitResSignals(t, ctx, name, 2, 20*time.Second)
	if got[1].Change.Why != "pod" || got[1].Change.Deleted {
		t.Errorf("the deleted pod's signal: %+v", got[1].Change)
	}
	exactlyResSignals(t, ctx, w, name, 2)
}

func TestTheRetryAnnotationOnADeviceTelescopeOrObservatorySignalsEachReservationOfItsNamespaceOnce(t *testing.T) {
	ctx := timeout(t, 90*time.Second)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	site, tel := newSite(t, ctx)
	// Both Reservations of the namespace, whichever Telescope they name.
	onTel, onOther := unique("res"), unique("res")
	newReservation(t, ctx, onTel, tel)
	newReservation(t, ctx, onOther, "t1")
	for _, n := range []string{onTel, onOther} {
		exactlyResSignals(t, ctx, w, n, 1)
	}
	// The Mount comes after the Reservations: its own informer may deliver it at any time, and
	// a device that joins is worth one signal to each.
	mount := unique("east")
	newAstro(t, ctx, obsv1.KindMount, mount, map[string]any{
		"telescope": tel, "driver": map[string]any{"name": "indi_simulator_telescope"}})
	for _, n := range []string{onTel, onOther} {
		if c := exactlyResSignals(t, ctx, w, n, 2)[1].Change; c.Why != "device" {
			t.Errorf("%s's signal of the new Mount: %+v", n, c)
		}
	}

	annotate := func(k obsv1.Kind, name, key, value string) {
		t.Helper()
		patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, key, value)
		if _, err := env.Dynamic.Resource(k.GroupVersionResource()).Namespace(obsNS).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	signals := 2
	for _, k := range []struct {
		kind obsv1.Kind
		name string
	}{{obsv1.KindMount, mount}, {obsv1.KindTelescope, tel}, {obsv1.KindObservatory, site}} {
		annotate(k.kind, k.name, kube.AnnotationRetry, "1")
		signals++
		for _, n := range []string{onTel, onOther} {
			got := exactlyResSignals(t, ctx, w, n, signals)
			if c := got[signals-1].Change; c.Why != "resource-retry" || c.Deleted || c.TelescopeDeleted || c.Retry != "" {
				t.Errorf("%s's signal of the %s's retry: %+v", n, k.kind, c)
			}
		}
	}

	// The Mount's status write, another annotation, and the worker removing the retry
	// annotation: none is worth a signal.
	ignored := w.Stats.Ignored.Load()
	rc := env.Dynamic.Resource(obsv1.KindMount.GroupVersionResource()).Namespace(obsNS)
	m, err := rc.Get(ctx, mount, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.Object["status"] = map[string]any{"phase": "Idle", "observedGeneration": int64(1)}
	if _, err := rc.UpdateStatus(ctx, m, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	annotate(obsv1.KindMount, mount, "team", "night")
	if _, err := rc.Patch(ctx, mount, types.MergePatchType,
		fmt.Appendf(nil, `{"metadata":{"annotations":{%q:null}}}`, kube.AnnotationRetry), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitIgnored(t, 20*time.Second, &w.Stats.Ignored, ignored, 3, "the Mount's 3 updates")
	for _, n := range []string{onTel, onOther} {
		exactlyResSignals(t, ctx, w, n, signals)
	}
}

func TestADeviceThatMayJoinOrLeaveSignalsEachReservationOfItsNamespaceOnce(t *testing.T) {
	ctx := timeout(t, 90*time.Second)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	_, tel := newSite(t, ctx)
	rot := unique("rot")
	res := unique("res")
	newReservation(t, ctx, res, tel)
	exactlyResSignals(t, ctx, w, res, 1)

	// Created on the shelf, then given a parent, then deleted: each is worth one signal.
	newAstro(t, ctx, obsv1.KindRotator, rot, map[string]any{"driver": map[string]any{"name": "indi_simulator_rotator"}})
	got := exactlyResSignals(t, ctx, w, res, 2)
	if c := got[1].Change; c.Why != "device" || c.Deleted {
		t.Errorf("the new Rotator's signal: %+v", c)
	}
	rc := env.Dynamic.Resource(obsv1.KindRotator.GroupVersionResource()).Namespace(obsNS)
	if _, err := rc.Patch(ctx, rot, types.MergePatchType, fmt.Appendf(nil, `{"spec":{"opticalTrain":%q}}`, tel), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	got = exactlyResSignals(t, ctx, w, res, 3)
	if c := got[2].Change; c.Why != "device" {
		t.Errorf("the parent edit's signal: %+v", c)
	}
	// A status write is not.
	ignored := w.Stats.Ignored.Load()
	u, err := rc.Get(ctx, rot, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = map[string]any{"phase": "Idle"}
	if _, err := rc.UpdateStatus(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitIgnored(t, 20*time.Second, &w.Stats.Ignored, ignored, 1, "the status write")
	if err := rc.Delete(ctx, rot, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got = exactlyResSignals(t, ctx, w, res, 4)
	if c := got[3].Change; c.Why != "device" {
		t.Errorf("the delete's signal: %+v", c)
	}
}

// newSite creates an Observatory and a Telescope of it, each with a name of its own.
func newSite(t *testing.T, ctx context.Context) (site, tel string) {
	t.Helper()
	site, tel = unique("site"), unique("tel")
	newObservatory(t, ctx, site)
	newTelescope(t, ctx, tel, site)
	return site, tel
}
