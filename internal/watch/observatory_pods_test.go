// A deleted pod of the worker's signals only the Reservations whose servers it belongs to:
// the ones of its Telescope, or, for the Observatory's own server, the ones of every Telescope
// there. A neighbour's pod is nothing to a Ready reservation, which heals only its own servers.
package watch_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestADeletedPodSignalsTheReservationsOfItsServerOnly(t *testing.T) {
	ctx := timeout(t, 90*time.Second)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	site, east, west := unique("site"), unique("east"), unique("west")
	newObservatory(t, ctx, site)
	newTelescope(t, ctx, east, site)
	newTelescope(t, ctx, west, site)
	onEast, onWest := unique("res"), unique("res")
	newReservation(t, ctx, onEast, east)
	newReservation(t, ctx, onWest, west)
	for _, n := range []string{onEast, onWest} {
		exactlyResSignals(t, ctx, w, n, 1)
	}

	deletePod := func(server string) {
		t.Helper()
		name := unique("pod")
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: obsNS,
				Labels: map[string]string{kube.LabelManagedBy: kube.ObservatoryComponent, kube.LabelServer: server}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/none"}}},
		}
		if _, err := env.Kube.CoreV1().Pods(obsNS).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := env.Kube.CoreV1().Pods(obsNS).Delete(ctx, name, *metav1.NewDeleteOptions(0)); err != nil {
			t.Fatal(err)
		}
	}

	// A pod of east's server: east's Reservation only.
	deletePod(kube.ServerName(obsv1.KindTelescope, east))
	got := exactlyResSignals(t, ctx, w, onEast, 2)
	if c := got[1].Change; c.Why != "pod" || c.Deleted {
		t.Errorf("the signal of a pod of east's server: %+v", c)
	}
	exactlyResSignals(t, ctx, w, onWest, 1)

	// A pod of the site's server: both.
	deletePod(kube.ServerName(obsv1.KindObservatory, site))
	got = exactlyResSignals(t, ctx, w, onWest, 2)
	if c := got[1].Change; c.Why != "pod" {
		t.Errorf("the signal of a pod of the site's server: %+v", c)
	}
	exactlyResSignals(t, ctx, w, onEast, 3)

	// A pod of a server nobody here runs (its Telescope gone): the whole namespace.
	deletePod(kube.ServerName(obsv1.KindTelescope, unique("gone")))
	exactlyResSignals(t, ctx, w, onEast, 4)
	exactlyResSignals(t, ctx, w, onWest, 3)
}
