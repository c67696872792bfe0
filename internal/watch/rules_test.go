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

// testObject is a first version of an object (resourceVersion 1, generation 1, uid u1), with
// mod applied when there is one.
func testObject(apiVersion, kind, namespace, name string, spec map[string]any, mod func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	meta := map[string]any{"name": name, "uid": "u1", "resourceVersion": "1", "generation": int64(1)}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}}
	if spec != nil {
		u.Object["spec"] = spec
	}
	if mod != nil {
		mod(u)
	}
	return u
}

// newer is an update: the next resourceVersion, with change made.
func newer(change func(u *unstructured.Unstructured)) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		u.SetResourceVersion("2")
		change(u)
	}
}

func person(mod func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	return testObject("people.liken.sh/v1alpha1", "Person", "", "ada",
		map[string]any{"displayName": "Ada Lovelace", "avatar": "nfs://files/ada.png"}, mod)
}

func TestOnlyUpdatesAPassActsOnAreWorthASignal(t *testing.T) {
	now := metav1.Now()
	for _, c := range []struct {
		name string
		mod  func(u *unstructured.Unstructured)
		want string
	}{
		{"the same version again (a resync)", func(u *unstructured.Unstructured) {}, whyResync},
		{"a status write", newer(func(u *unstructured.Unstructured) {
			u.Object["status"] = map[string]any{"thumbnail": "data:image/jpeg;base64,/9j/"}
		}), ""},
		{"a label", newer(func(u *unstructured.Unstructured) {
			u.SetLabels(map[string]string{"team": "engine"})
		}), ""},
		{"another annotation", newer(func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"note": "x"})
		}), ""},
		{"a spec change", newer(func(u *unstructured.Unstructured) {
			u.SetGeneration(2)
		}), whyUpdated},
		{"the check-avatar annotation", newer(func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{kube.AnnotationCheckAvatar: "now"})
		}), whyUpdated},
		{"a new object under the same name", newer(func(u *unstructured.Unstructured) {
			u.SetUID("u2")
		}), whyUpdated},
		{"a deletion under way", newer(func(u *unstructured.Unstructured) {
			u.SetDeletionTimestamp(&now)
		}), whyUpdated},
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
	gone := metav1.Now()
	m := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "people.liken.sh/v1alpha1", Kind: "Person"},
		ObjectMeta: metav1.ObjectMeta{Name: "ada", UID: "u1", ResourceVersion: "3", Generation: 2, DeletionTimestamp: &gone,
			Labels:        map[string]string{"team": "engine"},
			Finalizers:    []string{"example.com/keep"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
			Annotations: map[string]string{kube.AnnotationCheckAvatar: "now",
				"kubectl.kubernetes.io/last-applied-configuration": `{"spec":{"displayName":"Ada Lovelace"}}`}},
	}
	out, _ := trimPerson(m)
	t1 := out.(*metav1.PartialObjectMetadata)
	if t1.ManagedFields != nil || t1.Labels != nil || t1.Finalizers != nil || len(t1.Annotations) != 1 {
		t.Errorf("the Person cache keeps what the watcher never reads: %+v", t1.ObjectMeta)
	}
	if t1.Name != "ada" || t1.UID != "u1" || t1.ResourceVersion != "3" || t1.Generation != 2 ||
		t1.DeletionTimestamp != &gone || t1.Annotations[kube.AnnotationCheckAvatar] != "now" {
		t.Errorf("the Person cache lost what the watcher reads: %+v", t1.ObjectMeta)
	}
	plain := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "bob"}}
	if out, _ := trimPerson(plain); out.(*metav1.PartialObjectMetadata).Annotations != nil {
		t.Error("a Person without the check-avatar annotation got one")
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
