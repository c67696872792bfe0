// The site's server as a StatefulSet: one pod of a known name, replaced only when deleted,
// whose template is the server pod, and the name the runner knows each pod by.
package kube

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestTheSiteServerIsAStatefulSetOfItsServerPod(t *testing.T) {
	pod, err := ServerPod(obsTObservatory, []string{"lab-dome"})
	if err != nil {
		t.Fatal(err)
	}
	set, err := SiteServer(pod)
	if err != nil {
		t.Fatal(err)
	}
	if set.Name != "lab-observatory" || set.Namespace != "observatory" || *set.Spec.Replicas != 1 || set.Spec.ServiceName != "lab-observatory" {
		t.Errorf("the StatefulSet %s/%s: %d replicas, Service %s", set.Namespace, set.Name, *set.Spec.Replicas, set.Spec.ServiceName)
	}
	if set.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType {
		t.Errorf("update strategy %s: a changed template must not restart the site's guard", set.Spec.UpdateStrategy.Type)
	}
	obsTCheckOwner(t, set.Name, set.OwnerReferences, obsTObservatory)
	sel, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(set.Spec.Template.Labels)) {
		t.Errorf("the selector %v does not pick its own pods (%v)", set.Spec.Selector, err)
	}
	if !reflect.DeepEqual(set.Spec.Template.Spec, pod.Spec) || !reflect.DeepEqual(set.Spec.Template.Annotations, pod.Annotations) {
		t.Error("the template is not the server pod")
	}
	if set.Annotations[AnnotationSpecDigest] != pod.Annotations[AnnotationSpecDigest] {
		t.Error("the StatefulSet does not carry its pod's spec digest")
	}
	other, _ := ServerPod(obsTObservatory, []string{"lab-dome", "lab-weatherstation"})
	if again, _ := SiteServer(other); SiteServerIsStale(set, again) {
		t.Error("other drivers make a site server stale: they are patched, not restarted")
	}
	tel, _ := ServerPod(obsTTelescope, nil)
	if _, err := SiteServer(tel); err == nil {
		t.Error("a Telescope's server made a StatefulSet")
	}
}

func TestARunnerKnowsAServersPodByItsServersName(t *testing.T) {
	pod := func(name, role, server string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{LabelRole: role, LabelServer: server}}}
	}
	for _, tc := range []struct {
		pod  *corev1.Pod
		want string
	}{
		{pod("lab-observatory-0", "server", "lab-observatory"), "lab-observatory"},
		{pod("east-telescope", "server", "east-telescope"), "east-telescope"},
		{pod("lab-observatory", "server", "lab-observatory"), "lab-observatory"}, // a bare site pod of a runner before
		{pod("lab-dome", "device", "lab-observatory"), "lab-dome"},
	} {
		if got := PodKey(tc.pod); got != tc.want {
			t.Errorf("PodKey(%s) = %s, want %s", tc.pod.Name, got, tc.want)
		}
	}
	if ServerPodName("lab-observatory") != "lab-observatory-0" || ServerPodName("east-telescope") != "east-telescope" {
		t.Error("ServerPodName")
	}
}
