// Tests of the dome locks relayed to one telescope's mounts, and to the mounts when an
// observatory has no dome, against the real API server and INDI simulators.
package observatory

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// A site whose Dome left: the next relay makes the mounts ignore domes (else they would stay
// locked to a dome no one relays any more), and the Observatory loses its LocksRelayed.
func TestWithoutADomeTheMountsIgnoreDomesAndLocksRelayedGoes(t *testing.T) {
	ctx := testContext(t)
	scope := inditest.Start(t, "indi_simulator_telescope")
	const mount = "Telescope Simulator"
	c := dialConnected(t, ctx, scope, mount)
	_, err := c.SetDomePolicy(ctx, mount, true) // as it was while the Dome was there
	require.NoError(t, err)

	ns := observatoryNamespace(t, "locks-nodome-"+utilrand.String(5))
	lab := createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}}})
	// The server runs, linking the mount, whose pod runs too.
	runsOn(t, ctx, ns, "east-telescope", kube.ResourceID{Kind: obsv1.KindMount, Name: "east"})
	a := newActivities()
	a.INDI = serverResolver{"east-telescope": scope}
	lockID := kube.ResourceIDOf(obsv1.KindObservatory, lab)
	require.NoError(t, a.writeCondition(ctx, lockID, 1, kube.LocksRelayedCondition(
		kube.ParkReport{Label: "Dome lab", Reported: true}, nil)))

	relayed, err := a.relayLocks(ctx, ns, "lab")
	require.NoError(t, err)
	assert.Empty(t, relayed, "nothing to relay without a Dome")
	_, err = c.Wait(ctx, mount, "DOME_POLICY", func(p indi.Property) bool { return p.SwitchOn("DOME_IGNORED") })
	assert.NoError(t, err, "the mount ignores domes")
	var o obsv1.Observatory
	readObject(t, obsv1.KindObservatory, ns, "lab", &o)
	for _, cond := range o.Status.Conditions {
		assert.NotEqual(t, obsv1.ConditionLocksRelayed, cond.Type)
	}
}

// Configure relays to its own telescope only: its mount heeds the dome and hears its state,
// the dome hears that the mount is unparked (the simulator starts so) and refuses to park,
// and the site's other telescope, whose server does not answer, is not dialled.
func TestARelayOfOneTelescopeSkipsTheOthers(t *testing.T) {
	ctx := testContext(t)
	domeSrv := inditest.Start(t, "indi_simulator_dome")
	scope := inditest.Start(t, "indi_simulator_telescope")
	const dome, mount = "Dome Simulator", "Telescope Simulator"
	site := dialConnected(t, ctx, domeSrv, dome)
	_, err := site.SetMountPolicy(ctx, dome, true) // as StartSite leaves it
	require.NoError(t, err)
	_, err = site.SetActiveDevices(ctx, dome, map[string]string{indi.ActiveTelescope: kube.MountsRelayDevice("lab")})
	require.NoError(t, err)
	tel := dialConnected(t, ctx, scope, mount)

	ns := observatoryNamespace(t, "locks-one-"+utilrand.String(5))
	createLab(t, ns)
	u := createObject(t, obsv1.KindDome, ns, &obsv1.Dome{ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"}, DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}}}})
	recordINDIDevice(t, ctx, obsv1.KindDome, ns, u, dome)
	runsOn(t, ctx, ns, "lab-observatory", kube.ResourceID{Kind: obsv1.KindDome, Name: "lab"})
	for _, name := range []string{"east", "west"} {
		createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
		createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: name},
				DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}}})
		runsOn(t, ctx, ns, name+"-telescope", kube.ResourceID{Kind: obsv1.KindMount, Name: name})
	}
	a := newActivities()
	a.INDI = serverResolver{"lab-observatory": domeSrv, "east-telescope": scope, "west-telescope": "127.0.0.1:1"}
	_, err = a.relayLocks(ctx, ns, "lab")
	require.Error(t, err, "the whole site's relay dials west, which does not answer")

	relayed, err := a.relayLocksOf(ctx, ns, "lab", "east")
	require.NoError(t, err)
	assert.Equal(t, "Dome lab unparked to Telescope east's mounts, mounts unparked to Dome lab", relayed)
	assert.Equal(t, []string{"DOME_LOCKS"}, onSwitches(t, tel, mount, "DOME_POLICY"))
	active, _ := tel.Property(mount, "ACTIVE_DEVICES")
	name, _ := active.Text(indi.ActiveDome)
	assert.Equal(t, dome, name)
	_, err = site.SetDomeParked(ctx, dome, true)
	assert.Error(t, err, "the dome may not park: the mount is unparked")

	// Configure relays over its own client: two connections (to its telescope's server and
	// to the site's), not a third to read the mounts again.
	before := indi.Totals().Connections
	res, err := a.Configure(ctx, StepInput{Namespace: ns, Reservation: "tonight", Telescope: "east", Observatory: "lab", Step: kube.StepConfigure})
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "relayed Dome lab unparked to Telescope east's mounts")
	assert.Equal(t, uint64(2), indi.Totals().Connections-before, "INDI connections of one Configure")
}

// runsOn creates the pods of a server that runs one device, so the device counts as running.
func runsOn(t *testing.T, ctx context.Context, ns, server string, id kube.ResourceID) {
	t.Helper()
	device := kube.ObjectName(id.Kind, id.Name)
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: server, Annotations: map[string]string{kube.AnnotationDrivers: device + ":7625\n"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: device, Labels: kube.ObjectLabels(device, kube.RoleDevice, server, id)}},
	} {
		p.Spec.Containers = []corev1.Container{{Name: "indi", Image: "example.com/indi"}}
		_, err := env.Kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		require.NoError(t, err)
	}
}

// onSwitches are the switches on in a device's vector, which it must have.
func onSwitches(t *testing.T, cl *indi.Client, dev, vector string) []string {
	t.Helper()
	p, ok := cl.Property(dev, vector)
	require.True(t, ok, "%s has %s", dev, vector)
	return p.OnSwitches()
}
