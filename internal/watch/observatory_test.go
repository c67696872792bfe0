// The observatory side on the real stack: which changes of a Reservation itself reach
// reservation/<ns>/<name> as signals, read back from each workflow's history (no worker polls
// the tests' task queues), and which do not; and the helpers its tests share. What the
// Reservation's neighbours send is in observatory_neighbours_test.go.
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
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/watch"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// obsNS is the namespace of the tests' observatory objects; every name in it is unique.
const obsNS = "watch-observatory"

func observatoryNamespaceExists(t *testing.T) { env.EnsureNamespace(t, obsNS) }

// astroAtEnd removes the finalizers of t's observatory objects and deletes them when t ends.
// Register it before the watcher starts, so the watcher stops first.
func astroAtEnd(t *testing.T) {
	observatoryNamespaceExists(t)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		sel := metav1.ListOptions{LabelSelector: testLabel + "=" + testID(t)}
		for _, k := range []obsv1.Kind{obsv1.KindReservation, obsv1.KindTelescope, obsv1.KindObservatory, obsv1.KindMount, obsv1.KindOpticalTube} {
			rc := env.Dynamic.Resource(k.GroupVersionResource()).Namespace(obsNS)
			list, err := rc.List(ctx, sel)
			if err != nil {
				t.Errorf("list the test's %s: %v", k, err)
				continue
			}
			for _, o := range list.Items {
				if len(o.GetFinalizers()) > 0 {
					setFinalizers(ctx, t, k, o.GetName(), nil)
				}
			}
			if err := rc.DeleteCollection(ctx, metav1.DeleteOptions{}, sel); err != nil {
				t.Errorf("delete the test's %s: %v", k, err)
			}
		}
	})
}

func setFinalizers(ctx context.Context, t *testing.T, k obsv1.Kind, name string, fin []string) {
	t.Helper()
	patch := fmt.Appendf(nil, `{"metadata":{"finalizers":%s}}`, jsonList(fin))
	_, err := env.Dynamic.Resource(k.GroupVersionResource()).Namespace(obsNS).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("set the finalizers of %s %s: %v", k, name, err)
	}
}

func jsonList(ss []string) string {
	if len(ss) == 0 {
		return "null"
	}
	out := "["
	for i, s := range ss {
		if i > 0 {
			out += ","
		}
		out += fmt.Sprintf("%q", s)
	}
	return out + "]"
}

// newAstro creates an object of kind k in obsNS, labelled for t.
func newAstro(t *testing.T, ctx context.Context, k obsv1.Kind, name string, spec map[string]any, finalizers ...string) *unstructured.Unstructured {
	t.Helper()
	meta := map[string]any{"name": name, "namespace": obsNS, "labels": map[string]any{testLabel: testID(t)}}
	if len(finalizers) > 0 {
		fs := []any{}
		for _, f := range finalizers {
			fs = append(fs, f)
		}
		meta["finalizers"] = fs
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": string(k), "metadata": meta, "spec": spec,
	}}
	out, err := env.Dynamic.Resource(k.GroupVersionResource()).Namespace(obsNS).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create the %s %s: %v", k, name, err)
	}
	return out
}

func newObservatory(t *testing.T, ctx context.Context, name string, finalizers ...string) *unstructured.Unstructured {
	return newAstro(t, ctx, obsv1.KindObservatory, name,
		map[string]any{"location": map[string]any{"latitude": 52.2, "longitude": 0.1, "elevation": int64(20)}}, finalizers...)
}

func newTelescope(t *testing.T, ctx context.Context, name, observatory string, finalizers ...string) *unstructured.Unstructured {
	return newAstro(t, ctx, obsv1.KindTelescope, name, map[string]any{"observatory": observatory}, finalizers...)
}

func newReservation(t *testing.T, ctx context.Context, name, telescope string, finalizers ...string) *unstructured.Unstructured {
	return newAstro(t, ctx, obsv1.KindReservation, name, map[string]any{"telescope": telescope, "holder": "ada"}, finalizers...)
}

func deleteAstro(t *testing.T, ctx context.Context, k obsv1.Kind, name string) {
	t.Helper()
	if err := env.Dynamic.Resource(k.GroupVersionResource()).Namespace(obsNS).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete the %s %s: %v", k, name, err)
	}
}

// resSignal is one reservation-changed signal in a workflow's history.
type resSignal struct {
	Change   contract.ReservationChange
	Identity string
}

