// Healing a Ready reservation: what a person or the cluster deleted while it held its
// telescope is created again (StartLiveDevices and RestartGuider do it, as parts of a live
// plan; see reservation_live.go).
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

// managedPods are the observatory pods of a namespace, by name; a server's by its server's name
// (a site's is its StatefulSet's pod, kube.ServerPodName).
func (a *Activities) managedPods(ctx context.Context, ns string) (map[string]*corev1.Pod, error) {
	l, err := a.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=" + kube.ObservatoryComponent})
	if err != nil {
		return nil, fmt.Errorf("list the pods of %s: %w", ns, err)
	}
	out := make(map[string]*corev1.Pod, len(l.Items))
	for i := range l.Items {
		out[kube.PodKey(&l.Items[i])] = &l.Items[i]
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
