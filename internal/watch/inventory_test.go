// The inventory's signals on the real stack, read back from the history of
// inventory/<namespace> (no worker polls the tests' task queues), the sky's ticks, and a
// Reservation at rest, whose workflow no change of its namespace starts again.
package watch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// invChanges are the changes the inventory of obsNS was told of, as "Kind/name why".
func invChanges(ctx context.Context) ([]string, error) {
	var out []string
	iter := temporalClient.GetWorkflowHistory(ctx, contract.InventoryID(obsNS), "", false,
		enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			var nf *serviceerror.NotFound
			if errors.As(err, &nf) {
				return nil, nil
			}
			return nil, err
		}
		a := ev.GetWorkflowExecutionSignaledEventAttributes()
		if a == nil || a.GetSignalName() != contract.InventoryChanged {
			continue
		}
		var batch []contract.InventoryChange
		if err := converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &batch); err != nil {
			return nil, err
		}
		for _, c := range batch {
			out = append(out, c.Object+" "+c.Why)
		}
	}
	return out, nil
}

// invSaw waits until the watcher is idle and returns the changes told about object (Kind/name).
func invSaw(t *testing.T, ctx context.Context, w obsRunning, object string) []string {
	t.Helper()
	eventually(t, 30*time.Second, func() (bool, string) { return w.Idle(), "the watcher still has work queued" })
	all, err := invChanges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range all {
		if strings.HasPrefix(c, object+" ") {
			out = append(out, strings.TrimPrefix(c, object+" "))
		}
	}
	return out
}

// awaitInv waits until the inventory was told n changes of object.
func awaitInv(t *testing.T, ctx context.Context, w obsRunning, object string, n int) []string {
	t.Helper()
	temporal(t)
	var got []string
	eventually(t, 20*time.Second, func() (bool, string) {
		got = invSaw(t, ctx, w, object)
		return len(got) >= n, fmt.Sprintf("the inventory heard %v of %s, want %d changes", got, object, n)
	})
	return got
}

func updateStatus(t *testing.T, ctx context.Context, k obsv1.Kind, name string, status map[string]any) {
	t.Helper()
	rc := env.Dynamic.Resource(k.GroupVersionResource()).Namespace(obsNS)
	u, err := rc.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = status
	if _, err := rc.UpdateStatus(ctx, u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestEveryChangeThatMayChangeAStatusTellsTheNamespacesInventoryAndReadingsDoNot(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	mount, tube := unique("mnt"), unique("tube")
	newAstro(t, ctx, obsv1.KindMount, mount, map[string]any{"driver": map[string]any{"name": "indi_simulator_telescope"}})
	newAstro(t, ctx, obsv1.KindOpticalTube, tube, map[string]any{"aperture": int64(80)})
	object := "Mount/" + mount
	if got := awaitInv(t, ctx, w, object, 1); got[0] != "added" {
		t.Fatalf("the Mount's creation: %v", got)
	}
	awaitInv(t, ctx, w, "OpticalTube/"+tube, 1)

	// Readings, properties and a message: nothing another status shows.
	readings := func(ra string) map[string]any {
		return map[string]any{"phase": "Connected", "readings": map[string]any{"ra": ra},
			"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Connected",
				"message": "Connected as " + ra, "lastTransitionTime": "2030-01-01T00:00:00Z"}}}
	}
	updateStatus(t, ctx, obsv1.KindMount, mount, readings("1"))
	got := awaitInv(t, ctx, w, object, 2)
	if got[1] != "status" {
		t.Errorf("its phase and Ready changed: %v", got)
	}
	updateStatus(t, ctx, obsv1.KindMount, mount, readings("2"))
	if got := invSaw(t, ctx, w, object); len(got) != 2 {
		t.Errorf("new readings and a new message alone are no news: %v", got)
	}

	// Its spec, its finalizers, and its delete.
	rc := env.Dynamic.Resource(obsv1.KindMount.GroupVersionResource()).Namespace(obsNS)
	for _, patch := range []string{`{"spec":{"telescope":"east"}}`, `{"metadata":{"finalizers":["` + kube.FinalizerDeactivate + `"]}}`} {
		if _, err := rc.Patch(ctx, mount, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	awaitInv(t, ctx, w, object, 4)
	setFinalizers(ctx, t, obsv1.KindMount, mount, nil)
	deleteAstro(t, ctx, obsv1.KindMount, mount)
	eventually(t, 20*time.Second, func() (bool, string) {
		got := invSaw(t, ctx, w, object)
		return len(got) >= 6 && got[len(got)-1] == "deleted", fmt.Sprintf("the Mount's changes: %v", got)
	})

	// One of the runner's pods: created, placed on a node, deleted.
	pod := unique("east-mount")
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: obsNS, Labels: map[string]string{kube.LabelManagedBy: kube.ObservatoryComponent}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/none"}}}}
	if _, err := env.Kube.CoreV1().Pods(obsNS).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitInv(t, ctx, w, "pod/"+pod, 1)
	if err := env.Kube.CoreV1().Pods(obsNS).Delete(ctx, pod, *metav1.NewDeleteOptions(0)); err != nil {
		t.Fatal(err)
	}
	// Its delete may first be seen as an update (its deletionTimestamp), then as a delete.
	eventually(t, 20*time.Second, func() (bool, string) {
		got := invSaw(t, ctx, w, "pod/"+pod)
		return len(got) > 0 && got[len(got)-1] == "deleted", fmt.Sprintf("the pod's changes: %v", got)
	})
}

func TestTheSkyMovingTellsEachObservatorysInventoryEveryFewMinutes(t *testing.T) {
	ctx := timeout(t, time.Minute)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t), 2*time.Second)
	site := unique("site")
	newAstro(t, ctx, obsv1.KindObservatory, site, map[string]any{"location": map[string]any{"latitude": 52.2, "longitude": 0.1}})
	got := awaitInv(t, ctx, w, "Observatory/"+site, 3)
	if got[0] != "added" || got[1] != "sky" || got[2] != "sky" {
		t.Errorf("the Observatory's changes: %v, want added, then sky at each tick", got)
	}
}

