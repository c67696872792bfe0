// Integration tests of the device actions of Activation and Deactivation (park, unpark, cool,
// warm): the step sends them to a real INDI simulator, or to inditest's fake where a driver's
// refusal is the point, and what the device and the resource's status show afterwards is read
// back. The Job actions' tests are in procedures_test.go.
package observatory

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// oneAddress answers every server asked for (an INDI server, a guider) with addr, such as a
// test's indiserver's or a fake PHD2's, and remembers what was asked.
type oneAddress[S any] struct {
	addr  string
	mu    sync.Mutex
	asked []S
}

func (r *oneAddress[S]) Address(_ context.Context, s S) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, s)
	return r.addr, nil
}

// Asked is what was asked, in order.
func (r *oneAddress[S]) Asked() []S {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.asked)
}

// fixedResolver is where a test's indiserver listens, and guidersAt where its PHD2 does.
type (
	fixedResolver = oneAddress[INDIServer]
	guidersAt     = oneAddress[GuiderServer]
)

// connectedSimulator starts a real indiserver with one simulator driver and connects its
// device, as the Connect step would have before Activation.
func connectedSimulator(t *testing.T, driver, device string) (context.Context, *indi.Client, string) {
	t.Helper()
	addr := inditest.Start(t, driver)
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	t.Cleanup(cancel)
	c, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = c.Connect(ctx, device)
	require.NoError(t, err)
	return ctx, c, addr
}

// driverPod creates the pod a device's driver would run in, so the device counts as running.
func driverPod(t *testing.T, ns string, kind obsv1.Kind, name string) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: kube.ObjectName(kind, name), Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "driver", Image: "example.com/driver:1"}}}}
	_, err := env.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = env.Kube.CoreV1().Pods(ns).Delete(context.Background(), pod.Name, *metav1.NewDeleteOptions(0))
	})
}

// recordINDIDevice writes device as the INDI name in u's status, as StartDevices records it
// when the driver defines its device.
func recordINDIDevice(t *testing.T, ctx context.Context, kind obsv1.Kind, ns string, u *unstructured.Unstructured, device string) {
	t.Helper()
	require.NoError(t, unstructured.SetNestedField(u.Object, device, "status", "indiDevice"))
	_, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, u, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// createMountNamed creates the Mount east of the Telescope east, its driver the telescope
// simulator's, with the park procedures and device as its INDI name (recordINDIDevice).
func createMountNamed(t *testing.T, ctx context.Context, ns, device string, park obsv1.ParkProcedures) {
	t.Helper()
	mount := createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: park},
	})
	recordINDIDevice(t, ctx, obsv1.KindMount, ns, mount, device)
}

// mountThatRefusesToMove is a fake INDI mount, its TELESCOPE_PARK switch at on, whose driver
// answers every park or unpark with an Alert that says message, as a mount held by its dome
// lock does.
func mountThatRefusesToMove(t *testing.T, device, on, message string) *inditest.Fake {
	t.Helper()
	f := inditest.NewFake(t)
	f.Device(device)
	f.Define(inditest.Switches(device, "TELESCOPE_PARK", prop.OneOfMany, []string{on}, "PARK", "UNPARK"))
	f.Handle(device, "TELESCOPE_PARK", func(f *inditest.Fake, _ prop.Property) {
		f.Update(device, "TELESCOPE_PARK", func(p *prop.Property) {
			p.State = prop.Alert
			p.Message = message
		})
	})
	return f
}

