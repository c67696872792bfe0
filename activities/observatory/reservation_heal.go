// Healing a Ready reservation: what a person or the cluster deleted while it held its
// telescope is created again (LiveDevices does it; see reservation_live.go).
package observatory

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
)

// ReasonPodCreated is the Event of a pod created again.
const ReasonPodCreated = "PodCreated"

// HealResult names the pods HealPods created again.
type HealResult struct {
	Created []string `json:",omitempty"`
}

// HealPods brings back what was deleted while a reservation is Ready: the runs that
// began before devices could join and leave live call it. It is LiveDevices now (which
// heals as it handles the joiners and leavers), so there is one heal to keep right.
func (a *Activities) HealPods(ctx context.Context, in StepInput) (HealResult, error) {
	res, err := a.LiveDevices(ctx, LiveInput{StepInput: in})
	return HealResult{Created: res.Created}, err
}

// managedPods are the observatory pods of a namespace, by name.
func (a *Activities) managedPods(ctx context.Context, ns string) (map[string]*corev1.Pod, error) {
	l, err := a.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=" + kube.ObservatoryComponent})
	if err != nil {
		return nil, fmt.Errorf("list the pods of %s: %w", ns, err)
	}
	out := make(map[string]*corev1.Pod, len(l.Items))
	for i := range l.Items {
		out[l.Items[i].Name] = &l.Items[i]
	}
	return out, nil
}

// servesOneOf tells whether the pod is one of the servers' own or one of their devices'.
func servesOneOf(pod *corev1.Pod, servers []stepServer) bool {
	for _, s := range servers {
		if pod.Name == s.Name || pod.Labels[kube.LabelServer] == s.Name {
			return true
		}
	}
	return false
}