// resHistory reads a Reservation's workflow (latest run): its type, its input and its signals.
func resHistory(ctx context.Context, name string) (wfType string, in contract.ReservationInput, out []resSignal, err error) {
	iter := temporalClient.GetWorkflowHistory(ctx, contract.ReservationID(obsNS, name), "", false,
		enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			var nf *serviceerror.NotFound
			if errors.As(err, &nf) {
				return "", in, nil, nil
			}
			return "", in, nil, err
		}
		if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil {
			wfType = a.GetWorkflowType().GetName()
			if err := converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &in); err != nil {
				return "", in, nil, err
			}
		}
		a := ev.GetWorkflowExecutionSignaledEventAttributes()
		if a == nil || a.GetSignalName() != contract.ReservationChanged {
			continue
		}
		var c contract.ReservationChange
		if err := converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &c); err != nil {
			return "", in, nil, err
		}
		out = append(out, resSignal{Change: c, Identity: a.GetIdentity()})
	}
	return wfType, in, out, nil
}

// waitResSignals waits until the Reservation's workflow holds n signals and returns them.
func waitResSignals(t *testing.T, ctx context.Context, name string, n int, within time.Duration) []resSignal {
	t.Helper()
	temporal(t)
	var got []resSignal
	eventually(t, within, func() (bool, string) {
		var err error
		_, _, got, err = resHistory(ctx, name)
		if err != nil {
			return false, err.Error()
		}
		return len(got) >= n, fmt.Sprintf("%s has %d signals, want %d: %+v",
			contract.ReservationID(obsNS, name), len(got), n, got)
	})
	return got
}

// exactlyResSignals waits until the watcher has sent all it saw, then wants exactly n signals.
func exactlyResSignals(t *testing.T, ctx context.Context, w obsRunning, name string, n int) []resSignal {
	t.Helper()
	got := waitResSignals(t, ctx, name, n, 20*time.Second)
	eventually(t, 30*time.Second, func() (bool, string) { return w.Idle(), "the watcher still has work queued" })
	_, _, got, err := resHistory(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%s has %d signals, want exactly %d: %+v", name, len(got), n, got)
	}
	return got
}

type obsRunning struct{ *watch.Observatory }

// startObservatoryWatcher runs the observatory side in the test process, without a Lease, on
// its own task queue, and stops it when the test ends.
func startObservatoryWatcher(t *testing.T, queue string, skyEvery ...time.Duration) obsRunning {
	t.Helper()
	var o *watch.Observatory
	runInProcess(t, func(tc client.Client) (func(context.Context) error, func() bool) {
		cfg := watch.ObservatoryConfig{Dynamic: env.Dynamic, Temporal: tc, TaskQueue: queue, Log: warnings(t)}
		if len(skyEvery) > 0 {
			cfg.SkyEvery = skyEvery[0]
		}
		o = watch.NewObservatory(cfg)
		return o.Run, o.Watching
	})
	return obsRunning{o}
}

// aSignalledReservation starts the observatory watcher and creates a Reservation of
// Telescope t1, and waits for its one first signal; the test's objects go when it ends.
func aSignalledReservation(t *testing.T, ctx context.Context) (obsRunning, string) {
	t.Helper()
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	name := unique("res")
	newReservation(t, ctx, name, "t1")
	exactlyResSignals(t, ctx, w, name, 1)
	return w, name
}

