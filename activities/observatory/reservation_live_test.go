// Tests of the live devices while a reservation is Ready: a deleted Guider pod comes back and its
// PHD2 connects again, against the real API server, local INDI servers and a fake PHD2.
package observatory

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/phd2"
	"liken.sh/runner/phd2/phd2test"
)

// A Guider's pod deleted while Ready comes back with the heal: the live plan finds it gone,
// and RestartGuider makes it again, with a PodCreated Event on the Guider; its new PHD2
// connects its camera and mount again. Nothing joined.
func TestADeletedGuiderPodComesBackWhileReadyAndPHD2ConnectsAgain(t *testing.T) {
	ns := observatoryNamespace(t, "live-guider-"+utilrand.String(5))
	applyExample(t, ns)
	a := newActivities()
	onLocalINDI(t, a)
	phd := phd2test.New(t)
	a.PHD2 = &guidersAt{addr: phd.Addr}
	ctx := testContext(t)
	createGuider(t, ns)
	startTelescope(t, ctx, a, ns)
	_, err := a.StartGuider(ctx, stepInput(ns, kube.StepStartGuider))
	require.NoError(t, err)
	pod, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "east-guider", metav1.GetOptions{})
	require.NoError(t, err)

	require.NoError(t, env.Kube.CoreV1().Pods(ns).Delete(ctx, "east-guider", *metav1.NewDeleteOptions(0)))
	require.Eventually(t, func() bool {
		_, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "east-guider", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, 100*time.Millisecond, "the guider pod is gone")
	pc, err := phd2.Dial(ctx, phd.Addr)
	require.NoError(t, err)
	require.NoError(t, pc.SetConnected(ctx, false))
	pc.Close()

	// Only the telescope runs here (its site never started), so it alone is looked at.
	in := stepInput(ns, "LiveDevices")
	in.Observatory = ""
	plan, err := a.PlanLiveDevices(ctx, LiveInput{StepInput: in})
	require.NoError(t, err)
	assert.True(t, plan.Guider, "the plan brings the Guider's pod back")
	for _, s := range plan.Servers {
		assert.Empty(t, s.Join, "a heal is no join")
		assert.Empty(t, s.Leave)
	}
	started, err := a.RestartGuider(ctx, LiveInput{StepInput: in})
	require.NoError(t, err)
	assert.Equal(t, []string{"east-guider"}, started.Created)
	again, err := env.Kube.CoreV1().Pods(ns).Get(ctx, "east-guider", metav1.GetOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, pod.UID, again.UID)
	assert.True(t, phd.Connected(), "PHD2 connected again")
	assert.Equal(t, corev1.EventTypeNormal, eventReasons(t, ns, obsv1.KindGuider, "east")[ReasonPodCreated])
}
