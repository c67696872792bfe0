// Integration tests of the steps that start and stop a reservation's pods, against the real
// API server with the observatory CRDs and a kwok node that makes pods Running and Ready. The
// fixture is examples/observatory.yaml itself, so the example a user applies is the one that
// is proven. (The package's TestMain, in main_test.go, starts the stack.)
package observatory

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// applyExample creates the objects of examples/observatory.yaml in ns, except its Namespace
// and its Reservation (the tests run the steps themselves), and lets them go when the test
// ends. It returns the UIDs by kind/name.
func applyExample(t *testing.T, ns string) map[string]types.UID {
	return env.ApplyObservatory(t, "examples/observatory.yaml", ns, obsv1.KindReservation)
}

func stepInput(ns, step string) StepInput {
	return StepInput{Namespace: ns, Reservation: "tonight", Holder: "ada", Telescope: "east", Observatory: "lab", Step: step}
}

// requireObject checks a pod's or Service's name, labels and controller.
func requireObject(t *testing.T, m metav1.Object, role kube.ObjectRole, server string, kind obsv1.Kind, resource string, owner types.UID) {
	t.Helper()
	assert.Equal(t, map[string]string{
		"app.kubernetes.io/managed-by":  "observatory-operator",
		"app.kubernetes.io/part-of":     "observatory",
		"app.kubernetes.io/name":        m.GetName(),
		"observatory.liken.sh/role":     string(role),
		"observatory.liken.sh/server":   server,
		"observatory.liken.sh/kind":     string(kind),
		"observatory.liken.sh/resource": resource,
	}, m.GetLabels(), m.GetName())
	ref := metav1.GetControllerOf(m)
	require.NotNil(t, ref, "%s has a controller", m.GetName())
	assert.Equal(t, string(kind), ref.Kind)
	assert.Equal(t, resource, ref.Name)
	assert.Equal(t, owner, ref.UID)
}

func requirePodAndService(t *testing.T, ns, name string, role kube.ObjectRole, server string, kind obsv1.Kind,
	resource string, owner types.UID, portName string, port int32) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	pod, err := env.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "pod %s", name)
	requireObject(t, pod, role, server, kind, resource, owner)
	require.Len(t, pod.Spec.Containers, 1)
	require.Len(t, pod.Spec.Containers[0].Ports, 1)
	assert.Equal(t, portName, pod.Spec.Containers[0].Ports[0].Name)
	assert.Equal(t, port, pod.Spec.Containers[0].Ports[0].ContainerPort)
	assert.Len(t, pod.Annotations[kube.AnnotationSpecDigest], 16)
	// No check of the pod's Ready condition here: the step returned only once it was Ready,
	// and on a busy machine kwok's node can miss a lease renewal, after which the node
	// controller marks every pod on it not Ready until the node reports again.
	svc, err := env.Kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "Service %s", name)
	requireObject(t, svc, role, server, kind, resource, owner)
	require.Len(t, svc.Spec.Ports, 1)
	assert.Equal(t, portName, svc.Spec.Ports[0].Name)
	assert.Equal(t, port, svc.Spec.Ports[0].Port)
	assert.Equal(t, map[string]string{"app.kubernetes.io/name": name}, svc.Spec.Selector)
	return pod
}

// requireSiteServer checks the site's server as the cluster keeps it: the StatefulSet
// lab-observatory of the Observatory, its one pod lab-observatory-0, and the Service; it returns
// the pod.
func requireSiteServer(t *testing.T, ns string, owner types.UID) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	set, err := env.Kube.AppsV1().StatefulSets(ns).Get(ctx, "lab-observatory", metav1.GetOptions{})
	require.NoError(t, err, "StatefulSet lab-observatory")
	requireObject(t, set, kube.RoleServer, "lab-observatory", obsv1.KindObservatory, "lab", owner)
	assert.Equal(t, int32(1), *set.Spec.Replicas)
	pod, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "lab-observatory-0", metav1.GetOptions{})
	require.NoError(t, err, "pod lab-observatory-0")
	ref := metav1.GetControllerOf(pod)
	require.NotNil(t, ref)
	assert.Equal(t, "StatefulSet", ref.Kind)
	assert.Equal(t, set.UID, ref.UID)
	assert.Equal(t, set.Spec.Template.Annotations[kube.AnnotationDrivers], pod.Annotations[kube.AnnotationDrivers])
	svc, err := env.Kube.CoreV1().Services(ns).Get(ctx, "lab-observatory", metav1.GetOptions{})
	require.NoError(t, err, "Service lab-observatory")
	requireObject(t, svc, kube.RoleServer, "lab-observatory", obsv1.KindObservatory, "lab", owner)
	return pod
}

