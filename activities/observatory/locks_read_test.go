// Tests of what a relay reads of a telescope from the namespace's mounts and pods, without
// servers.
package observatory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestATelescopesMountServerHasItsOwnMountsAndRunsOnlyThoseWithPods(t *testing.T) {
	mount := func(name, telescope string, deleting bool) runtime.Object {
		m := &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "site"},
			Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: telescope}}}
		if deleting {
			m.DeletionTimestamp = &metav1.Time{}
		}
		return m
	}
	mounts := []runtime.Object{mount("east", "east", false), mount("east-2", "east", false),
		mount("east-old", "east", true), mount("west", "west", false)}
	devicePod := func(name, server string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: kube.ObjectLabels(name, kube.RoleDevice, server, kube.ResourceID{Kind: obsv1.KindMount, Name: name})}}
	}
	pods := []corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "east-telescope",
			Annotations: map[string]string{kube.AnnotationDrivers: "east-mount:7625\neast-2-mount:7626\n"}}},
		devicePod("east-mount", "east-telescope"), // east-2's pod was never created
		devicePod("west-mount", "west-telescope"), // west's server does not run
	}
	tel := func(name string) *obsv1.Telescope {
		return &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "site", UID: types.UID("uid-" + name)}}
	}
	labels := func(ds []stepDevice) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Label())
		}
		return out
	}

	east := telescopeMountServer(tel("east"), mounts, pods)
	assert.Equal(t, "east", east.telescope)
	assert.Equal(t, []string{"Mount east", "Mount east-2"}, labels(east.mounts), "its mounts, less the one being deleted")
	assert.True(t, east.runs)
	assert.Equal(t, "east-telescope", east.on.Name)
	assert.Equal(t, kube.ResourceID{Kind: obsv1.KindTelescope, Namespace: "site", Name: "east", UID: "uid-east"}, east.on.Owner)
	assert.Equal(t, []string{"Mount east"}, labels(east.on.Devices), "only the mount whose pod exists runs")

	west := telescopeMountServer(tel("west"), mounts, pods)
	assert.Equal(t, []string{"Mount west"}, labels(west.mounts))
	assert.False(t, west.runs, "no server pod: its mount is silent")

	assert.Empty(t, telescopeMountServer(tel("north"), mounts, pods).mounts)
}
