// Where a pod stands on its way to Ready, in words, for the steps that wait for one: a
// timeout or a heartbeat then says why it is not Ready (not scheduled, an image that cannot
// be pulled, a claim not allocated) instead of only that it is not.
package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// PodReady says whether the pod is Ready and, when it is not, where it stands: its phase,
// each of its conditions that is not True with its reason and message, and each container
// that waits with why ("Pending; PodScheduled: Unschedulable: 0/1 nodes are available...").
func PodReady(p *corev1.Pod) (bool, string) {
	parts := []string{string(p.Status.Phase)}
	ready := false
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			ready = true
		}
		if c.Status != corev1.ConditionTrue && (c.Reason != "" || c.Message != "") {
			parts = append(parts, strings.TrimSuffix(string(c.Type)+": "+c.Reason+": "+c.Message, ": "))
		}
	}
	for _, s := range p.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil && w.Reason != "" {
			parts = append(parts, strings.TrimSuffix("container "+s.Name+": "+w.Reason+": "+w.Message, ": "))
		}
	}
	if p.Status.Phase == "" {
		parts[0] = "not yet seen by a node"
	}
	return ready, strings.Join(parts, "; ")
}