// onLocalINDI gives a a LocalINDI for its INDI servers (indiservers on this machine in place
// of the server pods'), closed when the test ends.
func onLocalINDI(t *testing.T, a *Activities) *LocalINDI {
	t.Helper()
	local := &LocalINDI{}
	t.Cleanup(func() { local.Close() })
	a.INDI = local
	return local
}

// dialLocal connects to the local indiserver of a server that LocalINDI already runs.
func dialLocal(t *testing.T, l *LocalINDI, ns, server string, devices ...string) *indi.Client {
	t.Helper()
	l.mu.Lock()
	s := l.servers[ns+"/"+server]
	l.mu.Unlock()
	require.NotNil(t, s, "a local indiserver runs for %s", server)
	c, err := indi.Dial(testContext(t), s.srv.Addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	for _, dev := range devices {
		require.NoError(t, c.Sync(testContext(t), dev))
	}
	return c
}

func indiDeviceOf(t *testing.T, ns string, kind obsv1.Kind, name string) string {
	return statusString(t, ns, kind, name, "indiDevice")
}

func statusString(t *testing.T, ns string, kind obsv1.Kind, name, field string) string {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	v, _, _ := unstructured.NestedString(u.Object, "status", field)
	return v
}

// readyOf is a resource's Ready condition's reason and message.
func readyOf(t *testing.T, ns string, kind obsv1.Kind, name string) (string, string) {
	t.Helper()
	var st obsv1.StatusBase
	readObjectStatus(t, ns, kind, name, &st)
	for _, c := range st.Conditions {
		if c.Type == obsv1.ConditionReady {
			return c.Reason, c.Message
		}
	}
	return "", ""
}

func readObjectStatus(t *testing.T, ns string, kind obsv1.Kind, name string, into any) {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	if st, ok := u.Object["status"].(map[string]any); ok {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(st, into))
	}
}

func hasDeactivateFinalizer(t *testing.T, ns string, kind obsv1.Kind, name string) bool {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	return kube.FinalizersHave(u.GetFinalizers(), kube.FinalizerDeactivate)
}

func requireGone(t *testing.T, ns string, names ...string) {
	t.Helper()
	for _, n := range names {
		_, err := env.Kube.CoreV1().Pods(ns).Get(context.Background(), n, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "pod %s is gone: %v", n, err)
		_, err = env.Kube.CoreV1().Services(ns).Get(context.Background(), n, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "Service %s is gone: %v", n, err)
	}
}

func TestTheExampleObservatoryStartsConnectsConfiguresAndStopsWithoutATrace(t *testing.T) {
	ns := observatoryNamespace(t, "steps-example-"+utilrand.String(5))
	uids := applyExample(t, ns)
	a := newActivities()
	local := onLocalINDI(t, a)
	ctx := testContext(t)

	requireExampleSiteStarted(t, ctx, a, ns, uids)
	requireExampleTelescopePoweredOn(t, ctx, a, ns, uids)
	requireExampleDevicesStarted(t, ctx, a, ns, uids)
	requireExampleConnectedAndConfigured(t, ctx, a, ns)
	c := requireExampleDevicesSetOnTheirServers(t, local, ns)

	// A retried Configure finds everything set.
	_, err := a.Configure(ctx, stepInput(ns, kube.StepConfigure))
	require.NoError(t, err)

	requireExampleAbortedAndDisconnected(t, ctx, a, ns, c)
	requireExampleStoppedWithoutATrace(t, ctx, a, ns, uids)
}

// requireExampleSiteStarted runs StartSite: the observatory's server and its two devices.
func requireExampleSiteStarted(t *testing.T, ctx context.Context, a *Activities, ns string, uids map[string]types.UID) {
	t.Helper()
	res, err := a.StartSite(ctx, stepInput(ns, kube.StepStartSite))
	require.NoError(t, err)
	assert.False(t, res.Skipped)
	assert.Equal(t, "Started lab-observatory with Dome lab, WeatherStation lab; connected Dome lab (Dome Simulator), WeatherStation lab (Weather Simulator); "+
		"wrote the lock policies of Dome lab; the site guard holds Dome lab unparked, mounts parked", res.Summary)
	srv := requireSiteServer(t, ns, uids["Observatory/lab"])
	assert.Equal(t, "lab-dome:7625\nlab-weatherstation:7625\n", srv.Annotations[kube.AnnotationDrivers])
	requirePodAndService(t, ns, "lab-dome", kube.RoleDevice, "lab-observatory", obsv1.KindDome, "lab", uids["Dome/lab"], "driver", 7625)
	requirePodAndService(t, ns, "lab-weatherstation", kube.RoleDevice, "lab-observatory", obsv1.KindWeatherStation, "lab",
		uids["WeatherStation/lab"], "driver", 7625)
	assert.True(t, hasDeactivateFinalizer(t, ns, obsv1.KindDome, "lab"))

}

