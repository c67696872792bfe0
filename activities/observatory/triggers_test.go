// Integration tests of the triggers (park on wind, unpark after calm, what an action requires, the
// retry annotation), against the real API server and INDI simulators.
package observatory

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// setSafe writes the WeatherStation's Safe condition as the device observer does.
func setSafe(t *testing.T, ctx context.Context, ns string, status metav1.ConditionStatus, at time.Time) {
	t.Helper()
	setCondition(t, ctx, ns, obsv1.KindWeatherStation, "lab", "Safe", status, at)
}

// setCondition writes one condition as the only one of a resource's status.
func setCondition(t *testing.T, ctx context.Context, ns string, kind obsv1.Kind, name, typ string, status metav1.ConditionStatus, at time.Time) {
	t.Helper()
	res := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns)
	u, err := res.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, unstructured.SetNestedSlice(u.Object, []any{map[string]any{
		"type": typ, "status": string(status), "reason": typ, "message": string(kind) + " " + name + " says so",
		"lastTransitionTime": at.UTC().Format(time.RFC3339),
	}}, "status", "conditions"))
	_, err = res.UpdateStatus(ctx, u, metav1.UpdateOptions{})
	require.NoError(t, err)
}

func triggerRecord(t *testing.T, ns string, i int) obsv1.ProcedureRecord {
	t.Helper()
	var d obsv1.Dome
	readObject(t, obsv1.KindDome, ns, "lab", &d)
	rec := kube.FindProcedureRecord(d.Status.Procedures, kube.TriggerRecord(i))
	require.NotNil(t, rec, "no record of triggers[%d]", i)
	return *rec
}

