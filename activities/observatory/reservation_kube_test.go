// Integration tests of a reservation's bookkeeping activities against the real API server
// with the observatory CRDs: what they read, patch and write is read back from the server.
// (The package's TestMain, in main_test.go, starts the stack.)
package observatory

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// observatoryNamespace creates a namespace for one test.
func observatoryNamespace(t *testing.T, name string) string {
	t.Helper()
	_, err := env.Kube.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	return name
}

// createObject creates an observatory object from its Go type and, when the test ends, lets
// it go (its finalizers removed).
// createLab creates the Observatory lab, with no procedures, that most tests need beside
// the objects they are about. Its guard lets it open by day (byDay): the tests run at any hour.
func createLab(t *testing.T, ns string) *unstructured.Unstructured {
	t.Helper()
	return createObject(t, obsv1.KindObservatory, ns, &obsv1.Observatory{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec:       obsv1.ObservatorySpec{Location: obsv1.Location{Latitude: 52, Longitude: 4}, Safety: byDay},
	})
}

// byDay is the safety of a test's site: the Sun never closes it.
var byDay = obsv1.Safety{SunAltitude: ptr.To(90.0)}

func createObject(t *testing.T, kind obsv1.Kind, ns string, obj any) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	require.NoError(t, err)
	delete(m, "status")
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(obsv1.SchemeGroupVersion.String())
	u.SetKind(string(kind))
	res := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns)
	out, err := res.Create(context.Background(), u, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = res.Patch(ctx, out.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		_ = res.Delete(ctx, out.GetName(), metav1.DeleteOptions{})
	})
	return out
}

func reservationFixture(t *testing.T, ns string) {
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec:       obsv1.TelescopeSpec{Observatory: "lab"},
	})
	start := metav1.NewTime(time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC))
	createObject(t, obsv1.KindReservation, ns, &obsv1.Reservation{
		ObjectMeta: metav1.ObjectMeta{Name: "ada-east", Annotations: map[string]string{kube.AnnotationRetry: "now"}},
		Spec:       obsv1.ReservationSpec{Telescope: "east", Holder: "ada", Start: &start},
	})
}

// holdAndDelete puts a foreign finalizer on an object and deletes it, so it stays, being
// deleted.
func holdAndDelete(t *testing.T, kind obsv1.Kind, ns, name string) {
	t.Helper()
	res := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns)
	ctx := context.Background()
	_, err := res.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":["example.com/hold"]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.NoError(t, res.Delete(ctx, name, metav1.DeleteOptions{}))
}

func TestReadReservationReadsTheReservationAndWhatItNeeds(t *testing.T) {
	ns := observatoryNamespace(t, "rsv-read")
	reservationFixture(t, ns)
	a := newActivities()
	ctx := testContext(t)
	ref := ReservationRef{Namespace: ns, Name: "ada-east"}

	st, err := a.ReadReservation(ctx, ref)
	require.NoError(t, err)
	assert.False(t, st.Gone)
	assert.NotEmpty(t, st.UID)
	assert.Equal(t, int64(1), st.Generation)
	assert.False(t, st.Created.IsZero())
	assert.Equal(t, "east", st.Spec.Telescope)
	assert.Equal(t, "ada", st.Spec.Holder)
	assert.Equal(t, "now", st.Retry)
	assert.Equal(t, TargetState{Name: "east", Exists: true}, st.Telescope)
	assert.Equal(t, TargetState{Name: "lab", Exists: true}, st.Observatory)
	assert.False(t, st.Deleting)

	holdAndDelete(t, obsv1.KindObservatory, ns, "lab")
	holdAndDelete(t, obsv1.KindTelescope, ns, "east")
	st, err = a.ReadReservation(ctx, ref)
	require.NoError(t, err)
	assert.Equal(t, TargetState{Name: "east", Exists: true, Deleting: true}, st.Telescope)
	assert.Equal(t, TargetState{Name: "lab", Exists: true, Deleting: true}, st.Observatory)

	st, err = a.ReadReservation(ctx, ReservationRef{Namespace: ns, Name: "nobody"})
	require.NoError(t, err)
	assert.True(t, st.Gone)
}

