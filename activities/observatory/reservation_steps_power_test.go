// Tests of the power outputs: no simulator has DIGITAL_OUTPUT, so a scripted INDI server
// stands in for the Switch's driver, while the pods are real objects on the API server.
package observatory

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// oneServer answers every INDI server with one address.
type oneServer string

func (s oneServer) Address(context.Context, INDIServer) (string, error) { return string(s), nil }

// fakePowerBox is a Switch driver with two outputs, both off.
func fakePowerBox(t *testing.T) *inditest.Fake {
	f := inditest.NewFake(t)
	f.Device("Power Box")
	f.Define(prop.Property{Device: "Power Box", Name: "DRIVER_INFO", Type: prop.Text, Perm: prop.ReadOnly,
		Elements: []prop.Element{{Name: "DRIVER_EXEC", Value: "indi_fake_power"}}})
	for _, n := range []string{"DIGITAL_OUTPUT_1", "DIGITAL_OUTPUT_2"} {
		f.Define(inditest.Switches("Power Box", n, prop.OneOfMany, []string{"OFF"}, "ON", "OFF"))
	}
	return f
}

// createTelescopeWithASwitch creates the Observatory lab and its Telescope east with a power
// Switch east, whose driver is indi_fake_power.
func createTelescopeWithASwitch(t *testing.T, ns string) {
	t.Helper()
	createObject(t, obsv1.KindObservatory, ns, &obsv1.Observatory{ObjectMeta: metav1.ObjectMeta{Name: "lab"}, Spec: obsv1.ObservatorySpec{Safety: byDay}})
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: "east"}, Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	createObject(t, obsv1.KindSwitch, ns, &obsv1.Switch{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.SwitchSpec{
			TelescopeOrObservatoryParent: obsv1.TelescopeOrObservatoryParent{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}},
			DeviceSpec:                   obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_fake_power", Image: "example.com/fake-power"}},
		},
	})
}

func TestPowerOnTurnsOnTheOutputOfEachPoweredDeviceAndPowerOffTurnsItOff(t *testing.T) {
	ns := observatoryNamespace(t, "steps-power-"+utilrand.String(5))
	createTelescopeWithASwitch(t, ns)
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{
			TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"},
				Power: &obsv1.Power{Switch: "east", Output: 2}},
		},
	})
	f := fakePowerBox(t)
	a := newActivities()
	a.INDI = oneServer(f.Addr)
	ctx := testContext(t)
	on := func(n string) bool { p, _ := f.Property("Power Box", n); return p.SwitchOn("ON") }

	res, err := a.PowerOn(ctx, stepInput(ns, kube.StepPowerOn))
	require.NoError(t, err)
	assert.Equal(t, "Started east-telescope with Switch east; connected Switch east (Power Box); "+
		"powered on Mount east (Switch east output 2)", res.Summary)
	assert.True(t, on("DIGITAL_OUTPUT_2"))
	assert.False(t, on("DIGITAL_OUTPUT_1"))
	_, err = env.Kube.CoreV1().Pods(ns).Get(ctx, "east-switch", metav1.GetOptions{})
	require.NoError(t, err, "the Switch's pod runs")
	_, err = env.Kube.CoreV1().Pods(ns).Get(ctx, "east-mount", metav1.GetOptions{})
	assert.Error(t, err, "the Mount's pod is StartDevices'")

	res, err = a.PowerOff(ctx, stepInput(ns, kube.StepPowerOff))
	require.NoError(t, err)
	assert.Equal(t, "Powered off Mount east (Switch east output 2); Stopped Switch east, east-telescope", res.Summary)
	assert.False(t, on("DIGITAL_OUTPUT_2"))
	requireGone(t, ns, "east-switch", "east-telescope")
	assert.False(t, hasDeactivateFinalizer(t, ns, obsv1.KindSwitch, "east"))
}

func TestAPowerSwitchThatIsNotThereFailsPowerOnNamingIt(t *testing.T) {
	ns := observatoryNamespace(t, "steps-nopower-"+utilrand.String(5))
	createObject(t, obsv1.KindObservatory, ns, &obsv1.Observatory{ObjectMeta: metav1.ObjectMeta{Name: "lab"}, Spec: obsv1.ObservatorySpec{Safety: byDay}})
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: "east"}, Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{
			TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"},
				Power: &obsv1.Power{Switch: "box", Output: 1}},
		},
	})
	_, err := newActivities().PowerOn(testContext(t), stepInput(ns, kube.StepPowerOn))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Failed: Mount east: its power.switch box is no Switch of Telescope east or Observatory lab")
}

func TestADriverThatAnswersAlertFailsTheStepWithItsOwnWords(t *testing.T) {
	ns := observatoryNamespace(t, "steps-alert-"+utilrand.String(5))
	createTelescopeWithASwitch(t, ns)
	f := inditest.NewFake(t)
	f.Define(inditest.Switches("Power Box", "CONNECTION", prop.OneOfMany, []string{"DISCONNECT"}, "CONNECT", "DISCONNECT"))
	f.Define(prop.Property{Device: "Power Box", Name: "DRIVER_INFO", Type: prop.Text, Perm: prop.ReadOnly,
		Elements: []prop.Element{{Name: "DRIVER_EXEC", Value: "indi_fake_power"}}})
	f.Handle("Power Box", "CONNECTION", func(f *inditest.Fake, _ prop.Property) {
		f.Update("Power Box", "CONNECTION", func(p *prop.Property) {
			p.State = prop.Alert
			p.Message = "[ERROR] Failed to connect to port /dev/ttyUSB0"
		})
	})
	a := newActivities()
	a.INDI = oneServer(f.Addr)
	_, err := a.PowerOn(testContext(t), stepInput(ns, kube.StepPowerOn))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.True(t, app.NonRetryable())
	assert.Equal(t, "Failed: Switch east: Failed to connect to port /dev/ttyUSB0", app.Message())
}
