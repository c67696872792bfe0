// Integration tests of the guider steps (StartGuider, StopGuider and the guider's part of
// Abort) on the example observatory: the guider's ConfigMap, pod and Service, a fake PHD2 in
// place of the real one, and what happens without a Guider. The example's other steps are
// tested in reservation_steps_kube_test.go, whose helpers these tests share.
package observatory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/phd2"
	"liken.sh/runner/phd2/guiding"
	"liken.sh/runner/phd2/phd2test"
)

// createGuider gives the example's telescope east a Guider on its main train.
func createGuider(t *testing.T, ns string) *unstructured.Unstructured {
	t.Helper()
	return createObject(t, obsv1.KindGuider, ns, &obsv1.Guider{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.GuiderSpec{
			TelescopeParent:    obsv1.TelescopeParent{Telescope: "east"},
			OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "east-main"},
			Pulses:             obsv1.PulsesMount,
		},
	})
}

// startTelescope runs east's steps before StartGuider: the guider pod needs the server pod to
// run beside, and its profile the INDI names Connect records.
func startTelescope(t *testing.T, ctx context.Context, a *Activities, ns string) {
	t.Helper()
	for _, step := range []func(context.Context, StepInput) (StepResult, error){a.PowerOn, a.StartDevices, a.Connect} {
		_, err := step(ctx, stepInput(ns, "step"))
		require.NoError(t, err)
	}
}

func TestAGuiderGetsItsConfigMapPodAndServiceAndWithoutOneTheGuiderStepsAreSkipped(t *testing.T) {
	ns := observatoryNamespace(t, "steps-guider-"+utilrand.String(5))
	applyExample(t, ns)
	a := newActivities()
	onLocalINDI(t, a)
	phd := phd2test.New(t)
	// The equipment connects a moment after set_connected, so the step has to wait for it.
	phd.ConnectDelay(300 * time.Millisecond)
	guiders := &guidersAt{addr: phd.Addr}
	a.PHD2 = guiders
	ctx := testContext(t)

	res, err := a.StartGuider(ctx, stepInput(ns, kube.StepStartGuider))
	require.NoError(t, err)
	assert.Equal(t, StepResult{Skipped: true, Summary: "no Guider for Telescope east"}, res)
	assert.Empty(t, phd.Calls(""), "no Guider, no call to PHD2")

	g := createGuider(t, ns)
	startTelescope(t, ctx, a, ns)
	cam, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "east-main-camera", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, cam.Spec.Affinity, "the guide camera runs beside the server")

	res, err = a.StartGuider(ctx, stepInput(ns, kube.StepStartGuider))
	require.NoError(t, err)
	assert.Equal(t, "Started Guider east (pod east-guider, camera CCD Simulator, mount Telescope Simulator); PHD2 connected its camera and mount", res.Summary)
	assert.Equal(t, []GuiderServer{{Namespace: ns, Name: "east-guider"}}, guiders.Asked())
	calls := phd.Calls(phd2.MethodSetConnected)
	require.Len(t, calls, 1)
	assert.JSONEq(t, "[true]", string(calls[0].Params))
	assert.True(t, phd.Connected())
	assert.GreaterOrEqual(t, len(phd.Calls(phd2.MethodGetConnected)), 2, "the step waited for get_connected")
	requireTheGuiderRuns(t, ctx, ns, g)

	// A retried StartGuider finds PHD2 connected and sends nothing again.
	_, err = a.StartGuider(ctx, stepInput(ns, kube.StepStartGuider))
	require.NoError(t, err)
	assert.Len(t, phd.Calls(phd2.MethodSetConnected), 1)

	// Abort stops PHD2's guiding before it aborts the mount and camera.
	phd.SetState(guiding.StateGuiding)
	res, err = a.Abort(ctx, stepInput(ns, kube.StepAbort))
	require.NoError(t, err)
	assert.Equal(t, "Stopped PHD2's capture on Guider east; Nothing ran on Mount east, Camera east-main", res.Summary)
	assert.Len(t, phd.Calls(phd2.MethodStopCapture), 1)
	assert.Equal(t, guiding.StateStopped, phd.State())

	// A PHD2 that is gone does not fail Abort: the summary says it was not told.
	phd.Close()
	res, err = a.Abort(ctx, stepInput(ns, kube.StepAbort))
	require.NoError(t, err)
	assert.False(t, res.Skipped)
	assert.True(t, strings.HasPrefix(res.Summary, "Nothing ran on Mount east, Camera east-main; Guider east: PHD2 was not told to stop capturing (reach the PHD2 of east-guider: phd2 server "+phd.Addr+" cannot be reached"), res.Summary)

	requireTheGuiderStopped(t, ctx, a, ns)
}

