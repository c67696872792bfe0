// A release's upgrade on the real node, as `kubectl apply` of the next release does it: build
// b's worker Deployment starts beside main's, and the people watcher's pods become build b's,
// which makes b current. Tonight stays Pinned on main to its end, and main's workers still
// park the mount in a storm during the upgrade; the next night runs on b; then the watcher
// removes main's Deployment. Also here: worker pods that start before Temporal wait for it
// and never restart.
package cluster

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/internal/app"
	"liken.sh/runner/internal/rollout"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

// workerSelector selects every build's worker pods.
const workerSelector = "app.kubernetes.io/component=worker"

// workersWaitForTemporal waits until both worker pods run and stay unready, Temporal away.
func workersWaitForTemporal(t *testing.T, ctx context.Context) {
	testenv.Eventually(t, 2*time.Minute, "two worker pods run, unready, waiting for Temporal", func() (bool, string) {
		pods, err := env.Kube.CoreV1().Pods(system).List(ctx, metav1.ListOptions{LabelSelector: workerSelector})
		require.NoError(t, err)
		waiting := 0
		for _, p := range pods.Items {
			if cs := p.Status.ContainerStatuses; len(cs) == 1 && cs[0].State.Running != nil && !cs[0].Ready {
				waiting++
			}
		}
		return waiting == 2, describe(ctx, system)
	})
}

// noWorkerRestarted checks that no worker container has restarted.
func noWorkerRestarted(t *testing.T, ctx context.Context) {
	pods, err := env.Kube.CoreV1().Pods(system).List(ctx, metav1.ListOptions{LabelSelector: workerSelector})
	require.NoError(t, err)
	for _, p := range pods.Items {
		for _, c := range p.Status.ContainerStatuses {
			require.Zero(t, c.RestartCount, "the worker pod %s restarted while Temporal was away", p.Name)
		}
	}
}

