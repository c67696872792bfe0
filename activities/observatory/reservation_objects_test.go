// Table tests of the pure parts of the pod steps (which devices snoop on which, which objects
// a stop selects, which Switch powers a device, what a server refuses to run), and how a pod
// that is already there is adopted, replaced or refused, against the real API server.
package observatory

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func dev(kind obsv1.Kind, name, train, driver string) stepDevice {
	d := stepDevice{DeviceRef: kube.DeviceRef{ResourceID: kube.ResourceID{Kind: kind, Namespace: "ns", Name: name}, OpticalTrain: train}}
	d.Spec.Driver.Name = driver
	d.Pod = kube.ObjectName(kind, name)
	return d
}

func TestEachDeviceSnoopsOnTheTelescopesMountAndItsOwnTrainsFocuserAndWheel(t *testing.T) {
	s := stepServer{Devices: []stepDevice{
		dev(obsv1.KindMount, "east", "", "m"),
		dev(obsv1.KindFocuser, "a", "main", "fa"),
		dev(obsv1.KindFocuser, "b", "guide", "fb"),
		dev(obsv1.KindFilterWheel, "a", "main", "w"),
		dev(obsv1.KindCamera, "a", "main", "ca"),
		dev(obsv1.KindCamera, "b", "guide", "cb"),
	}}
	names := map[string]string{"Mount east": "Telescope", "Focuser a": "FocA", "Focuser b": "FocB", "FilterWheel a": "Wheel"}
	for _, tc := range []struct {
		device stepDevice
		want   map[string]string
	}{
		{s.Devices[4], map[string]string{indi.ActiveTelescope: "Telescope", indi.ActiveFocuser: "FocA", indi.ActiveFilter: "Wheel"}},
		{s.Devices[5], map[string]string{indi.ActiveTelescope: "Telescope", indi.ActiveFocuser: "FocB", indi.ActiveFilter: "Wheel"}},
		{s.Devices[0], map[string]string{indi.ActiveFocuser: "FocA", indi.ActiveFilter: "Wheel"}},
	} {
		assert.Equal(t, tc.want, activeDevices(s, tc.device, names), tc.device.Label())
	}
}

func TestAStopSelectsOneServersObjectsOfOneRole(t *testing.T) {
	base := "app.kubernetes.io/managed-by=observatory-operator,observatory.liken.sh/role=%s,observatory.liken.sh/server=east-telescope"
	for _, tc := range []struct {
		sel  stopSelector
		want string
	}{
		{stopSelector{Server: "east-telescope", Role: kube.RoleServer}, fmt.Sprintf(base, "server")},
		{stopSelector{Server: "east-telescope", Role: kube.RoleGuider}, fmt.Sprintf(base, "guider")},
		{stopSelector{Server: "east-telescope", Role: kube.RoleDevice}, fmt.Sprintf(base, "device") + ",observatory.liken.sh/kind!=Switch"},
		{stopSelector{Server: "east-telescope", Role: kube.RoleDevice, Switches: true}, fmt.Sprintf(base, "device") + ",observatory.liken.sh/kind=Switch"},
	} {
		assert.Equal(t, tc.want, tc.sel.selector())
	}
}

func TestADeviceIsPoweredByTheFirstServerThatHasItsSwitch(t *testing.T) {
	mount := dev(obsv1.KindMount, "east", "", "m")
	mount.Spec.Power = &obsv1.Power{Switch: "box", Output: 3}
	plain := dev(obsv1.KindCamera, "east", "main", "c")
	tel := stepServer{Owner: kube.ResourceID{Kind: obsv1.KindTelescope, Name: "east"}, Name: "east-telescope",
		Devices: []stepDevice{dev(obsv1.KindSwitch, "other", "", "s1")}}
	obs := stepServer{Owner: kube.ResourceID{Kind: obsv1.KindObservatory, Name: "lab"}, Name: "lab-observatory",
		Devices: []stepDevice{dev(obsv1.KindSwitch, "box", "", "s2")}}

	links, err := powerLinks([]stepDevice{mount, plain}, true, tel, obs)
	require.NoError(t, err)
	require.Len(t, links, 1)
	assert.Equal(t, "Switch box", links[0].Switch.Label())
	assert.Equal(t, "lab-observatory", links[0].Server.Name)

	_, err = powerLinks([]stepDevice{mount}, true, tel)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, "Failed: Mount east: its power.switch box is no Switch of Telescope east", app.Message())
	links, err = powerLinks([]stepDevice{mount}, false, tel)
	require.NoError(t, err, "a stop does not fail over a Switch that is gone")
	assert.Empty(t, links)
}

