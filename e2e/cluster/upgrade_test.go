// A release's upgrade on the real node, as `kubectl apply` of the next release does it: build
// b's worker Deployment starts beside main's, and the people watcher's pods become build b's,
// which makes b current. Tonight stays Pinned on main to its end, and then the watcher removes
// main's Deployment. Also here: worker pods that start before Temporal wait for it and never
// restart.
package cluster

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/app"
	"liken.sh/runner/internal/rollout"
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
// while tonight stays Pinned on main.
func upgradeKeepsTonight(t *testing.T, ctx context.Context) {
	tc := temporalClient(t)
	tonight := contract.ReservationID(obsNS, "tonight")
	testenv.RequireRunsOn(t, tc, tonight, enumspb.VERSIONING_BEHAVIOR_PINNED, "main")

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

// temporalClient dials the bundled Temporal at its Service's cluster IP, which the node routes.
func temporalClient(t *testing.T) client.Client {
	s, err := env.Kube.CoreV1().Services(system).Get(context.Background(), "temporal", metav1.GetOptions{})
	require.NoError(t, err)
	c, err := client.Dial(client.Options{HostPort: net.JoinHostPort(s.Spec.ClusterIP, "7233"), Logger: testenv.Quiet()})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}
