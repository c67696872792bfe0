// The watcher's two rules as tables: which Person updates are worth a signal, and which baker
// pods need their Person's workflow to look; and what the informers' trimming keeps.
package watch

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/kube"
)

func person(mod func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "people.liken.sh/v1alpha1", "kind": "Person",
		"metadata": map[string]any{"name": "ada", "uid": "u1", "resourceVersion": "1", "generation": int64(1)},
		"spec":     map[string]any{"displayName": "Ada Lovelace", "avatar": "nfs://files/ada.png"},
	}}
	if mod != nil {
		mod(u)
	}
	return u
}

func TestOnlyUpdatesAPassActsOnAreWorthASignal(t *testing.T) {
	now := metav1.Now()
	for _, c := range []struct {
		name string
		mod  func(u *unstructured.Unstructured)
		want string
	}{
		{"the same version again (a resync)", func(u *unstructured.Unstructured) {}, whyResync},
		{"a status write", func(u *unstructured.Unstructured) {
			u.SetResourceVersion("2")
			u.Object["status"] = map[string]any{"thumbnail": "data:image/jpeg;base64,/9j/"}
		}, ""},
		{"a label", func(u *unstructured.Unstructured) {
			u.SetResourceVersion("2")
			u.SetLabels(map[string]string{"team": "engine"})
		}, ""},
		{"another annotation", func(u *unstructured.Unstructured) {
			u.SetResourceVersion("2")
			u.SetAnnotations(map[string]string{"note": "x"})
		}, ""},
		{"a spec change", func(u *unstructured.Unstructured) {
			u.SetResourceVersion("2")
			u.SetGeneration(2)
		}, whyUpdated},
		{"the check-avatar annotation", func(u *unstructured.Unstructured) {
			u.SetResourceVersion("2")
			u.SetAnnotations(map[string]string{kube.AnnotationCheckAvatar: "now"})
		}, whyUpdated},
		{"a new object under the same name", func(u *unstructured.Unstructured) {
			u.SetResourceVersion("2")
			u.SetUID("u2")
		}, whyUpdated},
		{"a deletion under way", func(u *unstructured.Unstructured) {
			u.SetResourceVersion("2")
			u.SetDeletionTimestamp(&now)
		}, whyUpdated},
	} {
		if got := personUpdate(person(nil), person(c.mod)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestABakerPodNeedsALookWhenItFinishedWentStaleOrLostItsPerson(t *testing.T) {
	pod := func(phase corev1.PodPhase, personName, source string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
				kube.AnnotationPerson: personName, kube.AnnotationSource: source,
			}},
			Status: corev1.PodStatus{Phase: phase},
		}
	}
	for _, c := range []struct {
		name   string
		pod    *corev1.Pod
		person *unstructured.Unstructured
		want   bool
	}{
		{"pending on the current source", pod(corev1.PodPending, "ada", "nfs://files/ada.png"), person(nil), false},
		{"running on the current source", pod(corev1.PodRunning, "ada", "nfs://files/ada.png"), person(nil), false},
		{"succeeded", pod(corev1.PodSucceeded, "ada", "nfs://files/ada.png"), person(nil), true},
		{"failed", pod(corev1.PodFailed, "ada", "nfs://files/ada.png"), person(nil), true},
		{"running on an old source", pod(corev1.PodRunning, "ada", "nfs://files/old.png"), person(nil), true},
		{"running for a Person who is gone", pod(corev1.PodRunning, "ada", "nfs://files/ada.png"), nil, true},
		{"without a Person annotation", pod(corev1.PodSucceeded, "", ""), nil, false},
	} {
		if got := bakerWantsALook(c.pod, c.person); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTheCachesKeepWhatTheWatcherReadsAndDropTheRest(t *testing.T) {
	u := person(func(u *unstructured.Unstructured) {
		u.Object["status"] = map[string]any{"thumbnail": "data:image/jpeg;base64,/9j/"}
		u.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl"}})
		u.SetAnnotations(map[string]string{kube.AnnotationCheckAvatar: "now"})
	})
	out, _ := trimPerson(u)
	t1 := out.(*unstructured.Unstructured)
	if _, has := t1.Object["status"]; has || t1.GetManagedFields() != nil {
		t.Errorf("the Person cache keeps its status or managed fields: %v", t1.Object)
	}
	if avatar, _, _ := unstructured.NestedString(t1.Object, "spec", "avatar"); avatar != "nfs://files/ada.png" ||
		t1.GetAnnotations()[kube.AnnotationCheckAvatar] != "now" || t1.GetGeneration() != 1 || t1.GetUID() != "u1" {
		t.Errorf("the Person cache lost what the watcher reads: %v", t1.Object)
	}

	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "avatar-ada", Namespace: "liken-system", UID: "p1", ResourceVersion: "7",
			Annotations: map[string]string{kube.AnnotationPerson: "ada"}, Labels: map[string]string{kube.LabelBaker: "avatar"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "worker"}}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "bake", Image: "x"}}},
		Status: corev1.PodStatus{Phase: corev1.PodSucceeded, Message: "done"},
	}
	out, _ = trimPod(p)
	t2 := out.(*corev1.Pod)
	if len(t2.Spec.Containers) != 0 || t2.ManagedFields != nil || t2.Status.Message != "" {
		t.Errorf("the pod cache keeps what the watcher never reads: %+v", t2)
	}
	if t2.Name != p.Name || t2.Namespace != p.Namespace || t2.ResourceVersion != "7" || t2.Status.Phase != corev1.PodSucceeded ||
		t2.Annotations[kube.AnnotationPerson] != "ada" {
		t.Errorf("the pod cache lost what the watcher reads: %+v", t2)
	}
	if tomb, _ := trimPod("not a pod"); tomb != "not a pod" {
		t.Error("trimPod changed something that is not a pod")
	}
}