func TestAServerRefusesInvalidNamesADriverTwiceAndADriverNoImageHolds(t *testing.T) {
	ok := stepServer{Name: "east-telescope", Devices: []stepDevice{dev(obsv1.KindMount, "east", "", "indi_simulator_telescope"),
		dev(obsv1.KindCamera, "east", "", "indi_simulator_ccd")}}
	assert.Empty(t, ok.refusals(ok.Devices))
	dotted := dev(obsv1.KindCamera, "east.main", "", "indi_simulator_ccd")
	dotted.Pod = "" // as readServer leaves it
	_, nameErr := kube.ValidObjectName(obsv1.KindCamera, "east.main")
	unknown := dev(obsv1.KindFocuser, "bad", "", "indi_nosuchdriver")
	for _, tc := range []struct {
		s     stepServer
		start []stepDevice
		want  string
	}{
		{stepServer{Name: "east-telescope", Devices: []stepDevice{dev(obsv1.KindMount, "east", "", "a"), dev(obsv1.KindCamera, "east", "", "a")}}, nil,
			"Mount east and Camera east both use the driver a, which the INDI server east-telescope can run only once"},
		{stepServer{Name: "east-telescope", Devices: []stepDevice{dotted}}, nil, nameErr.Error()},
		{stepServer{Name: "east-telescope", Devices: []stepDevice{unknown}}, nil, ""},
		{stepServer{Name: "east-telescope", Devices: []stepDevice{unknown}}, []stepDevice{unknown},
			"Focuser/bad: no image of the runner holds the driver indi_nosuchdriver; set spec.driver.image to an image that has it on its PATH"},
	} {
		assert.Equal(t, tc.want, kube.RefusalMessage(tc.s.refusals(tc.start)))
	}
}

func TestAPodIsAdoptedWhenCurrentReplacedWhenStaleAndRefusedWhenNotOurs(t *testing.T) {
	ns := observatoryNamespace(t, "steps-adopt-"+utilrand.String(5))
	uids := applyExample(t, ns)
	a := newActivities()
	ctx := testContext(t)
	pods := env.Kube.CoreV1().Pods(ns)
	mount := kube.DeviceRef{ResourceID: kube.ResourceID{Kind: obsv1.KindMount, Namespace: ns, Name: "east", UID: uids["Mount/east"]}}
	mount.Spec.Driver.Name = "indi_simulator_telescope"
	want, err := kube.DevicePod(mount, "east-telescope", nil)
	require.NoError(t, err)

	// A pod of ours from an older spec is replaced.
	stale := want.DeepCopy()
	stale.Annotations[kube.AnnotationSpecDigest] = "0000000000000000"
	old, err := pods.Create(ctx, stale, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, a.ensurePod(ctx, want))
	cur, err := pods.Get(ctx, want.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, old.UID, cur.UID, "replaced")
	assert.Equal(t, want.Annotations[kube.AnnotationSpecDigest], cur.Annotations[kube.AnnotationSpecDigest])

	// A current one is adopted as it is.
	require.NoError(t, a.ensurePod(ctx, want))
	again, err := pods.Get(ctx, want.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, cur.UID, again.UID, "adopted")

	// One we did not make is refused, not deleted.
	camera := kube.DeviceRef{ResourceID: kube.ResourceID{Kind: obsv1.KindCamera, Namespace: ns, Name: "east-main", UID: uids["Camera/east-main"]}}
	camera.Spec.Driver.Name = "indi_simulator_ccd"
	wantCam, err := kube.DevicePod(camera, "east-telescope", nil)
	require.NoError(t, err)
	foreign := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: wantCam.Name, Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "example.com/x"}}}}
	_, err = pods.Create(ctx, foreign, metav1.CreateOptions{})
	require.NoError(t, err)
	err = a.ensurePod(ctx, wantCam)
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, "Failed: a pod named east-main-camera exists in "+ns+" that the observatory-operator did not create; delete or rename it", app.Message())
	_, err = pods.Get(ctx, wantCam.Name, metav1.GetOptions{})
	assert.NoError(t, err, "the foreign pod stays")
}
