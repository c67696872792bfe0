// Where a pod stands on its way to Ready, as a waiting step says it.
package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

func TestAPodThatIsNotReadySaysWhy(t *testing.T) {
	unscheduled := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
		Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
		Message: "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }",
	}}}}
	ready, why := PodReady(unscheduled)
	require.False(t, ready)
	require.Equal(t, "Pending; PodScheduled: Unschedulable: 0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }", why)

	pulling := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "driver", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}}}}
	ready, why = PodReady(pulling)
	require.False(t, ready)
	require.Equal(t, "Pending; Ready: ContainersNotReady; container driver: ImagePullBackOff: Back-off pulling image", why)

	ready, why = PodReady(&corev1.Pod{})
	require.False(t, ready)
	require.Equal(t, "not yet seen by a node", why)

	ready, _ = PodReady(&corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}})
	require.True(t, ready)
}