// A night booked by the sky is resolved at the Observatory's place (lab stands at 52° N,
// 4° E): its dusk and dawn become the start and end the workflow waits for. The API server
// refuses a night given with clock times.
func TestReadReservationResolvesANightAtTheSite(t *testing.T) {
	ns := observatoryNamespace(t, "rsv-night")
	reservationFixture(t, ns)
	createObject(t, obsv1.KindReservation, ns, &obsv1.Reservation{ObjectMeta: metav1.ObjectMeta{Name: "xmas"},
		Spec: obsv1.ReservationSpec{Telescope: "east", Holder: "ada", Night: "2030-12-24", Twilight: obsv1.TwilightNautical}})
	st, err := newActivities().ReadReservation(testContext(t), ReservationRef{Namespace: ns, Name: "xmas"})
	require.NoError(t, err)
	want := kube.PlanNight(obsv1.ReservationSpec{Night: "2030-12-24", Twilight: obsv1.TwilightNautical}, obsv1.Location{Latitude: 52, Longitude: 4})
	require.NotNil(t, st.Night)
	require.NotNil(t, st.Night.Window)
	assert.Equal(t, "nautical dusk", st.Night.Dusk)
	assert.True(t, st.Spec.Start.Equal(&want.Window.Start) && st.Spec.End.Equal(&want.Window.End),
		"start %v and end %v, want the night's %v", st.Spec.Start, st.Spec.End, want.Window)

	// Midsummer at 52° N has no astronomical night: the Reservation waits, saying so.
	createObject(t, obsv1.KindReservation, ns, &obsv1.Reservation{ObjectMeta: metav1.ObjectMeta{Name: "midsummer"},
		Spec: obsv1.ReservationSpec{Telescope: "east", Holder: "ada", Night: "2030-06-21"}})
	st, err = newActivities().ReadReservation(testContext(t), ReservationRef{Namespace: ns, Name: "midsummer"})
	require.NoError(t, err)
	require.NotNil(t, st.Night)
	assert.Nil(t, st.Night.Window)
	assert.Contains(t, st.Night.Refused, "No astronomical night at the site on 2030-06-21")
	events, err := env.Kube.CoreV1().Events(ns).List(testContext(t), metav1.ListOptions{FieldSelector: "reason=" + kube.ReasonNightRefused})
	require.NoError(t, err)
	require.Len(t, events.Items, 1, "a Warning Event says why the night never starts")
	assert.Equal(t, "midsummer", events.Items[0].InvolvedObject.Name)
	assert.Equal(t, corev1.EventTypeWarning, events.Items[0].Type)
	assert.Equal(t, st.Night.Refused, events.Items[0].Message)

	start := metav1.NewTime(time.Date(2030, 12, 24, 17, 0, 0, 0, time.UTC))
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&obsv1.Reservation{ObjectMeta: metav1.ObjectMeta{Name: "both"},
		Spec: obsv1.ReservationSpec{Telescope: "east", Holder: "ada", Night: "2030-12-24", Start: &start}})
	require.NoError(t, err)
	obj := &unstructured.Unstructured{Object: u}
	obj.SetAPIVersion(obsv1.SchemeGroupVersion.String())
	obj.SetKind("Reservation")
	_, err = env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Create(testContext(t), obj, metav1.CreateOptions{})
	require.ErrorContains(t, err, "spec.night replaces spec.start and spec.end")
}

func TestReadReservationSaysWhenTheTelescopeIsMissing(t *testing.T) {
	ns := observatoryNamespace(t, "rsv-missing")
	createObject(t, obsv1.KindReservation, ns, &obsv1.Reservation{
		ObjectMeta: metav1.ObjectMeta{Name: "r"},
		Spec:       obsv1.ReservationSpec{Telescope: "nowhere", Holder: "ada"},
	})
	st, err := newActivities().ReadReservation(testContext(t), ReservationRef{Namespace: ns, Name: "r"})
	require.NoError(t, err)
	assert.Equal(t, TargetState{Name: "nowhere"}, st.Telescope)
	assert.Equal(t, TargetState{}, st.Observatory)
}

func TestTheDeactivateFinalizerIsAddedOnceAndNeverToAnObjectBeingDeleted(t *testing.T) {
	ns := observatoryNamespace(t, "rsv-finalizer")
	reservationFixture(t, ns)
	a := newActivities()
	ctx := testContext(t)
	finalizers := func(kind obsv1.Kind, name string) []string {
		u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		return u.GetFinalizers()
	}

	res, err := a.AddDeactivateFinalizer(ctx, FinalizerRef{Kind: obsv1.KindReservation, Namespace: ns, Name: "ada-east"})
	require.NoError(t, err)
	assert.Equal(t, FinalizerResult{Has: true, Changed: true}, res)
	res, err = a.AddDeactivateFinalizer(ctx, FinalizerRef{Kind: obsv1.KindReservation, Namespace: ns, Name: "ada-east"})
	require.NoError(t, err)
	assert.Equal(t, FinalizerResult{Has: true}, res, "a second add changes nothing")
	assert.Equal(t, []string{kube.FinalizerDeactivate}, finalizers(obsv1.KindReservation, "ada-east"))

	holdAndDelete(t, obsv1.KindTelescope, ns, "east")
	res, err = a.AddDeactivateFinalizer(ctx, FinalizerRef{Kind: obsv1.KindTelescope, Namespace: ns, Name: "east"})
	require.NoError(t, err)
	assert.Equal(t, FinalizerResult{Deleting: true}, res)
	assert.Equal(t, []string{"example.com/hold"}, finalizers(obsv1.KindTelescope, "east"), "nothing was added to a Telescope being deleted")

	res, err = a.AddDeactivateFinalizer(ctx, FinalizerRef{Kind: obsv1.KindObservatory, Namespace: ns, Name: "lab", UID: "another"})
	require.NoError(t, err)
	assert.Equal(t, FinalizerResult{Gone: true}, res, "an object by that name but another UID is left alone")

	res, err = a.RemoveDeactivateFinalizer(ctx, FinalizerRef{Kind: obsv1.KindReservation, Namespace: ns, Name: "ada-east"})
	require.NoError(t, err)
	assert.Equal(t, FinalizerResult{Changed: true}, res)
	assert.Empty(t, finalizers(obsv1.KindReservation, "ada-east"))
	res, err = a.RemoveDeactivateFinalizer(ctx, FinalizerRef{Kind: obsv1.KindReservation, Namespace: ns, Name: "gone"})
	require.NoError(t, err)
	assert.Equal(t, FinalizerResult{Gone: true}, res)
}