// requireExampleTelescopePoweredOn runs PowerOn: the telescope's server, linking every device
// it will run, and its endpoint.
func requireExampleTelescopePoweredOn(t *testing.T, ctx context.Context, a *Activities, ns string, uids map[string]types.UID) {
	t.Helper()
	res, err := a.PowerOn(ctx, stepInput(ns, kube.StepPowerOn))
	require.NoError(t, err)
	require.NotNil(t, res.Endpoint)
	assert.Equal(t, obsv1.Endpoint{Service: "east-telescope", Host: "east-telescope." + ns + ".svc", Port: 7624}, *res.Endpoint)
	srv := requirePodAndService(t, ns, "east-telescope", kube.RoleServer, "east-telescope", obsv1.KindTelescope, "east",
		uids["Telescope/east"], "indi", 7624)
	assert.Equal(t, "east-main-camera:7625\neast-main-filterwheel:7625\neast-main-flatpanel:7625\neast-main-focuser:7625\neast-mount:7625\n",
		srv.Annotations[kube.AnnotationDrivers])

}

// requireExampleDevicesStarted runs StartDevices: every device of the telescope and its train,
// named in connect order.
func requireExampleDevicesStarted(t *testing.T, ctx context.Context, a *Activities, ns string, uids map[string]types.UID) {
	t.Helper()
	for range 2 { // a retry adopts what is there and does the same
		res, err := a.StartDevices(ctx, stepInput(ns, kube.StepStartDevices))
		require.NoError(t, err)
		assert.Equal(t, "Started Mount east, Focuser east-main, FilterWheel east-main, FlatPanel east-main, Camera east-main", res.Summary)
	}
	requirePodAndService(t, ns, "east-mount", kube.RoleDevice, "east-telescope", obsv1.KindMount, "east", uids["Mount/east"], "driver", 7625)
	cam := requirePodAndService(t, ns, "east-main-camera", kube.RoleDevice, "east-telescope", obsv1.KindCamera, "east-main",
		uids["Camera/east-main"], "driver", 7625)
	assert.Equal(t, kube.DriverCommand("indi_simulator_ccd"), cam.Spec.Containers[0].Command)
	assert.Nil(t, cam.Spec.Affinity, "no Guider, no affinity")
	for _, k := range []obsv1.Kind{obsv1.KindFocuser, obsv1.KindFilterWheel, obsv1.KindFlatPanel} {
		requirePodAndService(t, ns, kube.ObjectName(k, "east-main"), kube.RoleDevice, "east-telescope", k, "east-main",
			uids[string(k)+"/east-main"], "driver", 7625)
		assert.True(t, hasDeactivateFinalizer(t, ns, k, "east-main"))
	}
	assert.True(t, hasDeactivateFinalizer(t, ns, obsv1.KindMount, "east"))
	assert.Equal(t, string(obsv1.DeviceStarting), statusString(t, ns, obsv1.KindMount, "east", "phase"))
	var mount obsv1.DeviceStatus
	readObjectStatus(t, ns, obsv1.KindMount, "east", &mount)
	assert.Equal(t, "east-mount", mount.Pod)
	assert.NotEmpty(t, mount.Node, "where its pod runs")
	assert.Equal(t, "indi_simulator_telescope", mount.Driver)
	assert.Equal(t, kube.SimulatorImage, mount.Image)
	reason, msg := readyOf(t, ns, obsv1.KindMount, "east")
	assert.Equal(t, "Starting", reason)
	assert.Equal(t, "Pod east-mount runs on "+mount.Node+"; waiting for the driver indi_simulator_telescope", msg)

}

