// Table tests of the pure parts of the pod steps: which devices snoop on which, which objects
// a stop selects, which Switch powers a device, and what a server refuses to run.
package activities

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

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

func TestAServerRefusesInvalidNamesAndADriverTwice(t *testing.T) {
	ok := stepServer{Name: "east-telescope", Devices: []stepDevice{dev(obsv1.KindMount, "east", "", "a"), dev(obsv1.KindCamera, "east", "", "b")}}
	assert.NoError(t, ok.check())
	_, nameErr := kube.ValidObjectName(obsv1.KindCamera, "east.main")
	for _, tc := range []struct {
		s    stepServer
		want string
	}{
		{stepServer{Name: "east-telescope", Devices: []stepDevice{dev(obsv1.KindMount, "east", "", "a"), dev(obsv1.KindCamera, "east", "", "a")}},
			"Failed: Mount east and Camera east both use the driver a, which the INDI server east-telescope can run only once"},
		{stepServer{Name: "east-telescope", Invalid: []error{nameErr}}, "Failed: " + nameErr.Error()},
	} {
		var app *temporal.ApplicationError
		require.ErrorAs(t, tc.s.check(), &app)
		assert.Equal(t, tc.want, app.Message())
		assert.True(t, app.NonRetryable())
	}
}