// requireTheGuiderRuns checks what StartGuider made for the Guider g: its pod, Service and
// ConfigMap (whose PHD2 profile names the INDI devices, the optics and the server), and a
// status and Ready condition that say it runs.
func requireTheGuiderRuns(t *testing.T, ctx context.Context, ns string, g *unstructured.Unstructured) {
	t.Helper()
	pod, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "east-guider", metav1.GetOptions{})
	require.NoError(t, err)
	requireObject(t, pod, kube.RoleGuider, "east-telescope", obsv1.KindGuider, "east", g.GetUID())
	svc, err := env.Kube.CoreV1().Services(ns).Get(ctx, "east-guider", metav1.GetOptions{})
	require.NoError(t, err)
	requireObject(t, svc, kube.RoleGuider, "east-telescope", obsv1.KindGuider, "east", g.GetUID())
	assert.Equal(t, int32(4400), svc.Spec.Ports[0].Port)
	cm, err := env.Kube.CoreV1().ConfigMaps(ns).Get(ctx, "east-guider", metav1.GetOptions{})
	require.NoError(t, err)
	requireObject(t, cm, kube.RoleGuider, "east-telescope", obsv1.KindGuider, "east", g.GetUID())
	profile := cm.Data[kube.ProfileKey]
	assert.Contains(t, profile, "INDI Camera [CCD Simulator]")
	assert.Contains(t, profile, "INDI Mount [Telescope Simulator]")
	assert.Contains(t, profile, "focalLength=480")
	assert.Contains(t, profile, "INDIhost=east-telescope."+ns+".svc")
	var gst obsv1.GuiderStatus
	readObjectStatus(t, ns, obsv1.KindGuider, "east", &gst)
	assert.Equal(t, "Running", gst.Phase)
	assert.Equal(t, "east-guider", gst.Pod, "status.pod says a reservation runs it")
	assert.NotEmpty(t, gst.Node)
	assert.Equal(t, &obsv1.Endpoint{Service: "east-guider", Host: "east-guider." + ns + ".svc", Port: 4400}, gst.Endpoint)
	reason, msg := readyOf(t, ns, obsv1.KindGuider, "east")
	assert.Equal(t, "Ready", reason)
	assert.Equal(t, "PHD2 connected its camera and mount", msg)
}

// requireTheGuiderStopped runs StopGuider: the Guider's pod and ConfigMap go, its status says
// nothing runs it, and a second StopGuider is skipped.
func requireTheGuiderStopped(t *testing.T, ctx context.Context, a *Activities, ns string) {
	t.Helper()
	res, err := a.StopGuider(ctx, stepInput(ns, kube.StepStopGuider))
	require.NoError(t, err)
	assert.Equal(t, "Stopped Guider east", res.Summary)
	requireGone(t, ns, "east-guider")
	_, err = env.Kube.CoreV1().ConfigMaps(ns).Get(ctx, "east-guider", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the ConfigMap is gone: %v", err)
	var gst obsv1.GuiderStatus
	readObjectStatus(t, ns, obsv1.KindGuider, "east", &gst)
	assert.Equal(t, "Idle", gst.Phase)
	assert.Empty(t, gst.Pod+gst.Node, "nothing runs it: the inventory's again")
	assert.Nil(t, gst.Endpoint)
	res, err = a.StopGuider(ctx, stepInput(ns, kube.StepStopGuider))
	require.NoError(t, err)
	assert.True(t, res.Skipped)
}

func TestAGuiderWhosePHD2RefusesToConnectFailsStartGuiderWithPHD2sWords(t *testing.T) {
	ns := observatoryNamespace(t, "steps-guider-refused-"+utilrand.String(5))
	applyExample(t, ns)
	a := newActivities()
	onLocalINDI(t, a)
	phd := phd2test.New(t)
	phd.RefuseConnect("Failed to connect camera INDI Camera [CCD Simulator]")
	a.PHD2 = &guidersAt{addr: phd.Addr}
	ctx := testContext(t)
	createGuider(t, ns)
	startTelescope(t, ctx, a, ns)

	_, err := a.StartGuider(ctx, stepInput(ns, kube.StepStartGuider))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.True(t, app.NonRetryable(), "PHD2 would refuse again")
	assert.Equal(t, "Failed: Guider east: PHD2 could not connect its camera and mount: Failed to connect camera INDI Camera [CCD Simulator]", app.Message())
	assert.False(t, phd.Connected())
}

func TestAbortWithoutAGuiderPodCallsNoPHD2(t *testing.T) {
	ns := observatoryNamespace(t, "steps-abort-noguider-"+utilrand.String(5))
	applyExample(t, ns)
	a := newActivities()
	phd := phd2test.New(t)
	a.PHD2 = &guidersAt{addr: phd.Addr}
	// A Guider without its pod (StartGuider never ran): nothing runs to stop.
	createGuider(t, ns)
	res, err := a.Abort(testContext(t), stepInput(ns, kube.StepAbort))
	require.NoError(t, err)
	assert.Equal(t, StepResult{Skipped: true, Summary: "east-telescope does not run"}, res)
	assert.Empty(t, phd.Calls(""))
}