// requireExampleConnectedAndConfigured runs Connect and Configure, on the local indiserver
// that stands in for east-telescope, and checks what their summaries and the status say.
func requireExampleConnectedAndConfigured(t *testing.T, ctx context.Context, a *Activities, ns string) {
	t.Helper()
	res, err := a.Connect(ctx, stepInput(ns, kube.StepConnect))
	require.NoError(t, err)
	assert.Equal(t, "Connected Mount east (Telescope Simulator), Focuser east-main (Focuser Simulator), "+
		"FilterWheel east-main (Filter Simulator), FlatPanel east-main (Light Panel Simulator), Camera east-main (CCD Simulator)", res.Summary)
	assert.Equal(t, "Telescope Simulator", indiDeviceOf(t, ns, obsv1.KindMount, "east"))
	assert.Equal(t, "CCD Simulator", indiDeviceOf(t, ns, obsv1.KindCamera, "east-main"))
	res, err = a.Configure(ctx, stepInput(ns, kube.StepConfigure))
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "Mount east (location")
	assert.Contains(t, res.Summary, "Camera east-main (active devices, gain, offset, optics)")
	assert.Contains(t, res.Summary, "FilterWheel east-main (filter names)")
	assert.Contains(t, res.Summary, "Mount east (location, active devices)")
	// The example's Reservation is not Activating here (no workflow runs): no telescope's
	// mounts count yet.
	assert.Contains(t, res.Summary, "; the site guard holds Dome lab unparked, mounts parked")

}

// requireExampleDevicesSetOnTheirServers reads back from both local indiservers what Connect
// and Configure set: connections, location, optics, filter names, active devices and the
// lock policies between the dome and the mounts. It returns the telescope server's client.
func requireExampleDevicesSetOnTheirServers(t *testing.T, local *LocalINDI, ns string) *indi.Client {
	t.Helper()
	sims := []string{"Telescope Simulator", "Focuser Simulator", "Filter Simulator", "Light Panel Simulator", "CCD Simulator"}
	c := dialLocal(t, local, ns, "east-telescope", sims...)
	for _, dev := range sims {
		p, ok := c.Property(dev, "CONNECTION")
		require.True(t, ok, dev)
		assert.True(t, p.SwitchOn("CONNECT"), "%s is connected", dev)
	}
	geo, ok := c.Property("Telescope Simulator", "GEOGRAPHIC_COORD")
	require.True(t, ok)
	lat, _ := geo.Number("LAT")
	lon, _ := geo.Number("LONG")
	assert.InDelta(t, 52.2043, lat, 1e-6)
	assert.InDelta(t, 0.1149, lon, 1e-6)
	scope, ok := c.Property("CCD Simulator", "SCOPE_INFO")
	require.True(t, ok)
	fl, _ := scope.Number("FOCAL_LENGTH")
	ap, _ := scope.Number("APERTURE")
	assert.Equal(t, []float64{480, 80}, []float64{fl, ap})
	filters, ok := c.Property("Filter Simulator", "FILTER_NAME")
	require.True(t, ok)
	for i, f := range []string{"L", "R", "G", "B", "Ha"} {
		v, _ := filters.Text("FILTER_SLOT_NAME_" + strconv.Itoa(i+1))
		assert.Equal(t, f, v)
	}
	active, ok := c.Property("CCD Simulator", "ACTIVE_DEVICES")
	require.True(t, ok)
	v, _ := active.Text(indi.ActiveTelescope)
	assert.Equal(t, "Telescope Simulator", v)
	v, _ = active.Text(indi.ActiveFilter)
	assert.Equal(t, "Filter Simulator", v)
	// The mount heeds the dome of the other server, and the dome the mounts.
	active, _ = c.Property("Telescope Simulator", "ACTIVE_DEVICES")
	v, _ = active.Text(indi.ActiveDome)
	assert.Equal(t, "Dome Simulator", v)
	policy, _ := c.Property("Telescope Simulator", "DOME_POLICY")
	assert.Equal(t, []string{"DOME_LOCKS"}, policy.OnSwitches())
	site := dialLocal(t, local, ns, "lab-observatory", "Dome Simulator")
	policy, _ = site.Property("Dome Simulator", "MOUNT_POLICY")
	assert.Equal(t, []string{"MOUNT_LOCKS"}, policy.OnSwitches())
	active, _ = site.Property("Dome Simulator", "ACTIVE_DEVICES")
	v, _ = active.Text(indi.ActiveTelescope)
	assert.Equal(t, guard.Device, v, "the dome heeds the site guard's one state of every mount")
	return c
}

