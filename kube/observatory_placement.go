// Where the scheduler may put the guider's pods. Guide frames go from the guide camera's
// driver to PHD2 through the telescope's INDI server, several a second; keeping all three on
// one node means no frame crosses a link between nodes. So the guider pod, and the camera of
// the optical train its Guider names, must run where the telescope's server runs. A guide
// camera with a claim is the exception: its hardware is on one node, and that node decides.
// A telescope without a Guider constrains nothing.
package kube

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// HostnameTopologyKey makes "the same topology" mean the same node.
const HostnameTopologyKey = "kubernetes.io/hostname"

// ServerAffinity is a required pod affinity to the INDI server pod of the Telescope
// telescope, in the pod's own namespace.
func ServerAffinity(telescope string) *corev1.Affinity {
	return &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{
				LabelAppName: ObjectName(obsv1.KindTelescope, telescope),
			}},
			TopologyKey: HostnameTopologyKey,
		}},
	}}
}

// DeviceAffinity is the affinity of a device's pod: to its telescope's server for a camera
// in the optical train that guider names, unless the camera has a claim; nil otherwise.
// guider is the Guider of the device's telescope, or nil when it has none.
func DeviceAffinity(d DeviceRef, guider *obsv1.Guider) *corev1.Affinity {
	if guider == nil || d.Kind != obsv1.KindCamera || d.Spec.Claim != nil ||
		d.OpticalTrain == "" || d.OpticalTrain != guider.Spec.OpticalTrain || guider.Spec.Telescope == "" {
		return nil
	}
	return ServerAffinity(guider.Spec.Telescope)
}
