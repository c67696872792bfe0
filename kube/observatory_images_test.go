// The runner's images from a registry of the user's: the pods name it, a device's own image
// stays, and the spec digest follows.
package kube

import (
	"strings"
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
		{"another", "registry.example/liken", []string{ServerImageOf("v0.2.0"), SimulatorImage},
			[]string{"registry.example/liken/indi:" + INDIImageTag + "-v0.2.0", "registry.example/liken/indi-simulators:" + INDIImageTag}},
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

// The server image holds the site guard, so its tag names the runner's build as well as INDI's
// release; what a tag may not hold becomes '-'.
func TestTheServerImageIsTaggedWithTheRunnersBuild(t *testing.T) {
	for build, want := range map[string]string{
		"v0.2.0":                          "ghcr.io/liken-sh/indi:1.9.9-v0.2.0",
		"v0.1.0-14-gf2c7335-dirty":        "ghcr.io/liken-sh/indi:1.9.9-v0.1.0-14-gf2c7335-dirty",
		"v0.1.1-0.20261206-f2c7335+dirty": "ghcr.io/liken-sh/indi:1.9.9-v0.1.1-0.20261206-f2c7335-dirty",
		"dev":                             "ghcr.io/liken-sh/indi:1.9.9-dev",
	} {
		if got := ServerImageOf(build); got != want {
			t.Errorf("ServerImageOf(%q) = %s, want %s", build, got, want)
		}
	}
	if got := ServerImageOf(strings.Repeat("x", 200)); len(got)-len("ghcr.io/liken-sh/indi:") != 128 {
		t.Errorf("a tag longer than 128 characters: %s", got)
	}
}
