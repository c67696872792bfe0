// The runner's images from a registry of the user's: the pods name it, a device's own image
// stays, and the spec digest follows.
package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTheRunnersImagesComeFromTheRegistryTheWorkerNames(t *testing.T) {
	pod := func(images ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "east-mount", Annotations: map[string]string{}}}
		for _, im := range images {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Image: im})
		}
		return obsSeal(p)
	}
	for _, tc := range []struct {
		name, registry string
		in, want       []string
	}{
		{"the release's registry", "", []string{ServerImage}, []string{ServerImage}},
		{"the release's registry named", "ghcr.io/liken-sh", []string{ServerImage}, []string{ServerImage}},
		{"another", "registry.example/liken", []string{ServerImage, SimulatorImage},
			[]string{"registry.example/liken/indi:" + INDIImageTag, "registry.example/liken/indi-simulators:" + INDIImageTag}},
		{"with a slash", "registry.example/liken/", []string{GuiderImage}, []string{"registry.example/liken/indi-phd2:" + INDIImageTag}},
		{"a device's own image", "registry.example/liken", []string{"vendor.example/indi-acme:2"}, []string{"vendor.example/indi-acme:2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := InRegistry(pod(tc.in...), tc.registry)
			for i, c := range p.Spec.Containers {
				if c.Image != tc.want[i] {
					t.Errorf("container %d runs %s, want %s", i, c.Image, tc.want[i])
				}
			}
			if p.Annotations[AnnotationSpecDigest] != PodSpecDigest(&p.Spec) {
				t.Error("the spec digest is not the digest of the spec")
			}
		})
	}
}