func TestAReleasedReservationRestsWhateverItsNamespaceDoes(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	astroAtEnd(t)
	site, tel, resting, live := unique("site"), unique("tel"), unique("old"), unique("live")
	newObservatory(t, ctx, site)
	newTelescope(t, ctx, tel, site)
	for _, name := range []string{resting, live} {
		newReservation(t, ctx, name, tel)
	}
	updateStatus(t, ctx, obsv1.KindReservation, resting, map[string]any{"phase": string(obsv1.ReservationReleased)})
	updateStatus(t, ctx, obsv1.KindReservation, live, map[string]any{"phase": string(obsv1.ReservationReady)})

	// A new leader, a device created, edited and deleted, a pod of the runner's deleted, the
	// Telescope deleted: the Ready reservation hears each; the Released one nothing.
	w := startObservatoryWatcher(t, taskQueue(t))
	exactlyResSignals(t, ctx, w, live, 1)
	mount := unique("mnt")
	newAstro(t, ctx, obsv1.KindMount, mount, map[string]any{"telescope": tel, "driver": map[string]any{"name": "indi_simulator_telescope"}})
	exactlyResSignals(t, ctx, w, live, 2)
	rc := env.Dynamic.Resource(obsv1.KindMount.GroupVersionResource()).Namespace(obsNS)
	if _, err := rc.Patch(ctx, mount, types.MergePatchType, []byte(`{"spec":{"telescope":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	exactlyResSignals(t, ctx, w, live, 3)
	deleteAstro(t, ctx, obsv1.KindMount, mount)
	exactlyResSignals(t, ctx, w, live, 4)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: unique("east-mount"), Namespace: obsNS,
		Labels: map[string]string{kube.LabelManagedBy: kube.ObservatoryComponent}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/none"}}}}
	if _, err := env.Kube.CoreV1().Pods(obsNS).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.Kube.CoreV1().Pods(obsNS).Delete(ctx, pod.Name, *metav1.NewDeleteOptions(0)); err != nil {
		t.Fatal(err)
	}
	exactlyResSignals(t, ctx, w, live, 5)
	deleteAstro(t, ctx, obsv1.KindTelescope, tel)
	exactlyResSignals(t, ctx, w, live, 6)

	wfType, _, got, err := resHistory(ctx, resting)
	if err != nil {
		t.Fatal(err)
	}
	if wfType != "" || len(got) != 0 {
		t.Errorf("the Released reservation's workflow was started (%q) with %d signals: %+v", wfType, len(got), got)
	}

	// Its own spec is its user's: that is still heard.
	patch := []byte(`{"spec":{"end":"2030-01-01T00:00:00Z"}}`)
	if _, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(obsNS).Patch(ctx, resting,
		types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	exactlyResSignals(t, ctx, w, resting, 1)
}