// requireExampleAbortedAndDisconnected runs Abort, which finds nothing running, and
// Disconnect, which the camera's CONNECTION switch shows.
func requireExampleAbortedAndDisconnected(t *testing.T, ctx context.Context, a *Activities, ns string, c *indi.Client) {
	t.Helper()
	res, err := a.Abort(ctx, stepInput(ns, kube.StepAbort))
	require.NoError(t, err)
	assert.Equal(t, "Nothing ran on Mount east, Camera east-main", res.Summary)

	res, err = a.Disconnect(ctx, stepInput(ns, kube.StepDisconnect))
	require.NoError(t, err)
	assert.Equal(t, "Disconnected Camera east-main, FlatPanel east-main, FilterWheel east-main, Focuser east-main, Mount east", res.Summary)
	require.NoError(t, c.Sync(ctx, "CCD Simulator"))
	p, ok := c.Property("CCD Simulator", "CONNECTION")
	require.True(t, ok)
	assert.True(t, p.SwitchOn("DISCONNECT"))
	assert.Equal(t, string(obsv1.DeviceDisconnecting), statusString(t, ns, obsv1.KindCamera, "east-main", "phase"))

}

// requireExampleStoppedWithoutATrace runs the stop steps, in the order the workflow runs them,
// and a second StopDevices that finds nothing to do.
func requireExampleStoppedWithoutATrace(t *testing.T, ctx context.Context, a *Activities, ns string, uids map[string]types.UID) {
	t.Helper()
	res, err := a.StopDevices(ctx, stepInput(ns, kube.StepStopDevices))
	require.NoError(t, err)
	assert.False(t, res.Skipped)
	for _, d := range []string{"Mount east", "Camera east-main", "Focuser east-main", "FilterWheel east-main", "FlatPanel east-main"} {
		assert.Contains(t, res.Summary, d)
	}
	requireGone(t, ns, "east-mount", "east-main-camera", "east-main-focuser", "east-main-filterwheel", "east-main-flatpanel")
	assert.False(t, hasDeactivateFinalizer(t, ns, obsv1.KindMount, "east"))
	assert.False(t, hasDeactivateFinalizer(t, ns, obsv1.KindCamera, "east-main"))
	assert.Equal(t, string(obsv1.DeviceIdle), statusString(t, ns, obsv1.KindCamera, "east-main", "phase"))
	assert.Empty(t, statusString(t, ns, obsv1.KindCamera, "east-main", "pod"), "nothing runs it")
	reason, msg := readyOf(t, ns, obsv1.KindCamera, "east-main")
	assert.Equal(t, "Idle", reason)
	assert.Equal(t, "Not reserved", msg)
	requirePodAndService(t, ns, "east-telescope", kube.RoleServer, "east-telescope", obsv1.KindTelescope, "east",
		uids["Telescope/east"], "indi", 7624)

	res, err = a.PowerOff(ctx, stepInput(ns, kube.StepPowerOff))
	require.NoError(t, err)
	assert.Equal(t, "Stopped east-telescope", res.Summary)
	requireGone(t, ns, "east-telescope")

	res, err = a.StopSite(ctx, stepInput(ns, kube.StepStopSite))
	require.NoError(t, err)
	assert.Equal(t, "Disconnected WeatherStation lab, Dome lab; Stopped Dome lab, WeatherStation lab; Stopped lab-observatory", res.Summary)
	requireGone(t, ns, "lab-observatory", "lab-dome", "lab-weatherstation")
	assert.False(t, hasDeactivateFinalizer(t, ns, obsv1.KindDome, "lab"))

	// Stopping again finds nothing to do.
	res, err = a.StopDevices(ctx, stepInput(ns, kube.StepStopDevices))
	require.NoError(t, err)
	assert.True(t, res.Skipped)
}

func TestADeviceWhosePodNameIsNotADNSLabelFailsStartDevicesNamingIt(t *testing.T) {
	ns := observatoryNamespace(t, "steps-badname-"+utilrand.String(5))
	applyExample(t, ns)
	// A 40-character name cannot be applied (every CRD caps names at 32), but a dot can:
	// it gives a pod name that is no DNS label.
	createObject(t, obsv1.KindFocuser, ns, &obsv1.Focuser{
		ObjectMeta: metav1.ObjectMeta{Name: "east.guide"},
		Spec:       obsv1.FocuserSpec{OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "east-main"}, DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_focus2"}}},
	})
	a := newActivities()
	_, err := a.StartDevices(testContext(t), stepInput(ns, kube.StepStartDevices))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.True(t, app.NonRetryable())
	assert.True(t, strings.HasPrefix(app.Message(), "Failed: the Focuser name east.guide gives the pod name east.guide-focuser"), app.Message())
	assert.Contains(t, app.Message(), "holds only lowercase letters, digits and '-'")
	pods, err := env.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, pods.Items, "nothing is created before every name is checked")
	// The Focuser at fault says so too, in the step's words, with a Warning.
	assert.Equal(t, string(obsv1.DeviceError), statusString(t, ns, obsv1.KindFocuser, "east.guide", "phase"))
	reason, msg := readyOf(t, ns, obsv1.KindFocuser, "east.guide")
	assert.Equal(t, "Error", reason)
	assert.Equal(t, strings.TrimPrefix(app.Message(), "Failed: "), msg)
	assert.Equal(t, corev1.EventTypeWarning, eventReasons(t, ns, obsv1.KindFocuser, "east.guide")["Error"])
}

