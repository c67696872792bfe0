// Tests of the dome and mount locks as the runner sets them and arms the site guard with
// them, against the real API server, INDI simulators and the guard.
package observatory

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// A site whose Dome left: the mounts ignore domes (else they would stay locked to a dome no
// one tells them of any more), and the Observatory loses its LocksRelayed.
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

	site, err := a.readServer(ctx, ns, obsv1.KindObservatory, "lab")
	require.NoError(t, err)
	summary, err := a.writeDomePolicies(ctx, site)
	require.NoError(t, err)
	assert.Empty(t, summary, "no lock to write, and the site's server does not run")
	_, err = c.Wait(ctx, mount, "DOME_POLICY", func(p prop.Property) bool { return p.SwitchOn("DOME_IGNORED") })
	assert.NoError(t, err, "the mount ignores domes")
	var o obsv1.Observatory
	readObject(t, obsv1.KindObservatory, ns, "lab", &o)
	for _, cond := range o.Status.Conditions {
		assert.NotEqual(t, obsv1.ConditionLocksRelayed, cond.Type)
	}
}

// The site guard is told the telescopes whose reservation holds their mounts, with their
// servers: east's is held, west's is not and is left out. Its dome then refuses to park while
// east's mount is unparked, and the Observatory shows what the guard holds.
func TestTheGuardIsToldTheHeldTelescopes(t *testing.T) {
	ctx := testContext(t)
	self, err := os.Executable() // the test binary serves the guard (testenv.Run)
	require.NoError(t, err)
	link := filepath.Join(t.TempDir(), guard.Driver)
	require.NoError(t, os.Symlink(self, link))
	domeSrv := inditest.Start(t, "indi_simulator_dome", link)
	const dome, mount = "Dome Simulator", "Telescope Simulator"
	site := dialConnected(t, ctx, domeSrv, dome)
	_, err = site.SetMountPolicy(ctx, dome, true) // as StartSite leaves it
	require.NoError(t, err)
	_, err = site.SetActiveDevices(ctx, dome, map[string]string{indi.ActiveTelescope: guard.Device})
	require.NoError(t, err)

	ns := observatoryNamespace(t, "locks-guard-"+utilrand.String(5))
	createLab(t, ns)
	u := createObject(t, obsv1.KindDome, ns, &obsv1.Dome{ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"}, DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}}}})
	recordINDIDevice(t, ctx, obsv1.KindDome, ns, u, dome)
	runsOn(t, ctx, ns, "lab-observatory", kube.ResourceID{Kind: obsv1.KindDome, Name: "lab"})
	resolver := serverResolver{"lab-observatory": domeSrv}
	for _, name := range []string{"east", "west"} {
		createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
		m := createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: name},
				DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}}})
		recordINDIDevice(t, ctx, obsv1.KindMount, ns, m, mount)
		runsOn(t, ctx, ns, name+"-telescope", kube.ResourceID{Kind: obsv1.KindMount, Name: name})
		resolver[name+"-telescope"] = inditest.Start(t, "indi_simulator_telescope")
		dialConnected(t, ctx, resolver[name+"-telescope"], mount)
	}
	holds(t, ctx, ns, "tonight", "east")
	a := newActivities()
	a.INDI = resolver

	held, err := a.armGuard(ctx, ns, "lab")
	require.NoError(t, err)
	assert.Equal(t, "Dome lab unparked, mounts unparked", held, "the simulators start unparked")
	cfg, _, err := a.guardConfig(ctx, ns, "lab")
	require.NoError(t, err)
	assert.Equal(t, []guard.Telescope{{Name: "east", Address: resolver["east-telescope"], Mounts: []string{mount}}}, cfg.Telescopes)
	assert.Equal(t, obsv1.DefaultHeartbeatTimeout.Seconds(), cfg.HeartbeatTimeoutSeconds)
	assert.Equal(t, []float64{52, 4, 90}, []float64{cfg.Latitude, cfg.Longitude, *cfg.SunAltitudeLimit}, "the site's place and Sun limit")

	_, err = site.SetDomeParked(ctx, dome, true)
	var alert *indi.AlertError
	require.ErrorAs(t, err, &alert, "the dome may not park: east's mount is unparked")

	var o obsv1.Observatory
	readObject(t, obsv1.KindObservatory, ns, "lab", &o)
	conds := map[string]obsv1.Condition{}
	for _, c := range o.Status.Conditions {
		conds[c.Type] = c
	}
	assert.Equal(t, "Relaying the park states of Dome lab and Mount east", conds[obsv1.ConditionLocksRelayed].Message)
	armed := conds[obsv1.ConditionSafetyArmed]
	assert.Equal(t, metav1.ConditionFalse, armed.Status, "no weather station runs at the site")
	assert.Regexp(t, `^Not armed: no weather station runs at the site\. Armed: the dome lock \(Dome Simulator closes only once `+
		`every mount is parked\); the heartbeat watch \(5m0s\) \(site guard \S+\)$`, armed.Message, "it names the guard's build")
}