// upgradeKeepsTonight starts build b's workers (main's Deployment, named and labelled for b,
// as the next release's apply makes it) and rolls the people watcher to b; b becomes current
// while tonight stays Pinned on main, whose workers run the mount's storm trigger.
func upgradeKeepsTonight(t *testing.T, ctx context.Context) {
	tc := temporalClient(t)
	tonight := contract.ReservationID(obsNS, "tonight")
	testenv.RequireRunsOn(t, tc, tonight, enumspb.VERSIONING_BEHAVIOR_PINNED, "main")
	site := serviceClient(t, ctx, "lab-observatory")
	blow(t, ctx, site, 0) // the last storm's wind
	// Calm as the runner has read it, not only as the condition last said: the trigger must
	// not see the last storm.
	require.Eventually(t, func() bool {
		u, err := objects(obsv1.KindWeatherStation).Get(ctx, "lab", metav1.GetOptions{})
		require.NoError(t, err)
		wind, _, _ := unstructured.NestedString(u.Object, "status", "readings", "windSpeed")
		return wind == "0" && condition(t, ctx, obsv1.KindWeatherStation, "lab", obsv1.ConditionSafe) == "True"
	}, 2*time.Minute, 250*time.Millisecond, "the runner reads a calm, safe weather station")
	_, err := objects(obsv1.KindMount).Patch(ctx, "east", types.MergePatchType, []byte(`{"spec":{"triggers":[{"when":`+
		`{"kind":"WeatherStation","name":"lab","type":"Safe","status":"False"},"run":[{"state":"Parked"}]}]}}`), metav1.PatchOptions{})
	require.NoError(t, err)

	deployments := env.Kube.AppsV1().Deployments(system)
	d, err := deployments.Get(ctx, "liken-worker-main", metav1.GetOptions{})
	require.NoError(t, err)
	b := d.DeepCopy()
	b.ObjectMeta = metav1.ObjectMeta{Name: "liken-worker-b", Namespace: system, Labels: d.Labels}
	for _, labels := range []map[string]string{b.Labels, b.Spec.Selector.MatchLabels, b.Spec.Template.Labels} {
		labels[rollout.BuildLabel] = "b"
	}
	_, err = deployments.Create(ctx, b, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = deployments.Patch(ctx, "people-operator", types.MergePatchType,
		[]byte(`{"spec":{"template":{"metadata":{"labels":{"`+rollout.BuildLabel+`":"b"}}}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	for _, name := range []string{"liken-worker-b", "people-operator"} {
		if out, err := env.Kubectl(ctx, "-n", system, "rollout", "status", "deployment/"+name, "--timeout=180s"); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	testenv.AwaitCurrentBuild(t, tc, app.DefaultTaskQueue, "b", 2*time.Minute)
	testenv.RequireRunsOn(t, tc, tonight, enumspb.VERSIONING_BEHAVIOR_PINNED, "main")

	upgraded := time.Now()
	blow(t, ctx, site, 40)
	require.Eventually(t, func() bool {
		var st obsv1.DeviceStatus
		u, err := objects(obsv1.KindMount).Get(ctx, "east", metav1.GetOptions{})
		require.NoError(t, err)
		if m, ok := u.Object["status"].(map[string]any); ok {
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st))
		}
		rec := kube.FindProcedureRecord(st.Procedures, kube.TriggerRecord(0))
		return rec != nil && rec.Since != nil && !rec.Since.Time.Before(upgraded.Truncate(time.Second)) && rec.State == obsv1.RunDone
	}, 2*time.Minute, 250*time.Millisecond, "the storm trigger parked the mount during the upgrade")
	blow(t, ctx, site, 0)
	testenv.RequireActivitiesSince(t, tc, tonight, upgraded, func(id string) bool { return strings.Contains(id, "@liken-worker-main-") })
}

// blow sets the wind on the site's weather simulator.
func blow(t *testing.T, ctx context.Context, site *indi.Client, kph float64) {
	_, err := site.SetNumber(ctx, "Weather Simulator", "WEATHER_CONTROL", map[string]float64{"Wind": kph}, 0)
	require.NoError(t, err)
	require.NoError(t, site.Press(ctx, "Weather Simulator", "WEATHER_REFRESH", "REFRESH"))
}

// nextNightOnB books the next night once tonight has ended: it runs on build b, as does the
// telescope's lock, and is released.
func nextNightOnB(t *testing.T, ctx context.Context) {
	createReservation(t, ctx, "next")
	awaitPhase(t, "next", obsv1.ReservationReady, 4*time.Minute)
	tc := temporalClient(t)
	testenv.RequireRunsOn(t, tc, contract.ReservationID(obsNS, "next"), enumspb.VERSIONING_BEHAVIOR_PINNED, "b")
	testenv.RequireRunsOn(t, tc, contract.TelescopeLockID(obsNS, "east"), enumspb.VERSIONING_BEHAVIOR_AUTO_UPGRADE, "b")
	require.NoError(t, objects(obsv1.KindReservation).Delete(ctx, "next", metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		_, err := objects(obsv1.KindReservation).Get(ctx, "next", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 3*time.Minute, 250*time.Millisecond, "the next night is released and goes")
	require.Eventually(t, func() bool { return len(managed(t, ctx)) == 0 }, time.Minute, 250*time.Millisecond, "no pod is left")
}

// oldWorkersGo waits until the watcher has removed main's Deployment, nothing being pinned to
// main once tonight has ended; b's workers run on.
func oldWorkersGo(t *testing.T, ctx context.Context) {
	tc := temporalClient(t)
	testenv.RequireRunsOn(t, tc, contract.ReservationID(obsNS, "tonight"), enumspb.VERSIONING_BEHAVIOR_PINNED, "main")
	deployments := env.Kube.AppsV1().Deployments(system)
	testenv.Eventually(t, 4*time.Minute, "the watcher removed liken-worker-main", func() (bool, string) {
		_, err := deployments.Get(ctx, "liken-worker-main", metav1.GetOptions{})
		return apierrors.IsNotFound(err), describe(ctx, system)
	})
	pods, err := env.Kube.CoreV1().Pods(system).List(ctx, metav1.ListOptions{LabelSelector: workerSelector})
	require.NoError(t, err)
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			require.Equal(t, "b", p.Labels[rollout.BuildLabel], "only build b's workers are left: %s", p.Name)
			require.Equal(t, corev1.PodRunning, p.Status.Phase, p.Name)
		}
	}
}

// pendingActivities says what the workflow id waits for, for a failure's message.
func pendingActivities(t *testing.T, id string) string {
	d, err := temporalClient(t).DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, a := range d.GetPendingActivities() {
		out = append(out, fmt.Sprintf("%s %s attempt %d, last failure %q on %s", a.GetActivityType().GetName(), a.GetState(),
			a.GetAttempt(), a.GetLastFailure().GetMessage(), a.GetLastWorkerIdentity()))
	}
	return fmt.Sprintf("%s pending: %v", id, out)
}

// temporalClient dials the bundled Temporal at its Service's cluster IP, which the node routes.
func temporalClient(t *testing.T) client.Client {
	s, err := env.Kube.CoreV1().Services(system).Get(context.Background(), "temporal", metav1.GetOptions{})
	require.NoError(t, err)
	c, err := client.Dial(client.Options{HostPort: net.JoinHostPort(s.Spec.ClusterIP, "7233"), Logger: testenv.Quiet()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}
