// Healing a Ready reservation: what a person or the cluster deleted while it held its
// telescope is created again.
package activities

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// ReasonPodCreated is the Event of a pod created again.
const ReasonPodCreated = "PodCreated"

// HealResult names the pods HealPods created again.
type HealResult struct {
	Created []string `json:",omitempty"`
}

// HealPods brings back the pods, Services and claims of a Ready reservation's observatory and
// telescope, as StartSite, PowerOn and StartDevices create or adopt them, and its Guider's as
// StartGuider does. Each pod created again gets a PodCreated Event on its resource; then the
// drivers are connected and configured again, as Connect and Configure do, which send nothing
// to a device already as they leave it. Nothing missing: nothing done.
func (a *Activities) HealPods(ctx context.Context, in StepInput) (HealResult, error) {
	before, err := a.managedPods(ctx, in.Namespace)
	if err != nil {
		return HealResult{}, err
	}
	var servers []stepServer
	if in.Observatory != "" {
		s, err := a.readServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
		if err != nil {
			return HealResult{}, err
		}
		if len(s.Devices) > 0 {
			servers = append(servers, s)
		}
	}
	tel, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return HealResult{}, err
	}
	servers = append(servers, tel)
	for _, s := range servers {
		if _, err := a.bringUp(ctx, s, s.Devices); err != nil {
			return HealResult{}, err
		}
	}
	if tel.Guider != nil {
		// The guider's pod comes back as StartGuider made it: PHD2 connects its camera and
		// mount again. One that runs is left alone.
		if name, err := kube.ValidObjectName(obsv1.KindGuider, tel.Guider.Name); err == nil && before[name] == nil {
			if _, err := a.StartGuider(ctx, in); err != nil {
				return HealResult{}, err
			}
		}
	}
	after, err := a.managedPods(ctx, in.Namespace)
	if err != nil {
		return HealResult{}, err
	}

	var out HealResult
	for name, pod := range after {
		if _, ok := before[name]; ok || !servesOneOf(pod, servers) {
			continue
		}
		out.Created = append(out.Created, name)
		if ref := metav1.GetControllerOf(pod); ref != nil {
			a.postObsEvent(ctx, kube.ResourceID{Kind: obsv1.Kind(ref.Kind), Namespace: in.Namespace, Name: ref.Name, UID: ref.UID},
				kube.Event{Type: corev1.EventTypeNormal, Reason: ReasonPodCreated,
					Message: fmt.Sprintf("Created the pod %s again: it was deleted while Reservation %s was Ready", name, in.Reservation)})
		}
	}
	if len(out.Created) == 0 {
		return out, nil
	}
	sort.Strings(out.Created)
	logFor(ctx).Info("created pods again", "namespace", in.Namespace, "reservation", in.Reservation, "pods", out.Created)
	for _, step := range []func(context.Context, StepInput) (StepResult, error){a.Connect, a.Configure} {
		if _, err := step(ctx, in); err != nil {
			return out, err
		}
	}
	return out, nil
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
