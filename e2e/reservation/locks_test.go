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
	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TestTheDomeAndTheMountLockEachOtherAcrossTheirServers runs the example reservation: the
// dome is on the observatory's indiserver and the mount on the telescope's, so only the
// runner's relay lets their drivers lock each other. A person then moves them with their own
// INDI client, as a user of the Ready endpoint would: the dome may not park while the mount
// is unparked, and the mount may not unpark while the dome is parked. When the Dome leaves the
// site, the mount no longer heeds it.
func TestTheDomeAndTheMountLockEachOtherAcrossTheirServers(t *testing.T) {
	ns, c, local := readyReservation(t)
	require.Eventually(t, func() bool { l := locksRelayed(t, ns); return l != nil && l.Reason == kube.ReasonRelaying },
		time.Minute, 200*time.Millisecond, "LocksRelayed is True")
	assert.Equal(t, "Relaying the park states of Dome lab and Mount east", locksRelayed(t, ns).Message)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	site := dialServer(t, ctx, local, ns, "lab-observatory", "indi_simulator_dome", "indi_simulator_weather")
	tel := dialServer(t, ctx, local, ns, "east-telescope", "indi_simulator_telescope")
	const dome, mount = "Dome Simulator", "Telescope Simulator"
	for cl, dev := range map[*indi.Client]string{site: dome, tel: mount} {
		require.NoError(t, cl.Sync(ctx, dev))
	}
	assert.Equal(t, []string{"DOME_LOCKS"}, onSwitches(t, tel, mount, "DOME_POLICY"), "Configure made the mount heed the dome")
	assert.Equal(t, []string{"MOUNT_LOCKS"}, onSwitches(t, site, dome, "MOUNT_POLICY"), "StartSite made the dome heed the mounts")
	active, _ := tel.Property(mount, "ACTIVE_DEVICES")
	domeName, _ := active.Text(indi.ActiveDome)
	assert.Equal(t, dome, domeName)

	// Unparked at once: the simulator's park position is where it stands.
	_, err := tel.SetNumber(ctx, mount, "TELESCOPE_PARK_POSITION", map[string]float64{"PARK_HA": -6, "PARK_DEC": 90}, 1e-6)
	require.NoError(t, err)
	domePos, _ := site.Property(dome, "ABS_DOME_POSITION")
	az, _ := domePos.Number("DOME_ABSOLUTE_POSITION")
	_, err = site.SetNumber(ctx, dome, "DOME_PARK_POSITION", map[string]float64{"PARK_AZ": az}, 0.01)
	require.NoError(t, err)

	// The simulated mount starts unparked, which Configure relayed: the dome may not park.
	p, _ := tel.Property(mount, "TELESCOPE_PARK")
	require.True(t, p.SwitchOn("UNPARK"), "the mount is unparked: %s", p.Summary())
	_, err = site.SetDomeParked(ctx, dome, true)
	refusedBy(t, err, "DOME_PARK")

	// Once the mount is parked (the observer relays it), the dome may park; once the dome is
	// parked, the mount may not unpark.
	domeUnlocked := awaitLock(t, ctx, site, dome, "unlock")
	_, err = tel.SetMountParked(ctx, mount, true)
	require.NoError(t, err)
	domeUnlocked()
	mountLocked := awaitLock(t, ctx, tel, mount, "locked")
	_, err = site.SetDomeParked(ctx, dome, true)
	require.NoError(t, err, "the dome parks after the mount")
	mountLocked()
	_, err = tel.SetMountParked(ctx, mount, false)
	refusedBy(t, err, "TELESCOPE_PARK")

	// The dome opens again: the mount may unpark.
	mountUnlocked := awaitLock(t, ctx, tel, mount, "unlock")
	_, err = site.SetDomeParked(ctx, dome, false)
	require.NoError(t, err)
	mountUnlocked()
	_, err = tel.SetMountParked(ctx, mount, false)
	require.NoError(t, err, "the mount unparks under an open dome")

	theMountHeedsNoDomeOnceTheDomeLeaves(t, ctx, c, tel, ns)
}

// theMountHeedsNoDomeOnceTheDomeLeaves: the Dome leaves the site (its parent edited away)
// while Ready: it runs its deactivation (it parks, the mount being parked first), and the
// mount no longer heeds a dome: it unparks under the parked dome, and the Observatory has no
// LocksRelayed.
func theMountHeedsNoDomeOnceTheDomeLeaves(t *testing.T, ctx context.Context, c client.Client, tel *indi.Client, ns string) {
	t.Helper()
	const mount = "Telescope Simulator"
	_, err := tel.SetMountParked(ctx, mount, true)
	require.NoError(t, err)
	_, err = env.Dynamic.Resource(obsv1.KindDome.GroupVersionResource()).Namespace(ns).Patch(ctx, "lab", types.MergePatchType,
		[]byte(`{"spec":{"observatory":null}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	deviceChanged(t, c, ns)
	// At once, not at the observer's next look (a minute).
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	_, err = tel.Wait(wctx, mount, "DOME_POLICY", func(p prop.Property) bool { return p.SwitchOn("DOME_IGNORED") })
	require.NoError(t, err, "the mount ignores domes once the Dome left")
	require.Eventually(t, func() bool { return locksRelayed(t, ns) == nil }, 30*time.Second, 200*time.Millisecond, "no Dome, no LocksRelayed")
	_, err = tel.SetMountParked(ctx, mount, false)
	require.NoError(t, err, "the mount unparks: no dome locks it")
}

// locksRelayed is Observatory lab's LocksRelayed condition, nil when it has none.
func locksRelayed(t *testing.T, ns string) *obsv1.Condition {
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

// dialServer dials the local indiserver that stands in for the server pod, closed when the
// test ends.
func dialServer(t *testing.T, ctx context.Context, local *observatory.LocalINDI, ns, server string, drivers ...string) *indi.Client {
	t.Helper()
	addr, err := local.Address(ctx, observatory.INDIServer{Namespace: ns, Name: server, Drivers: drivers})
	require.NoError(t, err)
	cl, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	t.Cleanup(func() { cl.Close() })
	return cl
}

// onSwitches are the switches on in a device's vector, which it must have.
func onSwitches(t *testing.T, cl *indi.Client, dev, vector string) []string {
	t.Helper()
	p, ok := cl.Property(dev, vector)
	require.True(t, ok, "%s has %s", dev, vector)
	return p.OnSwitches()
}

// refusedBy wants err to be the driver's refusal of vector.
func refusedBy(t *testing.T, err error, vector string) {
	t.Helper()
	var ae *indi.AlertError
	require.True(t, errors.As(err, &ae), "want the driver's refusal, got %v", err)
	assert.Equal(t, vector, ae.Property)
	t.Logf("%s refused: %s", vector, ae.Message)
}

// awaitLock subscribes to dev's messages now; await returns once the driver says its lock is
// set to state ("Lock is set to: locked", or "unlock" and "unlocked"), as it does when a relay
// changes it: wait for that, not for time.
func awaitLock(t *testing.T, ctx context.Context, cl *indi.Client, dev, state string) (await func()) {
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