func TestTheStatusIsWrittenOnlyWhenItChangesWithItsEvents(t *testing.T) {
	ns := observatoryNamespace(t, "rsv-status")
	reservationFixture(t, ns)
	a := newActivities()
	ctx := testContext(t)
	ref := ReservationRef{Namespace: ns, Name: "ada-east"}
	now := time.Now()
	facts := kube.ReservationFacts{Telescope: "east", Holder: "ada", Generation: 1}
	st := kube.ComposeReservation(kube.StepRunning(kube.ReservationBegun(obsv1.ReservationStatus{}), kube.StepWait, "Waiting for Telescope east", now), facts, now)
	ended := kube.ComposeReservation(kube.ReservationEnded(st, now), facts, now)
	events := kube.ReservationEvents(&st, &ended, "east")
	require.NotEmpty(t, events)

	out, err := a.WriteReservationStatus(ctx, ReservationStatusWrite{Ref: ref, Status: st})
	require.NoError(t, err)
	assert.True(t, out.Wrote)
	res := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
	u, err := res.Get(ctx, "ada-east", metav1.GetOptions{})
	require.NoError(t, err)
	var got obsv1.Reservation
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &got))
	assert.True(t, kube.SameReservationStatus(&st, &got.Status), "the status read back is the one written")
	assert.Equal(t, obsv1.ReservationScheduled, got.Status.Phase)

	out, err = a.WriteReservationStatus(ctx, ReservationStatusWrite{Ref: ref, Status: st, Events: events})
	require.NoError(t, err)
	assert.False(t, out.Wrote, "the same status is not written again")
	again, err := res.Get(ctx, "ada-east", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, u.GetResourceVersion(), again.GetResourceVersion())

	out, err = a.WriteReservationStatus(ctx, ReservationStatusWrite{Ref: ref, UID: string(u.GetUID()), Status: ended, Events: events})
	require.NoError(t, err)
	assert.True(t, out.Wrote)
	list, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.name", "ada-east").String(),
	})
	require.NoError(t, err)
	var reasons []string
	for _, e := range list.Items {
		reasons = append(reasons, e.Reason)
		assert.Equal(t, "Reservation", e.InvolvedObject.Kind)
		assert.Equal(t, u.GetUID(), e.InvolvedObject.UID)
	}
	assert.ElementsMatch(t, []string{"Wait", "Released"}, reasons)

	out, err = a.WriteReservationStatus(ctx, ReservationStatusWrite{Ref: ref, UID: "another", Status: st})
	require.NoError(t, err)
	assert.True(t, out.Gone, "another Reservation by that name is not written")
}

func TestTheRetryAnnotationIsRemovedOnlyWithTheValueAnswered(t *testing.T) {
	ns := observatoryNamespace(t, "rsv-retry")
	reservationFixture(t, ns)
	a := newActivities()
	ctx := testContext(t)
	ref := ReservationRef{Namespace: ns, Name: "ada-east"}
	res := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
	annotation := func() (string, bool) {
		u, err := res.Get(ctx, "ada-east", metav1.GetOptions{})
		require.NoError(t, err)
		v, ok := u.GetAnnotations()[kube.AnnotationRetry]
		return v, ok
	}

	require.NoError(t, a.RemoveRetryAnnotation(ctx, RetryRemoval{Ref: ref, Value: "older"}))
	v, ok := annotation()
	assert.True(t, ok, "a newer retry asked for meanwhile is kept")
	assert.Equal(t, "now", v)
	require.NoError(t, a.RemoveRetryAnnotation(ctx, RetryRemoval{Ref: ref, Value: "now"}))
	_, ok = annotation()
	assert.False(t, ok)
	require.NoError(t, a.RemoveRetryAnnotation(ctx, RetryRemoval{Ref: ReservationRef{Namespace: ns, Name: "gone"}, Value: "x"}))
}

func TestSignalCoordinatorRefusesWithoutATemporalClient(t *testing.T) {
	err := newActivities().SignalCoordinator(testContext(t), activities.WorkflowSignal{WorkflowID: "telescope/x/y"})
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.True(t, app.NonRetryable())
}
