// Triggers on the real simulators: wind parks the mount and then the dome, and calm opens the
// dome again only once the trigger's `for` has run out.
package reservation

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// stormTriggers: the mount parks when the weather turns unsafe; the dome parks after the
// mounts; and once the weather has been safe for a while (5 s here, 20 minutes in a real
// site), the dome opens again.
func stormTriggers(ns string) func(*testing.T) {
	return func(t *testing.T) {
		t.Helper()
		ctx := context.Background()
		patch := func(kind obsv1.Kind, name, body string) {
			_, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{})
			require.NoError(t, err, "add triggers to %s %s", kind, name)
		}
		unsafe := `{"kind":"WeatherStation","name":"lab","type":"Safe","status":"False"}`
		patch(obsv1.KindMount, "east", `{"spec":{"triggers":[{"when":`+unsafe+`,"run":[{"state":"Parked"}]}]}}`)
		patch(obsv1.KindDome, "lab", `{"spec":{"triggers":[`+
			`{"when":`+unsafe+`,"run":[{"state":"Parked","after":[{"kind":"Mount"}]}]},`+
			`{"when":{"kind":"WeatherStation","name":"lab","type":"Safe","for":"5s"},"run":[{"state":"Unparked"}]}]}}`)
	}
}

func triggerRun(t *testing.T, ns string, kind obsv1.Kind, name string, i int) *obsv1.ProcedureRecord {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var st obsv1.DeviceStatus
	if m, ok := u.Object["status"].(map[string]any); ok {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st))
	}
	return kube.FindProcedureRecord(st.Procedures, kube.TriggerRecord(i))
}

// TestWindParksTheMountThenTheDomeAndCalmOpensTheDomeAgain runs the example reservation with
// the storm triggers against the real weather, dome and telescope simulators: the wind the
// test sets on the weather simulator makes it unsafe, which the device observer writes as
// Safe=False and tells the workflow, whose trigger pass parks the mount and then the dome.
// Calm opens the dome again, but only once the `for` has run out.
func TestWindParksTheMountThenTheDomeAndCalmOpensTheDomeAgain(t *testing.T) {
	ns, _, local := readyReservation(t, func(ns string) { stormTriggers(ns)(t) })

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	addr, err := local.Address(ctx, observatory.INDIServer{Namespace: ns, Name: "lab-observatory",
		Drivers: []string{"indi_simulator_dome", "indi_simulator_weather"}})
	require.NoError(t, err)
	site, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	defer site.Close()
	wind := func(kph float64) {
		t.Helper()
		_, err := site.SetNumber(ctx, "Weather Simulator", "WEATHER_CONTROL", map[string]float64{"Wind": kph}, 0)
		require.NoError(t, err)
		require.NoError(t, site.Press(ctx, "Weather Simulator", "WEATHER_REFRESH", "REFRESH"))
	}
	domeParked := func() bool {
		p, ok := site.Property("Dome Simulator", "DOME_PARK")
		return ok && p.SwitchOn("PARK")
	}
	require.Eventually(t, func() bool { return !domeParked() }, time.Minute, 200*time.Millisecond, "activation opened the dome")

	telAddr, err := local.Address(ctx, observatory.INDIServer{Namespace: ns, Name: "east-telescope",
		Drivers: []string{"indi_simulator_telescope"}})
	require.NoError(t, err)
	tel, err := indi.Dial(ctx, telAddr)
	require.NoError(t, err)
	defer tel.Close()
	require.NoError(t, tel.Sync(ctx, "Telescope Simulator"))

	wind(40)
	windAt := time.Now()
	var mount, dome *obsv1.ProcedureRecord
	var mountParked, domeClosed time.Time
	// The triggers and the site guard both park the mount, then the dome: until the mount
	// reports parked, the dome does not move (the simulated dome takes seconds to park, so a
	// look every 200 ms sees it).
	early := ""
	require.Eventually(t, func() bool {
		mount, dome = triggerRun(t, ns, obsv1.KindMount, "east", 0), triggerRun(t, ns, obsv1.KindDome, "lab", 0)
		m, _ := tel.Property("Telescope Simulator", "TELESCOPE_PARK")
		parked := m.SwitchOn("PARK") && m.State == prop.Ok
		if parked && mountParked.IsZero() {
			mountParked = time.Now()
		}
		if p, ok := site.Property("Dome Simulator", "DOME_PARK"); ok && !parked && (p.State == prop.Busy || p.SwitchOn("PARK")) && early == "" {
			early = "the dome's park was " + string(p.State) + " before the mount was parked"
		}
		if s, _ := site.Property("Dome Simulator", "DOME_SHUTTER"); s.SwitchOn("SHUTTER_CLOSE") && s.State == prop.Ok && domeClosed.IsZero() {
			domeClosed = time.Now()
		}
		return mount != nil && dome != nil && mount.State == obsv1.RunDone && dome.State == obsv1.RunDone && !domeClosed.IsZero()
	}, 2*time.Minute, 200*time.Millisecond, "the storm parked the mount and the dome")
	assert.True(t, domeParked())
	assert.Empty(t, early)
	t.Logf("runner alive, from the wind: the mount parked in %.1f s, the dome closed in %.1f s",
		mountParked.Sub(windAt).Seconds(), domeClosed.Sub(windAt).Seconds())
	// The site guard parked on the same Alert: the Observatory records it, with no second
	// Event beside the triggers' own.
	require.Eventually(t, func() bool {
		var o obsv1.Observatory
		u, err := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Get(ctx, "lab", metav1.GetOptions{})
		require.NoError(t, err)
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &o))
		return o.Status.LastSafetyPark != nil && !o.Status.LastSafetyPark.RunnerAway
	}, time.Minute, 200*time.Millisecond, "the Observatory records the guard's park, made with the runner there")
	events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + kube.ReasonSafetyPark})
	require.NoError(t, err)
	assert.Empty(t, events.Items, "no ParkedBySafety Event while the runner was there")

	wind(0)
	var open *obsv1.ProcedureRecord
	require.Eventually(t, func() bool {
		open = triggerRun(t, ns, obsv1.KindDome, "lab", 1)
		return open != nil && open.State == obsv1.RunDone && open.Since.After(dome.Since.Time)
	}, 2*time.Minute, 500*time.Millisecond, "calm opened the dome again")
	assert.False(t, domeParked())
	assert.False(t, open.StartTime.Time.Before(open.Since.Add(5*time.Second)), "not before 5 s of calm: calm since %s, opened at %s",
		open.Since, open.StartTime)
	assert.Equal(t, obsv1.RunDone, triggerRun(t, ns, obsv1.KindMount, "east", 0).State, "calm does not run the storm's trigger again")
}
