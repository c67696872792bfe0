// Tests of the dome locks relayed to the mounts when an observatory has no dome, against the real
// API server and an INDI telescope simulator.
package observatory

import (
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
	c, err := indi.Dial(ctx, scope)
	require.NoError(t, err)
	defer c.Close()
	const mount = "Telescope Simulator"
	require.NoError(t, c.Sync(ctx, mount))
	_, err = c.Connect(ctx, mount)
	require.NoError(t, err)
	_, err = c.SetDomePolicy(ctx, mount, true) // as it was while the Dome was there
	require.NoError(t, err)

	ns := observatoryNamespace(t, "locks-nodome-"+utilrand.String(5))
	lab := createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}}})
	// The server runs, linking the mount, whose pod runs too.
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "east-telescope", Annotations: map[string]string{kube.AnnotationDrivers: "east-mount:7625\n"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "east-mount", Labels: kube.ObjectLabels("east-mount", kube.RoleDevice, "east-telescope",
			kube.ResourceID{Kind: obsv1.KindMount, Name: "east"})}},
	} {
		p.Spec.Containers = []corev1.Container{{Name: "indi", Image: "example.com/indi"}}
		_, err = env.Kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		require.NoError(t, err)
	}
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