// A site server running another build's image (here a guard from before the protocol): the
// runner tells it nothing, says on the Observatory why and what to do, with a Warning Event,
// and the step fails rather than running a night on a guard it cannot arm.
func TestAGuardOfAnotherProtocolIsNotArmed(t *testing.T) {
	ctx := testContext(t)
	old := inditest.NewFake(t)
	old.Device(guard.Device)
	report, err := json.Marshal(guard.Report{Armed: true, ArmedMessage: "Armed", Version: "v0.1.0"})
	require.NoError(t, err)
	old.Define(prop.Property{Device: guard.Device, Name: guard.PropStatus, Type: prop.Text, Perm: prop.ReadOnly,
		Elements: []prop.Element{{Name: guard.ElemReport, Value: string(report)}}})
	old.Define(prop.Property{Device: guard.Device, Name: guard.PropConfig, Type: prop.Text,
		Elements: []prop.Element{{Name: guard.ElemConfig, Value: "{}"}}})

	ns := observatoryNamespace(t, "locks-refused-"+utilrand.String(5))
	createLab(t, ns)
	runsOn(t, ctx, ns, "lab-observatory", kube.ResourceID{Kind: obsv1.KindWeatherStation, Name: "lab"})
	a := newActivities()
	a.INDI = serverResolver{"lab-observatory": old.Addr}

	_, err = a.armGuard(ctx, ns, "lab")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the site guard v0.1.0 speaks protocol 0 and this runner")
	assert.Empty(t, old.Received(guard.Device, guard.PropConfig), "an old guard is told nothing")
	var o obsv1.Observatory
	readObject(t, obsv1.KindObservatory, ns, "lab", &o)
	var armed obsv1.Condition
	for _, c := range o.Status.Conditions {
		if c.Type == obsv1.ConditionSafetyArmed {
			armed = c
		}
	}
	assert.Equal(t, kube.ReasonGuardRefused, armed.Reason)
	assert.Regexp(t, `^Not armed: the site guard v0\.1\.0 speaks protocol 0 and this runner \(\S+\) speaks `+strconv.Itoa(guard.Protocol)+`: .*; `+
		`delete the pod lab-observatory so that it starts again from the image this runner names$`, armed.Message)
	events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
		return e.Type == corev1.EventTypeWarning && e.Reason == kube.ReasonGuardRefused && e.InvolvedObject.Name == "lab"
	}), "a Warning Event on the Observatory: %+v", events.Items)
}

// holds makes a Reservation of the telescope that holds its mounts: Activating.
func holds(t *testing.T, ctx context.Context, ns, name, telescope string) {
	t.Helper()
	u := createObject(t, obsv1.KindReservation, ns, &obsv1.Reservation{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: obsv1.ReservationSpec{Telescope: telescope, Holder: "Ada"}})
	require.NoError(t, unstructured.SetNestedField(u.Object, string(obsv1.ReservationActivating), "status", "phase"))
	_, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// runsOn creates the pods of a server that runs one device, so the device counts as running.
func runsOn(t *testing.T, ctx context.Context, ns, server string, id kube.ResourceID) {
	t.Helper()
	device := kube.ObjectName(id.Kind, id.Name)
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: kube.ServerPodName(server), Annotations: map[string]string{kube.AnnotationDrivers: device + ":7625\n"}}},
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
