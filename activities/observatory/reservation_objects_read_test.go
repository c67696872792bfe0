// Tests of how a step reads what a server runs: the LISTs select by the device's parent
// field, so a read at a site of many telescopes returns one telescope's devices, and still
// finds every device of the telescope, of its trains and of the site.
package observatory

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestATelescopesReadSelectsByTelescopeOrByEachOfItsTrains(t *testing.T) {
	for _, tc := range []struct {
		server, device obsv1.Kind
		trains         []string
		want           [][2]string
	}{
		{obsv1.KindTelescope, obsv1.KindMount, []string{"b", "a"}, [][2]string{{"spec.telescope", "east"}}},
		{obsv1.KindTelescope, obsv1.KindSwitch, nil, [][2]string{{"spec.telescope", "east"}}},
		{obsv1.KindTelescope, obsv1.KindCamera, []string{"b", "a"}, [][2]string{{"spec.opticalTrain", "a"}, {"spec.opticalTrain", "b"}}},
		{obsv1.KindTelescope, obsv1.KindFocuser, nil, [][2]string{}},
		{obsv1.KindObservatory, obsv1.KindDome, nil, [][2]string{{"spec.observatory", "east"}}},
		{obsv1.KindObservatory, obsv1.KindSwitch, []string{"a"}, [][2]string{{"spec.observatory", "east"}}},
	} {
		t.Run(string(tc.server)+"/"+string(tc.device), func(t *testing.T) {
			assert.Equal(t, tc.want, parentSelectors(tc.server, tc.device, "east", tc.trains))
		})
	}
}

func TestATiersReadSelectsTheSitesDevicesOnlyWhenItRunsTheSitesTiers(t *testing.T) {
	for _, tc := range []struct {
		device      obsv1.Kind
		observatory string
		want        [][2]string
	}{
		{obsv1.KindSwitch, "lab", [][2]string{{"spec.telescope", "east"}, {"spec.observatory", "lab"}}},
		{obsv1.KindSwitch, "", [][2]string{{"spec.telescope", "east"}}},
		{obsv1.KindDome, "", [][2]string{}},
		{obsv1.KindDome, "lab", [][2]string{{"spec.observatory", "lab"}}},
		{obsv1.KindFilterWheel, "lab", [][2]string{{"spec.opticalTrain", "east-main"}}},
	} {
		assert.Equal(t, tc.want, deviceSelectors(tc.device, tc.observatory, "east", []string{"east-main"}), "%s %q", tc.device, tc.observatory)
	}
}

// The selector's field is the one kube.DeviceRefOf reads the parent from, for every kind a
// server runs: a kind read by the wrong field would silently lose its devices.
func TestEveryDeviceKindIsSelectedByTheFieldItsParentIsNamedBy(t *testing.T) {
	spec := map[string]any{"telescope": "t", "opticalTrain": "o", "observatory": "s"}
	check := func(server obsv1.Kind, k obsv1.Kind) {
		obj, err := stepScheme.New(k.GroupVersionKind())
		require.NoError(t, err)
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(map[string]any{"spec": spec}, obj))
		d, err := kube.DeviceRefOf(obj)
		require.NoError(t, err)
		parent := map[string]string{"spec.telescope": d.Telescope, "spec.opticalTrain": d.OpticalTrain, "spec.observatory": d.Observatory}
		for _, sel := range parentSelectors(server, k, "x", []string{"o"}) {
			assert.NotEmpty(t, parent[sel[0]], "%s on a %s's server is selected by %s", k, server, sel[0])
		}
		if server == obsv1.KindTelescope {
			assert.Equal(t, d.OpticalTrain != "", onTrain(k), "%s sits on a train", k)
		}
	}
	for _, k := range kube.TelescopeDeviceKinds {
		check(obsv1.KindTelescope, k)
	}
	for _, k := range kube.ObservatoryDeviceKinds {
		check(obsv1.KindObservatory, k)
	}
}

func TestAReadAtASiteOfTwoTelescopesReturnsOnlyItsOwnDevices(t *testing.T) {
	ns := observatoryNamespace(t, "read-two")
	createLab(t, ns)
	drv := obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}
	for _, tel := range []string{"east", "west"} {
		createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
			ObjectMeta: metav1.ObjectMeta{Name: tel}, Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
		createObject(t, obsv1.KindOpticalTrain, ns, &obsv1.OpticalTrain{ObjectMeta: metav1.ObjectMeta{Name: tel + "-main"},
			Spec: obsv1.OpticalTrainSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: tel}}})
		createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: tel},
			Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: tel}, DeviceSpec: drv}})
		createObject(t, obsv1.KindCamera, ns, &obsv1.Camera{ObjectMeta: metav1.ObjectMeta{Name: tel + "-main"},
			Spec: obsv1.CameraSpec{OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: tel + "-main"}, DeviceSpec: drv}})
	}
	createObject(t, obsv1.KindDome, ns, &obsv1.Dome{ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"}, DeviceSpec: drv}})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: "shelf"},
		Spec: obsv1.MountSpec{DeviceSpec: drv}})
	a := newActivities()

	s, err := a.readServer(testContext(t), ns, obsv1.KindTelescope, "east")
	require.NoError(t, err)
	assert.Equal(t, []string{"Mount east", "Camera east-main"}, labelsOf(s.Devices))
	assert.Equal(t, []string{"east-main"}, keysOf(s.Trains))

	site, err := a.readServer(testContext(t), ns, obsv1.KindObservatory, "lab")
	require.NoError(t, err)
	assert.Equal(t, []string{"Dome lab"}, labelsOf(site.Devices))
}

func labelsOf(ds []stepDevice) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Label())
	}
	return out
}

func keysOf[V any](m map[string]V) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

// onTrain: the kind's parent is an OpticalTrain (kube.DeviceRefOf sets OpticalTrain).
func onTrain(k obsv1.Kind) bool { return slices.Contains(parentFields(k), fieldOpticalTrain) }
