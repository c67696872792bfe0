// The operator under rollouts and crashes while a reservation is Ready: each watcher's Lease
// is released by its old pod and taken by its new one, the worker's container is killed, and the
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
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// operatorRollsAndCrashes restarts the watchers and the worker as `kubectl rollout
// restart` does, and kills the worker's container as an OOM kill would, all while the
// reservation is Ready: each Lease is released and goes to the new pod, and the
// reservation stays Ready (endReleases then finds every step once).
func operatorRollsAndCrashes(t *testing.T, ctx context.Context) {
	for _, lease := range []string{"people-operator", "observatory-operator"} {
		rollWatcher(t, ctx, lease)
	}
	if out, err := env.Kubectl(ctx, "-n", system, "rollout", "restart", "deployment/liken-worker-main"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if out, err := env.Kubectl(ctx, "-n", system, "rollout", "status", "deployment/liken-worker-main", "--timeout=120s"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	killWorkerContainer(t, ctx)
	assert.Equal(t, obsv1.ReservationReady, reservation(t, ctx, obsNS, "tonight").Status.Phase, "the reservation stayed Ready")
}

func lease(t *testing.T, ctx context.Context, name string) *coordinationv1.Lease {
	t.Helper()
	l, err := env.Kube.CoordinationV1().Leases(system).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	return l
}

// rollWatcher restarts the Deployment of the watcher side that holds the Lease name, and
// checks, in the Lease's own history, that the old pod released it and a new pod took it: a
// Lease left to expire instead could not change hands before its duration ran out. The time
// each took is logged, not bounded: on a loaded node the kubelet's stop alone varies.
func rollWatcher(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	before := lease(t, ctx, name)
	require.NotNil(t, before.Spec.HolderIdentity, "the Lease %s has a holder", name)
	old := *before.Spec.HolderIdentity
	w, err := env.Kube.CoordinationV1().Leases(system).Watch(ctx, metav1.ListOptions{
		FieldSelector: "metadata.name=" + name, ResourceVersion: before.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()
	if out, err := env.Kubectl(ctx, "-n", system, "rollout", "restart", "deployment/"+name); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	released, taken, lastRenew := leaseHandOver(t, ctx, w, old, before)
	holder := *taken.Spec.HolderIdentity
	p, err := env.Kube.CoreV1().Pods(system).Get(ctx, holder, metav1.GetOptions{})
	require.NoError(t, err, "the Lease %s names a pod", name)
	assert.Equal(t, corev1.PodRunning, p.Status.Phase)
	expiry := lastRenew.Add(time.Duration(*before.Spec.LeaseDurationSeconds) * time.Second)
	assert.True(t, taken.Spec.AcquireTime.Time.Before(expiry),
		"the Lease %s was taken at %s, before the old holder's renewal of %s expired", name, taken.Spec.AcquireTime, lastRenew)
	t.Logf("Lease %s: %s released it, %s took it %s later (%s before it would have expired)", name, old, holder,
		taken.Spec.AcquireTime.Sub(released).Round(time.Millisecond), expiry.Sub(taken.Spec.AcquireTime.Time).Round(time.Millisecond))
	if out, err := env.Kubectl(ctx, "-n", system, "rollout", "status", "deployment/"+name, "--timeout=120s"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	out, _ := env.Kubectl(ctx, "-n", system, "get", "lease", name)
	t.Logf("$ kubectl -n %s get lease %s\n%s", system, name, out)
}

// leaseHandOver follows the Lease's versions from before until a holder other than old takes
// it, and returns when old released it, the taking version, and old's last renewal. The release
// is the version client-go writes on a clean stop: no holder, a duration of one second.
func leaseHandOver(t *testing.T, ctx context.Context, w watch.Interface, old string, before *coordinationv1.Lease) (time.Time, *coordinationv1.Lease, time.Time) {
	t.Helper()
	var released, lastRenew time.Time
	if before.Spec.RenewTime != nil {
		lastRenew = before.Spec.RenewTime.Time
	}
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "the watch of the Lease ended")
			l, ok := ev.Object.(*coordinationv1.Lease)
			require.True(t, ok, "the watch of the Lease sent %v", ev.Object)
			switch holder := ptr.Deref(l.Spec.HolderIdentity, ""); {
			case holder == old && l.Spec.RenewTime != nil:
				lastRenew = l.Spec.RenewTime.Time
			case holder == "" && released.IsZero():
				released = l.Spec.RenewTime.Time
			case holder != "" && holder != old:
				require.False(t, released.IsZero(), "%s took the Lease without %s releasing it", holder, old)
				return released, l, lastRenew
			}
		case <-deadline:
			t.Fatalf("the Lease did not change hands within 2 minutes of the rollout")
		}
	}
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