func TestCreatingAReservationStartsItsWorkflowWithOneSignalAndStatusWritesSendNothing(t *testing.T) {
	ctx := timeout(t, time.Minute)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	name := unique("res")
	res := newReservation(t, ctx, name, "missing")

	got := exactlyResSignals(t, ctx, w, name, 1)
	c := got[0].Change
	if c.UID != string(res.GetUID()) || c.Generation != 1 || c.Why != "added" || c.Deleted || c.Retry != "" {
		t.Errorf("the first signal: %+v", c)
	}
	// A Telescope that was never there is for the Wait step to report, not a delete.
	if c.TelescopeDeleted || c.ObservatoryDeleted {
		t.Errorf("a missing Telescope was reported deleted: %+v", c)
	}
	wfType, in, _, err := resHistory(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if wfType != contract.ReservationWorkflow || in != (contract.ReservationInput{Namespace: obsNS, Name: name}) {
		t.Errorf("the signal started a %q workflow with %+v", wfType, in)
	}
	// What the Temporal UI lists it by, before any worker ran it.
	d, err := temporalClient.DescribeWorkflow(ctx, contract.ReservationID(obsNS, name), "")
	if err != nil {
		t.Fatal(err)
	}
	summary, err := d.GetStaticSummary()
	if err != nil {
		t.Fatal(err)
	}
	details, _ := d.GetStaticDetails()
	if want := "Reservation " + name + ": Telescope missing for ada, until it is deleted"; summary != want {
		t.Errorf("the workflow's summary is %q, want %q", summary, want)
	}
	if !strings.Contains(details, "kubectl -n "+obsNS+" describe reservation "+name) {
		t.Errorf("the workflow's details do not say how to look at the Reservation: %q", details)
	}
	tel, _ := d.TypedSearchAttributes.GetKeyword(contract.SearchTelescope)
	holder, _ := d.TypedSearchAttributes.GetKeyword(contract.SearchHolder)
	if tel != "missing" || holder != "ada" {
		t.Errorf("the workflow started with Telescope %q and Holder %q, want missing and ada", tel, holder)
	}

	// The worker's status write, and a label: neither is worth a signal.
	ignored := w.Stats.Ignored.Load()
	res.Object["status"] = map[string]any{"phase": "Scheduled", "observedGeneration": int64(1)}
	res, err = env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(obsNS).UpdateStatus(ctx, res, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patch := []byte(`{"metadata":{"labels":{"team":"night"}}}`)
	if _, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(obsNS).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	awaitIgnored(t, 20*time.Second, &w.Stats.Ignored, ignored, 2, "the 2 updates")
	exactlyResSignals(t, ctx, w, name, 1)
}

func TestTheRetryAnnotationAndASpecChangeEachSendOneSignal(t *testing.T) {
	ctx := timeout(t, time.Minute)
	w, name := aSignalledReservation(t, ctx)

	rc := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(obsNS)
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"1"}}}`, kube.AnnotationRetry)
	if _, err := rc.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	got := exactlyResSignals(t, ctx, w, name, 2)
	if got[1].Change.Retry != "1" || got[1].Change.Why != "updated" {
		t.Errorf("the retry's signal: %+v", got[1].Change)
	}

	patch = []byte(`{"spec":{"end":"2030-01-01T00:00:00Z"}}`)
	if _, err := rc.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	got = exactlyResSignals(t, ctx, w, name, 3)
	if got[2].Change.Generation != 2 {
		t.Errorf("the spec change's signal: %+v", got[2].Change)
	}
}

// A change of an Observatory's conditions (the sky's, the site guard's) tells the Ready
// Reservations of its namespace, whose triggers may name them, that a condition changed; a
// status write that changes no condition tells them nothing, nor does any change tell a
// Reservation that is not Ready.
func TestAnObservatorysConditionChangeTellsTheReadyReservationsTriggers(t *testing.T) {
	ctx := timeout(t, time.Minute)
	w, name := aSignalledReservation(t, ctx)
	site := unique("site")
	newAstro(t, ctx, obsv1.KindObservatory, site, map[string]any{"location": map[string]any{"latitude": 52.2, "longitude": 0.1}})
	night := func(status, message string) map[string]any {
		return map[string]any{"conditions": []any{map[string]any{"type": kube.ConditionAstronomicalNight,
			"status": status, "reason": "Sun", "message": message, "lastTransitionTime": "2030-01-01T00:00:00Z"}}}
	}
	updateStatus(t, ctx, obsv1.KindObservatory, site, night("True", "dark"))
	exactlyResSignals(t, ctx, w, name, 1)
	updateStatus(t, ctx, obsv1.KindReservation, name, map[string]any{"phase": "Ready"})
	updateStatus(t, ctx, obsv1.KindObservatory, site, night("False", "light"))
	got := exactlyResSignals(t, ctx, w, name, 2)
	if got[1].Change.Why != contract.WhyCondition {
		t.Errorf("the condition's signal: %+v", got[1].Change)
	}
	updateStatus(t, ctx, obsv1.KindObservatory, site, night("False", "still light"))
	exactlyResSignals(t, ctx, w, name, 2)
	updateStatus(t, ctx, obsv1.KindObservatory, site, night("True", "dark"))
	exactlyResSignals(t, ctx, w, name, 3)
}

func TestADeleteSendsOneSignalWhetherOrNotAFinalizerHoldsTheReservation(t *testing.T) {
	ctx := timeout(t, time.Minute)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	held, free := unique("held"), unique("free")
	// On two telescopes, for two holders: a delete also asks the waiting reservations of its
	// own telescope and its holder to check their bookings again (whyBooking), which this test
	// does not count.
	heldRes := newAstro(t, ctx, obsv1.KindReservation, held, map[string]any{"telescope": "t1", "holder": "ada"}, "observatory.liken.sh/deactivate")
	freeRes := newAstro(t, ctx, obsv1.KindReservation, free, map[string]any{"telescope": "t2", "holder": "grace"})
	exactlyResSignals(t, ctx, w, held, 1)
	exactlyResSignals(t, ctx, w, free, 1)

	deleteAstro(t, ctx, obsv1.KindReservation, held)
	deleteAstro(t, ctx, obsv1.KindReservation, free)
	for _, c := range []struct {
		name string
		uid  string
	}{{held, string(heldRes.GetUID())}, {free, string(freeRes.GetUID())}} {
		got := exactlyResSignals(t, ctx, w, c.name, 2)
		if ch := got[1].Change; !ch.Deleted || ch.UID != c.uid {
			t.Errorf("%s's delete signal: %+v", c.name, ch)
		}
	}
	// The held one lingers, being deleted, until its workflow removes the finalizer.
	if _, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(obsNS).Get(ctx, held, metav1.GetOptions{}); err != nil {
		t.Errorf("the Reservation with a finalizer is gone: %v", err)
	}
}
