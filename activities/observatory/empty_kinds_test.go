// Tests of the kinds a namespace holds none of, on the real API server: a read that skips
// their LISTs finds what a read of every kind finds, and a kind's first device is not
// skipped once the worker's informer has seen it.
package observatory

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestAReadSkipsTheKindsTheNamespaceHoldsNoneOfAndFindsTheSameDevices(t *testing.T) {
	ns := observatoryNamespace(t, "empty-kinds")
	createLab(t, ns)
	drv := obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"}, Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}, DeviceSpec: drv}})

	md, err := metadata.NewForConfig(env.Config)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kinds := WatchKinds(ctx, md, ServerKinds())
	require.Eventually(t, func() bool { return kinds.Empty(obsv1.KindGPS, ns) }, 10*time.Second, 10*time.Millisecond,
		"the GPS cache never synced")
	assert.False(t, kinds.Empty(obsv1.KindMount, ns), "a kind with a Mount in the namespace is not empty")
	assert.False(t, kinds.Empty(obsv1.KindTelescope, ns), "a kind it does not watch is never known to be empty")

	plain, informed := newActivities(), newActivities()
	informed.Empty = kinds
	want, err := plain.readServer(testContext(t), ns, obsv1.KindTelescope, "east")
	require.NoError(t, err)
	got, err := informed.readServer(testContext(t), ns, obsv1.KindTelescope, "east")
	require.NoError(t, err)
	assert.Equal(t, []string{"Mount east"}, labelsOf(got.Devices))
	assert.Equal(t, labelsOf(want.Devices), labelsOf(got.Devices))
	informed.Empty = allEmpty{}
	got, err = informed.readServer(testContext(t), ns, obsv1.KindTelescope, "east")
	require.NoError(t, err)
	assert.Empty(t, got.Devices, "a kind said to be empty is not LISTed")
	informed.Empty = kinds

	createObject(t, obsv1.KindGPS, ns, &obsv1.GPS{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.GPSSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}, DeviceSpec: drv}})
	require.Eventually(t, func() bool { return !kinds.Empty(obsv1.KindGPS, ns) }, 10*time.Second, 10*time.Millisecond,
		"the GPS cache never saw the new GPS")
	got, err = informed.readServer(testContext(t), ns, obsv1.KindTelescope, "east")
	require.NoError(t, err)
	assert.Equal(t, []string{"Mount east", "GPS east"}, labelsOf(got.Devices))
}

// allEmpty says every kind is empty, so no LIST is made.
type allEmpty struct{}

func (allEmpty) Empty(obsv1.Kind, string) bool { return true }
