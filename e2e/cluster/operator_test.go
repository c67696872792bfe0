// The operator under rollouts and crashes while a reservation is Ready: each watcher's Lease
// goes to its new pod within the hand-over bound, the worker's container is killed, and the
// reservation stays Ready.
package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// handOver is the seed's bound: a waiting copy takes a released Lease within about 11 s.
const handOver = 11 * time.Second

// operatorRollsAndCrashes restarts the watchers and the worker as `kubectl rollout
// restart` does, and kills the worker's container as an OOM kill would, all while the
// reservation is Ready: each Lease goes to the new pod within the hand-over bound, and the
// reservation stays Ready (endReleases then finds every step once).
func operatorRollsAndCrashes(t *testing.T, ctx context.Context) {
	for _, lease := range []string{"people-operator", "observatory-operator"} {
		rollWatcher(t, ctx, lease)
	}
	if out, err := env.Kubectl(ctx, "-n", system, "rollout", "restart", "deployment/liken-worker"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if out, err := env.Kubectl(ctx, "-n", system, "rollout", "status", "deployment/liken-worker", "--timeout=120s"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	killWorkerContainer(t, ctx)
	assert.Equal(t, obsv1.ReservationReady, reservation(t, ctx).Status.Phase, "the reservation stayed Ready")
}

func lease(t *testing.T, ctx context.Context, name string) *coordinationv1.Lease {
	t.Helper()
	l, err := env.Kube.CoordinationV1().Leases(system).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	return l
}

// rollWatcher restarts the Deployment of the watcher side that holds the Lease name, and
// checks the new pod takes the Lease within handOver of the old pod's stop.
func rollWatcher(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	before := lease(t, ctx, name)
	require.NotNil(t, before.Spec.HolderIdentity, "the Lease %s has a holder", name)
	old := *before.Spec.HolderIdentity
	if out, err := env.Kubectl(ctx, "-n", system, "rollout", "restart", "deployment/"+name); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// The old pod is asked to stop once the new one is ready (maxUnavailable 0); its
	// deletionTimestamp is that moment plus its grace period.
	var stopped time.Time
	require.Eventually(t, func() bool {
		p, err := env.Kube.CoreV1().Pods(system).Get(ctx, old, metav1.GetOptions{})
		if err == nil && p.DeletionTimestamp != nil {
			stopped = p.DeletionTimestamp.Add(-time.Duration(*p.DeletionGracePeriodSeconds) * time.Second)
		}
		return !stopped.IsZero()
	}, 2*time.Minute, 100*time.Millisecond, "the rollout stops the old %s pod", name)
	var l *coordinationv1.Lease
	require.Eventually(t, func() bool {
		l = lease(t, ctx, name)
		return l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != old && *l.Spec.HolderIdentity != "" && l.Spec.AcquireTime != nil
	}, 2*time.Minute, 100*time.Millisecond, "another pod takes the Lease %s", name)
	holder := *l.Spec.HolderIdentity
	p, err := env.Kube.CoreV1().Pods(system).Get(ctx, holder, metav1.GetOptions{})
	require.NoError(t, err, "the Lease %s names a pod", name)
	assert.Equal(t, corev1.PodRunning, p.Status.Phase)
	took := l.Spec.AcquireTime.Sub(stopped)
	t.Logf("Lease %s: %s -> %s, taken %s after the old pod was told to stop", name, old, holder, took.Round(time.Millisecond))
	assert.LessOrEqual(t, took, handOver, "the Lease %s changed hands within %s", name, handOver)
	if out, err := env.Kubectl(ctx, "-n", system, "rollout", "status", "deployment/"+name, "--timeout=120s"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	out, _ := env.Kubectl(ctx, "-n", system, "get", "lease", name)
	t.Logf("$ kubectl -n %s get lease %s\n%s", system, name, out)
}

// killWorkerContainer kills one worker's container through containerd, as the kernel's
// OOM killer would: the kubelet restarts it in the same pod.
func killWorkerContainer(t *testing.T, ctx context.Context) {
	t.Helper()
	pods, err := env.Kube.CoreV1().Pods(system).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=worker"})
	require.NoError(t, err)
	var victim *corev1.Pod
	for i, p := range pods.Items {
		if p.DeletionTimestamp == nil && len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].Ready {
			victim = &pods.Items[i]
			break
		}
	}
	require.NotNil(t, victim, "a ready worker pod")
	cs := victim.Status.ContainerStatuses[0]
	id := strings.TrimPrefix(cs.ContainerID, "containerd://")
	out, err := env.Stack.Node.Ctr(ctx, "tasks", "kill", "--signal", "SIGKILL", id)
	require.NoError(t, err, out)
	require.Eventually(t, func() bool {
		p, err := env.Kube.CoreV1().Pods(system).Get(ctx, victim.Name, metav1.GetOptions{})
		if err != nil || len(p.Status.ContainerStatuses) != 1 {
			return false
		}
		c := p.Status.ContainerStatuses[0]
		return c.RestartCount > cs.RestartCount && c.Ready
	}, 2*time.Minute, 250*time.Millisecond, "the killed worker's container is restarted and ready")
}