// TestTriggersParkOnWindAndUnparkAfterCalm drives a real dome
// simulator through a WeatherStation's Safe condition: unsafe parks it at once, once per
// transition; calm unparks it only after its `for`, and a flap before then lets that run go.
func TestTriggersParkOnWindAndUnparkAfterCalm(t *testing.T) {
	const device = "Dome Simulator"
	ctx, c, addr := connectedSimulator(t, "indi_simulator_dome", device)
	ns := observatoryNamespace(t, "triggers-dome")
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec:       obsv1.TelescopeSpec{Observatory: "lab"},
	})
	createObject(t, obsv1.KindWeatherStation, ns, &obsv1.WeatherStation{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.WeatherStationSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_weather"}}},
	})
	weather := obsv1.ConditionRef{Kind: obsv1.KindWeatherStation, Name: "lab", Type: "Safe"}
	unsafe := weather
	unsafe.Status = metav1.ConditionFalse
	dome := createObject(t, obsv1.KindDome, ns, &obsv1.Dome{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}},
			ParkProcedures: obsv1.ParkProcedures{Triggers: []obsv1.ParkTrigger{
				{When: obsv1.TriggerCondition{ConditionRef: unsafe}, Run: []obsv1.ParkAction{{State: obsv1.Parked}}},
				{When: obsv1.TriggerCondition{ConditionRef: weather, For: "20m"}, Run: []obsv1.ParkAction{{State: obsv1.Unparked}}},
			}}},
	})
	require.NoError(t, unstructured.SetNestedField(dome.Object, device, "status", "indiDevice"))
	_, err := env.Dynamic.Resource(obsv1.KindDome.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, dome, metav1.UpdateOptions{})
	require.NoError(t, err)

	now := procStarted
	a := procActivities()
	a.INDI = &fixedResolver{addr: addr}
	a.Now = func() time.Time { return now }
	in := procInput(ns, "Triggers", true)
	parked := func() bool {
		p, ok := c.Property(device, "DOME_PARK")
		return ok && p.SwitchOn("PARK")
	}
	pass := func(at time.Time) TriggersResult {
		t.Helper()
		now = at
		res, err := a.RunTriggers(ctx, in)
		require.NoError(t, err)
		return res
	}

	// Calm since t0: the unpark waits its 20 minutes, Pending.
	t0 := procStarted
	setSafe(t, ctx, ns, metav1.ConditionTrue, t0)
	res := pass(t0.Add(time.Minute))
	assert.Empty(t, res.Ran)
	assert.Equal(t, 1, res.Pending)
	require.NotNil(t, res.NextAt)
	assert.Equal(t, t0.Add(20*time.Minute), *res.NextAt)
	assert.Equal(t, obsv1.RunPending, triggerRecord(t, ns, 1).State)
	res = pass(t0.Add(21 * time.Minute))
	assert.Equal(t, []string{"Dome lab triggers[1]: Done: state: Unparked"}, res.Ran)
	assert.False(t, parked())

	// Wind: the dome parks at once, and only once for that transition.
	setSafe(t, ctx, ns, metav1.ConditionFalse, t0.Add(30*time.Minute))
	res = pass(t0.Add(30 * time.Minute))
	assert.Equal(t, []string{"Dome lab triggers[0]: Done: state: Parked"}, res.Ran)
	assert.True(t, parked())
	assert.Empty(t, pass(t0.Add(31*time.Minute)).Ran, "one run per transition")

	// Calm, then wind again before the 20 minutes: the unpark is let go, the park runs again.
	setSafe(t, ctx, ns, metav1.ConditionTrue, t0.Add(40*time.Minute))
	assert.Equal(t, 1, pass(t0.Add(41*time.Minute)).Pending)
	setSafe(t, ctx, ns, metav1.ConditionFalse, t0.Add(45*time.Minute))
	res = pass(t0.Add(45 * time.Minute))
	assert.Equal(t, []string{"Dome lab triggers[0]: Done: state: Parked"}, res.Ran)
	assert.Zero(t, res.Pending)
	skipped := triggerRecord(t, ns, 1)
	assert.Equal(t, obsv1.RunSkipped, skipped.State)
	assert.Equal(t, "Skipped: the condition changed before the run could start", skipped.Summary)
	assert.True(t, parked())
	// Calm again: the unpark waits; deactivation lets it go.
	setSafe(t, ctx, ns, metav1.ConditionTrue, t0.Add(50*time.Minute))
	assert.Equal(t, 1, pass(t0.Add(51*time.Minute)).Pending)
	now = t0.Add(52 * time.Minute)
	require.NoError(t, a.skipTriggerRuns(ctx, in))
	assert.Equal(t, "Skipped: deactivation began", triggerRecord(t, ns, 1).Summary)
	assert.Equal(t, obsv1.RunDone, triggerRecord(t, ns, 0).State, "an ended run stays as it ended")

	reasons := eventReasons(t, ns, obsv1.KindDome, "lab")
	assert.Contains(t, reasons, kube.ReasonProcedureStarted)
	assert.Contains(t, reasons, kube.ReasonProcedureDone)
}