// (The name is short: indiserver's socket lives under the test's temporary folder, and a
// socket path has at most 108 bytes.)
func TestADomeReachesItsTargetAndARepeatSendsNothing(t *testing.T) {
	const device = "Dome Simulator"
	ctx, c, addr := connectedSimulator(t, "indi_simulator_dome", device)

	ns := observatoryNamespace(t, "proc-dome")
	createLab(t, ns)
	createTelescope(t, ns)
	dome := createObject(t, obsv1.KindDome, ns, &obsv1.Dome{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}},
			ParkProcedures: obsv1.ParkProcedures{
				Activation:   []obsv1.ParkAction{{State: obsv1.Unparked}},
				Deactivation: []obsv1.ParkAction{{State: obsv1.Parked}},
			}},
	})
	// The driver defined its device: StartDevices records its name.
	recordINDIDevice(t, ctx, obsv1.KindDome, ns, dome, device)
	driverPod(t, ns, obsv1.KindDome, "lab")

	resolver := &fixedResolver{addr: addr}
	a := procActivities()
	a.INDI = resolver
	parked := func() bool {
		p, ok := c.Property(device, "DOME_PARK")
		return ok && p.SwitchOn("PARK")
	}

	res, err := a.Activation(ctx, procInput(ns, kube.StepActivation, true))
	require.NoError(t, err)
	require.Len(t, res.Actions, 1)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	assert.Equal(t, "state: Unparked", res.Actions[0].Action)
	assert.False(t, parked())
	require.NotEmpty(t, resolver.asked)
	assert.Equal(t, INDIServer{Namespace: ns, Name: "lab-observatory", Drivers: []string{"indi_simulator_dome"}}, resolver.asked[0])

	deact := procInput(ns, kube.StepDeactivation, true)
	deact.Started = procStarted.Add(time.Hour)
	res, err = a.Deactivation(ctx, deact)
	require.NoError(t, err)
	assert.Equal(t, "Dome lab state: Parked", res.Actions[0].Summary)
	assert.True(t, parked())
	shutter, ok := c.Property(device, "DOME_SHUTTER")
	require.True(t, ok)
	assert.True(t, shutter.SwitchOn("SHUTTER_CLOSE"), "the shutter closes with the park")

	// The dome is parked already: the run reads it and sends nothing.
	deact.Started = deact.Started.Add(time.Hour)
	res, err = a.Deactivation(ctx, deact)
	require.NoError(t, err)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	assert.Equal(t, "Dome lab state: Parked (already there)", res.Actions[0].Summary)

	var got obsv1.Dome
	readObject(t, obsv1.KindDome, ns, "lab", &got)
	require.Len(t, got.Status.Procedures, 2)
	reasons := eventReasons(t, ns, obsv1.KindDome, "lab")
	assert.Contains(t, reasons, kube.ReasonProcedureStarted)
	assert.Contains(t, reasons, kube.ReasonProcedureDone)
}

func TestADriversRefusalFailsDeactivationWithItsMessageAfterTheLaterTiersRan(t *testing.T) {
	const device = "Telescope Simulator"
	f := mountThatRefusesToMove(t, device, "UNPARK", "[ERROR] the mount is held by its dome lock")

	ns := observatoryNamespace(t, "proc-refused")
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Deactivation: []obsv1.Action{jobAction("example.com/close-roof:1")},
		}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	createMountNamed(t, ctx, ns, device, obsv1.ParkProcedures{Deactivation: []obsv1.ParkAction{{State: obsv1.Parked}}})

	a := procActivities()
	a.INDI = &fixedResolver{addr: f.Addr}
	driverPod(t, ns, obsv1.KindMount, "east")
	_, err := a.Deactivation(ctx, procInput(ns, kube.StepDeactivation, false))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: the mount is held by its dome lock", app.Message())
	require.Len(t, f.Received(device, "TELESCOPE_PARK"), 1)

	var res StepResult
	require.NoError(t, app.Details(&res))
	require.Len(t, res.Actions, 2)
	assert.Equal(t, obsv1.KindMount, res.Actions[0].Kind)
	assert.Equal(t, obsv1.RunFailed, res.Actions[0].State)
	assert.Equal(t, obsv1.KindTelescope, res.Actions[1].Kind, "the telescope's tier runs after the mount's failed")
	assert.Equal(t, obsv1.RunDone, res.Actions[1].State)
	assert.Len(t, jobsOf(t, ns, obsv1.KindTelescope, "east"), 1)
	assert.Equal(t, corev1.EventTypeWarning, eventReasons(t, ns, obsv1.KindMount, "east")[kube.ReasonProcedureFailed])
	var got obsv1.Mount
	readObject(t, obsv1.KindMount, ns, "east", &got)
	require.Len(t, got.Status.Procedures, 1)
	assert.Equal(t, obsv1.RunFailed, got.Status.Procedures[0].State)
	assert.Equal(t, "the mount is held by its dome lock", got.Status.Procedures[0].Summary)
}