func TestTwoDevicesOfOneServerWithTheSameDriverFailTheStep(t *testing.T) {
	ns := observatoryNamespace(t, "steps-dupdriver-"+utilrand.String(5))
	applyExample(t, ns)
	createObject(t, obsv1.KindSkyQualityMeter, ns, &obsv1.SkyQualityMeter{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.SkyQualityMeterSpec{
			TelescopeOrObservatoryParent: obsv1.TelescopeOrObservatoryParent{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"}},
			DeviceSpec:                   obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}},
		},
	})
	_, err := newActivities().StartSite(testContext(t), stepInput(ns, kube.StepStartSite))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, "Failed: Dome lab and SkyQualityMeter lab both use the driver indi_simulator_dome, which the INDI server lab-observatory can run only once", app.Message())
	_, msg := readyOf(t, ns, obsv1.KindSkyQualityMeter, "lab")
	assert.Equal(t, strings.TrimPrefix(app.Message(), "Failed: "), msg, "the device that came second is at fault")
	assert.Equal(t, corev1.EventTypeWarning, eventReasons(t, ns, obsv1.KindSkyQualityMeter, "lab")["Error"])
	assert.Empty(t, statusString(t, ns, obsv1.KindDome, "lab", "phase"), "the Dome holds its driver")
}

func TestADriverNoImageHoldsFailsStartDevicesBeforeAnythingIsCreated(t *testing.T) {
	ns := observatoryNamespace(t, "steps-noimage-"+utilrand.String(5))
	applyExample(t, ns)
	createObject(t, obsv1.KindRotator, ns, &obsv1.Rotator{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec:       obsv1.RotatorSpec{OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "east-main"}, DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_nowhere_rotator"}}},
	})
	_, err := newActivities().StartDevices(testContext(t), stepInput(ns, kube.StepStartDevices))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Contains(t, app.Message(), "Failed: Rotator/east-main: no image of the runner holds the driver indi_nowhere_rotator")
	pods, err := env.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, pods.Items, "nothing is created before every device's objects are built")
	assert.False(t, hasDeactivateFinalizer(t, ns, obsv1.KindMount, "east"))
	assert.Equal(t, string(obsv1.DeviceError), statusString(t, ns, obsv1.KindRotator, "east-main", "phase"))
	_, msg := readyOf(t, ns, obsv1.KindRotator, "east-main")
	assert.Equal(t, strings.TrimPrefix(app.Message(), "Failed: "), msg)
}

func TestASiteWithoutDevicesStillRunsItsServerForTheSiteGuard(t *testing.T) {
	ns := observatoryNamespace(t, "steps-baresite-"+utilrand.String(5))
	uids := env.ApplyObservatory(t, "examples/observatory.yaml", ns, obsv1.KindReservation, obsv1.KindDome, obsv1.KindWeatherStation)
	a := newActivities()
	onLocalINDI(t, a)
	ctx := testContext(t)
	res, err := a.StartSite(ctx, stepInput(ns, kube.StepStartSite))
	require.NoError(t, err)
	assert.False(t, res.Skipped, "a mount at a site without a dome or weather station is guarded too")
	assert.Equal(t, "Started lab-observatory for its site guard (Observatory lab has no devices)", res.Summary)
	srv := requireSiteServer(t, ns, uids["Observatory/lab"])
	assert.Empty(t, srv.Annotations[kube.AnnotationDrivers])

	res, err = a.StopSite(ctx, stepInput(ns, kube.StepStopSite))
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "lab-observatory")
	_, err = env.Kube.AppsV1().StatefulSets(ns).Get(ctx, "lab-observatory", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the site's server stops with the site: %v", err)
}