// TestATriggerRunWaitsForWhatItsActionsRequire: the dome opened, but the weather is unsafe,
// so the telescope's job waits, Pending and saying for what, and runs once it is safe.
func TestATriggerRunWaitsForWhatItsActionsRequire(t *testing.T) {
	ctx := testContext(t)
	ns := observatoryNamespace(t, "triggers-requires")
	createLab(t, ns)
	createObject(t, obsv1.KindWeatherStation, ns, &obsv1.WeatherStation{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.WeatherStationSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_weather"}}},
	})
	createObject(t, obsv1.KindDome, ns, &obsv1.Dome{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}}},
	})
	focus := jobAction("example.com/focus")
	focus.Requires = []obsv1.ConditionRef{{Kind: obsv1.KindWeatherStation, Name: "lab", Type: "Safe"}}
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{Triggers: []obsv1.Trigger{
			{When: obsv1.TriggerCondition{ConditionRef: obsv1.ConditionRef{Kind: obsv1.KindDome, Name: "lab", Type: "Open"}}, Run: []obsv1.Action{focus}},
		}}},
	})
	// Real time: the Job's creation time is the server's.
	t0 := time.Now().UTC().Truncate(time.Second).Add(-time.Minute)
	a := procActivities()
	in := procInput(ns, "Triggers", true)
	tel := func() obsv1.ProcedureRecord {
		var got obsv1.Telescope
		readObject(t, obsv1.KindTelescope, ns, "east", &got)
		rec := kube.FindProcedureRecord(got.Status.Procedures, kube.TriggerRecord(0))
		require.NotNil(t, rec)
		return *rec
	}

	setCondition(t, ctx, ns, obsv1.KindDome, "lab", "Open", metav1.ConditionTrue, t0)
	setSafe(t, ctx, ns, metav1.ConditionFalse, t0)
	res, err := a.RunTriggers(ctx, in)
	require.NoError(t, err)
	assert.Empty(t, res.Ran)
	assert.Equal(t, 1, res.Pending)
	assert.Equal(t, obsv1.RunPending, tel().State)
	assert.Equal(t, "Waiting for WeatherStation lab Safe=True", tel().Summary)
	assert.Empty(t, jobsOf(t, ns, obsv1.KindTelescope, "east"), "nothing started")

	setSafe(t, ctx, ns, metav1.ConditionTrue, t0.Add(time.Second))
	res, err = a.RunTriggers(ctx, in)
	require.NoError(t, err)
	require.Len(t, res.Ran, 1)
	assert.Equal(t, obsv1.RunDone, tel().State, res.Ran[0])
	assert.Len(t, jobsOf(t, ns, obsv1.KindTelescope, "east"), 1)
}

// TestTheRetryAnnotationRunsAFailedTriggerRunAgain: a run that failed stays Failed, pass
// after pass, until the resource's retry annotation asks for it again while its condition
// holds; the annotation is then removed.
func TestTheRetryAnnotationRunsAFailedTriggerRunAgain(t *testing.T) {
	ctx := testContext(t)
	ns := observatoryNamespace(t, "triggers-retry")
	createLab(t, ns)
	createObject(t, obsv1.KindDome, ns, &obsv1.Dome{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}}},
	})
	focus := jobAction("example.com/focus")
	focus.After = []obsv1.After{{Kind: obsv1.KindMount, Name: "north"}}
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{Triggers: []obsv1.Trigger{
			{When: obsv1.TriggerCondition{ConditionRef: obsv1.ConditionRef{Kind: obsv1.KindDome, Name: "lab", Type: "Open"}}, Run: []obsv1.Action{focus}},
		}}},
	})
	a := procActivities()
	in := procInput(ns, "Triggers", true)
	tel := func() (obsv1.ProcedureRecord, map[string]string) {
		var got obsv1.Telescope
		readObject(t, obsv1.KindTelescope, ns, "east", &got)
		rec := kube.FindProcedureRecord(got.Status.Procedures, kube.TriggerRecord(0))
		require.NotNil(t, rec)
		return *rec, got.Annotations
	}
	setCondition(t, ctx, ns, obsv1.KindDome, "lab", "Open", metav1.ConditionTrue, time.Now().Add(-time.Minute))

	_, err := a.RunTriggers(ctx, in)
	require.NoError(t, err)
	rec, _ := tel()
	assert.Equal(t, obsv1.RunFailed, rec.State)
	assert.Contains(t, rec.Summary, "after[0]: no Mount north")
	res, err := a.RunTriggers(ctx, in)
	require.NoError(t, err)
	assert.Empty(t, res.Ran, "a failed run stays failed")

	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "north"},
		Spec:       obsv1.MountSpec{DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}},
	})
	_, err = env.Dynamic.Resource(obsv1.KindTelescope.GroupVersionResource()).Namespace(ns).Patch(ctx, "east", types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"`+kube.AnnotationRetry+`":"1"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	res, err = a.RunTriggers(ctx, in)
	require.NoError(t, err)
	require.Len(t, res.Ran, 1)
	rec, annotations := tel()
	assert.Equal(t, obsv1.RunDone, rec.State, res.Ran[0])
	assert.NotContains(t, annotations, kube.AnnotationRetry, "the retry was answered")
}