func TestAMountThatItsDomeLockKeepsParkedFailsActivationWithAWarning(t *testing.T) {
	const device = "Telescope Simulator"
	f := mountThatRefusesToMove(t, device, "PARK", "[ERROR] Cannot unpark mount while dome is parked")
	ns := observatoryNamespace(t, "proc-unpark-refused")
	createLab(t, ns)
	createTelescope(t, ns)
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	createMountNamed(t, ctx, ns, device, obsv1.ParkProcedures{Activation: []obsv1.ParkAction{{State: obsv1.Unparked}}})

	a := procActivities()
	a.INDI = &fixedResolver{addr: f.Addr}
	_, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: Cannot unpark mount while dome is parked", app.Message())
	reasons := eventReasons(t, ns, obsv1.KindMount, "east")
	assert.Equal(t, corev1.EventTypeWarning, reasons[kube.ReasonMountUnparkRefused])
	assert.Equal(t, corev1.EventTypeWarning, reasons[kube.ReasonProcedureFailed])
}

func TestADeviceWhosePodNeverRanIsPassedOverByDeactivation(t *testing.T) {
	const device = "Telescope Simulator"
	f := inditest.NewFake(t)
	f.Device(device)
	f.Define(inditest.Switches(device, "TELESCOPE_PARK", prop.OneOfMany, []string{"UNPARK"}, "PARK", "UNPARK"))
	ns := observatoryNamespace(t, "proc-never-ran")
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"}, Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	// Its INDI name from an earlier night: a driver ran it once, but none runs it now.
	createMountNamed(t, ctx, ns, device, obsv1.ParkProcedures{Deactivation: []obsv1.ParkAction{{State: obsv1.Parked}}})

	a := procActivities()
	a.INDI = &fixedResolver{addr: f.Addr}
	res, err := a.Deactivation(ctx, procInput(ns, kube.StepDeactivation, false))
	require.NoError(t, err, "the teardown goes on")
	require.Len(t, res.Actions, 1)
	assert.Equal(t, obsv1.RunSkipped, res.Actions[0].State)
	assert.Equal(t, "Mount east does not run: nothing to state: Parked", res.Actions[0].Summary)
	assert.Empty(t, f.Received(device, "TELESCOPE_PARK"), "nothing is sent to a driver that does not run")
}

// (A short name: see TestADomeReachesItsTargetAndARepeatSendsNothing.)
func TestACameraCoolsThenWarmsWithItsCoolerOff(t *testing.T) {
	const device = "CCD Simulator"
	ctx, c, addr := connectedSimulator(t, "indi_simulator_ccd", device)

	ns := observatoryNamespace(t, "proc-camera")
	createLab(t, ns)
	createTelescope(t, ns)
	createObject(t, obsv1.KindOpticalTrain, ns, &obsv1.OpticalTrain{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec:       obsv1.OpticalTrainSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}},
	})
	// The simulator moves half a degree a second.
	cam := createObject(t, obsv1.KindCamera, ns, &obsv1.Camera{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec: obsv1.CameraSpec{OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "east-main"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_ccd"}},
			CameraProcedures: obsv1.CameraProcedures{
				Activation:   []obsv1.CameraAction{{Cool: &obsv1.Temperature{Celsius: -1.5, Within: 0.5}}},
				Deactivation: []obsv1.CameraAction{{Warm: &obsv1.Temperature{Celsius: 0, Within: 0.5}}},
			}},
	})
	recordINDIDevice(t, ctx, obsv1.KindCamera, ns, cam, device)
	driverPod(t, ns, obsv1.KindCamera, "east-main")
	resolver := &fixedResolver{addr: addr}
	a := procActivities()
	a.INDI = resolver
	temperature := func() float64 {
		p, ok := c.Property(device, "CCD_TEMPERATURE")
		require.True(t, ok)
		v, _ := p.Number("CCD_TEMPERATURE_VALUE")
		return v
	}

	res, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	require.NoError(t, err)
	require.Len(t, res.Actions, 1)
	assert.Equal(t, "cool: -1.5", res.Actions[0].Action)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	assert.LessOrEqual(t, temperature(), -1.0)
	assert.Equal(t, "east-telescope", resolver.asked[0].Name, "a train's camera is on the telescope's server")

	deact := procInput(ns, kube.StepDeactivation, false)
	deact.Started = procStarted.Add(time.Hour)
	res, err = a.Deactivation(ctx, deact)
	require.NoError(t, err)
	assert.Equal(t, "warm: 0", res.Actions[0].Action)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	assert.GreaterOrEqual(t, temperature(), -0.5)
	if cooler, ok := c.Property(device, "CCD_COOLER"); ok {
		assert.True(t, cooler.SwitchOn("COOLER_OFF"), "the cooler is off after the warm-up")
	}
}
