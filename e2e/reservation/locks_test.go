// The dome and the mount lock each other across their INDI servers while a reservation is
// Ready, as a user of the Ready endpoint meets it, until the Dome leaves the site.
package reservation

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/activities"
	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/workflows"
)

// TestTheDomeAndTheMountLockEachOtherAcrossTheirServers runs the example reservation: the
// dome is on the observatory's indiserver and the mount on the telescope's, so only the
// runner's relay lets their drivers lock each other. A person then moves them with their own
// INDI client, as a user of the Ready endpoint would: the dome may not park while the mount
// is unparked, and the mount may not unpark while the dome is parked. When the Dome leaves the
// site, the mount no longer heeds it.
func TestTheDomeAndTheMountLockEachOtherAcrossTheirServers(t *testing.T) {
	ns, queue, c := startReservation(t)
	local := startWorker(t, c, queue)
	awaitReservation(t, ns, "tonight", "became Ready", func(r *obsv1.Reservation) bool {
		return r != nil && r.Status.Phase == obsv1.ReservationReady
	})
	locks := func() *obsv1.Condition {
		u, err := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Get(context.Background(), "lab", metav1.GetOptions{})
		require.NoError(t, err)
		var st obsv1.ObservatoryStatus
		if m, ok := u.Object["status"].(map[string]any); ok {
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st))
		}
		for i := range st.Conditions {
			if st.Conditions[i].Type == obsv1.ConditionLocksRelayed {
				return &st.Conditions[i]
			}
		}
		return nil
	}
	require.Eventually(t, func() bool { l := locks(); return l != nil && l.Reason == kube.ReasonRelaying },
		time.Minute, 200*time.Millisecond, "LocksRelayed is True")
	assert.Equal(t, "Relaying the park states of Dome lab and Mount east", locks().Message)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dial := func(server string, drivers ...string) *indi.Client {
		addr, err := local.Address(ctx, activities.INDIServer{Namespace: ns, Name: server, Drivers: drivers})
		require.NoError(t, err)
		cl, err := indi.Dial(ctx, addr)
		require.NoError(t, err)
		t.Cleanup(func() { cl.Close() })
		return cl
	}
	site := dial("lab-observatory", "indi_simulator_dome", "indi_simulator_weather")
	tel := dial("east-telescope", "indi_simulator_telescope")
	const dome, mount = "Dome Simulator", "Telescope Simulator"
	for cl, dev := range map[*indi.Client]string{site: dome, tel: mount} {
		require.NoError(t, cl.Sync(ctx, dev))
	}
	policy := func(cl *indi.Client, dev, vector string) []string {
		p, ok := cl.Property(dev, vector)
		require.True(t, ok, "%s has %s", dev, vector)
		return p.OnSwitches()
	}
	assert.Equal(t, []string{"DOME_LOCKS"}, policy(tel, mount, "DOME_POLICY"), "Configure made the mount heed the dome")
	assert.Equal(t, []string{"MOUNT_LOCKS"}, policy(site, dome, "MOUNT_POLICY"), "StartSite made the dome heed the mounts")
	active, _ := tel.Property(mount, "ACTIVE_DEVICES")
	domeName, _ := active.Text(indi.ActiveDome)
	assert.Equal(t, dome, domeName)

	refused := func(err error, vector string) {
		t.Helper()
		var ae *indi.AlertError
		require.True(t, errors.As(err, &ae), "want the driver's refusal, got %v", err)
		assert.Equal(t, vector, ae.Property)
		t.Logf("%s refused: %s", vector, ae.Message)
	}
	// Unparked at once: the simulator's park position is where it stands.
	_, err := tel.SetNumber(ctx, mount, "TELESCOPE_PARK_POSITION", map[string]float64{"PARK_HA": -6, "PARK_DEC": 90}, 1e-6)
	require.NoError(t, err)
	domePos, _ := site.Property(dome, "ABS_DOME_POSITION")
	az, _ := domePos.Number("DOME_ABSOLUTE_POSITION")
	_, err = site.SetNumber(ctx, dome, "DOME_PARK_POSITION", map[string]float64{"PARK_AZ": az}, 0.01)
	require.NoError(t, err)

	// The drivers say when a relay changes their lock ("Lock is set to: locked", or "unlock"
	// and "unlocked"): wait for that, not for time.
	lock := func(cl *indi.Client, dev, state string) (await func()) {
		sub := cl.Subscribe(indi.Filter{Device: dev})
		return func() {
			t.Helper()
			defer sub.Close()
			for {
				ev, err := sub.Next(ctx)
				require.NoError(t, err, "%s's lock set to %s", dev, state)
				if ev.Kind == indi.Messaged && strings.Contains(ev.Message, "Lock is set to: "+state) {
					return
				}
			}
		}
	}

	// The simulated mount starts unparked, which Configure relayed: the dome may not park.
	p, _ := tel.Property(mount, "TELESCOPE_PARK")
	require.True(t, p.SwitchOn("UNPARK"), "the mount is unparked: %s", p.Summary())
	_, err = site.SetDomeParked(ctx, dome, true)
	refused(err, "DOME_PARK")

	// Once the mount is parked (the observer relays it), the dome may park; once the dome is
	// parked, the mount may not unpark.
	domeUnlocked := lock(site, dome, "unlock")
	_, err = tel.SetMountParked(ctx, mount, true)
	require.NoError(t, err)
	domeUnlocked()
	mountLocked := lock(tel, mount, "locked")
	_, err = site.SetDomeParked(ctx, dome, true)
	require.NoError(t, err, "the dome parks after the mount")
	mountLocked()
	_, err = tel.SetMountParked(ctx, mount, false)
	refused(err, "TELESCOPE_PARK")

	// The dome opens again: the mount may unpark.
	mountUnlocked := lock(tel, mount, "unlock")
	_, err = site.SetDomeParked(ctx, dome, false)
	require.NoError(t, err)
	mountUnlocked()
	_, err = tel.SetMountParked(ctx, mount, false)
	require.NoError(t, err, "the mount unparks under an open dome")

	// The Dome leaves the site (its parent edited away) while Ready: it runs its deactivation
	// (it parks, the mount being parked first), and the mount no longer heeds a dome: it
	// unparks under the parked dome, and the Observatory has no LocksRelayed.
	_, err = tel.SetMountParked(ctx, mount, true)
	require.NoError(t, err)
	_, err = env.Dynamic.Resource(obsv1.KindDome.GroupVersionResource()).Namespace(ns).Patch(ctx, "lab", types.MergePatchType,
		[]byte(`{"spec":{"observatory":null}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.NoError(t, c.SignalWorkflow(ctx, workflows.ReservationWorkflowID(ns, "tonight"), "",
		workflows.ReservationChanged, workflows.ReservationChange{Why: "device"}))
	// At once, not at the observer's next look (a minute).
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	_, err = tel.Wait(wctx, mount, "DOME_POLICY", func(p indi.Property) bool { return p.SwitchOn("DOME_IGNORED") })
	require.NoError(t, err, "the mount ignores domes once the Dome left")
	require.Eventually(t, func() bool { return locks() == nil }, 30*time.Second, 200*time.Millisecond, "no Dome, no LocksRelayed")
	_, err = tel.SetMountParked(ctx, mount, false)
	require.NoError(t, err, "the mount unparks: no dome locks it")
}
