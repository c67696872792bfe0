// Integration tests of a baker pod's life across retries and deletes: a retry adopts the pod
// already running or just finished (and keeps its deadline), an old or foreign one is replaced
// or refused, a pod deleted mid-bake is replaced, a Person deleted mid-bake is Gone, and a pass
// or a forget deletes the pods that no longer answer anything. They run as subtests of
// TestBakerPods (person_bake_test.go), on its one test kubelet.
package people

import (
	"context"
	"image/color"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

func (b bakery) aRetryAdoptsTheRunningPod(t *testing.T) {
	avatar := "nfs://dead.example/photos/margaret.png"
	p := createPerson(t, "adopt-margaret", peoplev1.PersonSpec{DisplayName: "Margaret Hamilton", Avatar: avatar}, nil)
	pod := startBakerPod(t, p, avatar)
	waitForPhase(t, pod, corev1.PodRunning)
	created := watchCreations(t, pod)

	// The retry comes 4 s after the pod was created (the clock says so): with a deadline of
	// 5 s it has one second left, not five.
	a := newActivities()
	a.People.BakeDeadline = 5 * time.Second
	a.Now = func() time.Time { return time.Now().Add(4 * time.Second) }
	start := time.Now()
	out := mustBake(t, a, p.Name, false)
	assert.Less(t, time.Since(start), 3*time.Second, "the deadline is the adopted pod's")
	assert.Equal(t, "BakeFailed", out.Reason)
	assert.Equal(t, "the baker pod liken-system/avatar-adopt-margaret did not finish within 5s", avatarReady(t, readPerson(t, p.Name)).Message)
	waitForPodGone(t, pod.Namespace, pod.Name, "")
	assert.Empty(t, created(), "no other pod was created")
}

// watchCreations watches for new pods of the pod's name from now on; the function it returns
// stops the watch and lists the UIDs of the pods created meanwhile.
func watchCreations(t *testing.T, pod *corev1.Pod) func() []types.UID {
	t.Helper()
	w, err := env.Kube.CoreV1().Pods(pod.Namespace).Watch(context.Background(), metav1.ListOptions{
		FieldSelector:   "metadata.name=" + pod.Name,
		ResourceVersion: pod.ResourceVersion,
	})
	require.NoError(t, err)
	t.Cleanup(w.Stop)
	return func() []types.UID {
		var uids []types.UID
		// The pod's deletion is the last event the bake causes; every creation comes before it.
		for deadline := time.After(30 * time.Second); ; {
			select {
			case ev := <-w.ResultChan():
				p, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				if ev.Type == watch.Added {
					uids = append(uids, p.UID)
				}
				if ev.Type == watch.Deleted && p.UID == pod.UID && len(uids) == 0 {
					return uids
				}
				if ev.Type == watch.Deleted && len(uids) > 0 && p.UID == uids[len(uids)-1] {
					return uids
				}
			case <-deadline:
				t.Error("the watch saw no end of the bake")
				return uids
			}
		}
	}
}

func (b bakery) aRetryAdoptsAFinishedPod(t *testing.T) {
	writeFile(t, filepath.Join(b.k.ClaimDir("lab", "pictures"), "katherine.png"), pngOf(t, 20, 20, color.White))
	avatar := "claim://lab/pictures/katherine.png"
	p := createPerson(t, "adopt-katherine", peoplev1.PersonSpec{DisplayName: "Katherine Johnson", Avatar: avatar}, nil)
	pod := startBakerPod(t, p, avatar)
	waitForPhase(t, pod, corev1.PodSucceeded)

	out := mustBake(t, newActivities(), p.Name, false)
	assert.Equal(t, "Baked", out.Reason)
	assert.Equal(t, []types.UID{pod.UID}, b.k.Ran(pod.Namespace, pod.Name), "the finished pod's answer was used")
	waitForPodGone(t, pod.Namespace, pod.Name, "")
}

func (b bakery) anOldFinishedPodIsReplaced(t *testing.T) {
	writeFile(t, filepath.Join(b.k.ClaimDir("lab", "pictures"), "radia.png"), pngOf(t, 20, 20, color.White))
	avatar := "claim://lab/pictures/radia.png"
	p := createPerson(t, "stale-radia", peoplev1.PersonSpec{DisplayName: "Radia Perlman", Avatar: avatar}, nil)
	pod := startBakerPod(t, p, avatar)
	waitForPhase(t, pod, corev1.PodSucceeded)

	// Once the pod is older than the deadline its answer is old, and a new pod is started. The
	// time has to pass for real: the new pod's deadline runs on the same clock.
	a := newActivities()
	a.People.BakeDeadline = 2 * time.Second
	require.Eventually(t, func() bool { return time.Since(pod.CreationTimestamp.Time) > 3*time.Second },
		10*time.Second, 100*time.Millisecond)
	out := mustBake(t, a, p.Name, false)
	assert.Equal(t, "Baked", out.Reason)
	ran := b.k.Ran(pod.Namespace, pod.Name)
	require.GreaterOrEqual(t, len(ran), 2, "a new pod ran (more than one if kwok's late delete hit one)")
	assert.Equal(t, pod.UID, ran[0])
	assert.NotEqual(t, pod.UID, ran[len(ran)-1])
	waitForPodGone(t, pod.Namespace, pod.Name, "")
}

// deadServer is an NFS server no folder stands in for, one per hung bake: a test that brings
// its share back must not bring back the others'.
func deadServer(name string) string { return "dead-" + name + ".example" }

// hungBake starts a bake of a pod that never finishes and returns once the pod exists; the
// bake's outcome arrives on the channel.
func hungBake(t *testing.T, name string) (*peoplev1.Person, *corev1.Pod, <-chan PersonOutcome) {
	t.Helper()
	p := createPerson(t, name, peoplev1.PersonSpec{DisplayName: "Frances Allen", Avatar: "nfs://" + deadServer(name) + "/photos/" + name + ".png"}, map[string]string{kube.AnnotationCheckAvatar: "x"})
	a := newActivities()
	a.People.BakeDeadline = time.Minute
	done := make(chan PersonOutcome, 1)
	go func() {
		out, err := bake(t, a, p.Name, false)
		assert.NoError(t, err)
		done <- out
	}()
	return p, waitForPod(t, DefaultOperatorNamespace, "avatar-"+name), done
}

func (b bakery) aPersonDeletedMidBakeIsGone(t *testing.T) {
	p, pod, done := hungBake(t, "deleted-frances")
	waitForPhase(t, pod, corev1.PodRunning)
	deletePerson(t, p.Name)
	select {
	case out := <-done:
		assert.Equal(t, PersonOutcome{Gone: true}, out)
	case <-time.After(30 * time.Second):
		t.Fatal("the bake did not notice the Person was deleted")
	}
	waitForPodGone(t, pod.Namespace, pod.Name, "")
}

func (b bakery) aDeletedPodIsReplaced(t *testing.T) {
	p, pod, done := hungBake(t, "evicted-mary")
	waitForPhase(t, pod, corev1.PodRunning)
	// The share comes back, and the stuck pod is deleted (an eviction, say): the next pod reads.
	writeFile(t, filepath.Join(b.k.NFSDir(deadServer("evicted-mary"), "/photos"), "evicted-mary.png"), pngOf(t, 10, 10, color.White))
	require.NoError(t, env.Kube.CoreV1().Pods(pod.Namespace).Delete(context.Background(), pod.Name, metav1.DeleteOptions{}))
	select {
	case out := <-done:
		assert.Equal(t, "Baked", out.Reason)
	case <-time.After(30 * time.Second):
		t.Fatal("the bake did not start another pod")
	}
	ran := b.k.Ran(pod.Namespace, pod.Name)
	require.NotEmpty(t, ran)
	assert.NotEqual(t, pod.UID, ran[len(ran)-1], "another pod read the picture")
	assert.Equal(t, "Baked", avatarReady(t, readPerson(t, p.Name)).Reason)
}

func (b bakery) aPassAsksForABake(t *testing.T) {
	p := createPerson(t, "stale-joan", peoplev1.PersonSpec{DisplayName: "Joan Ball", Avatar: "nfs://dead.example/photos/new.png"}, nil)
	other := createPerson(t, "other-joan", peoplev1.PersonSpec{DisplayName: "Joan Other", Avatar: "nfs://dead.example/photos/other.png"}, nil)
	stale := startBakerPod(t, p, "nfs://dead.example/photos/old.png")
	keep := startBakerPod(t, other, "nfs://dead.example/photos/other.png")

	out := pass(t, newActivities(), p.Name, false)
	assert.True(t, out.NeedsBake)
	assert.False(t, out.Wrote)
	waitForPodGone(t, stale.Namespace, stale.Name, "")
	_, err := env.Kube.CoreV1().Pods(keep.Namespace).Get(context.Background(), keep.Name, metav1.GetOptions{})
	assert.NoError(t, err, "another Person's pod stays")
	assert.Empty(t, readPerson(t, p.Name).Status.Thumbnail)
}

func (b bakery) forgettingAPersonDeletesItsPods(t *testing.T) {
	p := createPerson(t, "forget-lise", peoplev1.PersonSpec{DisplayName: "Lise Meitner", Avatar: "nfs://dead.example/photos/lise.png"}, nil)
	other := createPerson(t, "remember-emmy", peoplev1.PersonSpec{DisplayName: "Emmy Noether", Avatar: "nfs://dead.example/photos/emmy.png"}, nil)
	startBakerPod(t, p, "nfs://dead.example/photos/lise.png")
	startBakerPod(t, p, "claim://lab/pictures/missing/lise.png")
	keep := startBakerPod(t, other, "nfs://dead.example/photos/emmy.png")
	require.Len(t, podsOf(t, p.Name), 2)

	require.NoError(t, newActivities().ForgetPerson(testContext(t), p.Name))
	require.Eventually(t, func() bool { return len(podsOf(t, p.Name)) == 0 }, 30*time.Second, 50*time.Millisecond)
	_, err := env.Kube.CoreV1().Pods(keep.Namespace).Get(context.Background(), keep.Name, metav1.GetOptions{})
	assert.NoError(t, err, "another Person's pod stays")
	assert.NoError(t, newActivities().ForgetPerson(testContext(t), p.Name), "forgetting twice is fine")
}

func (b bakery) aForeignPodIsRefused(t *testing.T) {
	p := createPerson(t, "foreign-grace", peoplev1.PersonSpec{DisplayName: "Grace Hopper", Avatar: "nfs://dead.example/photos/grace.png"}, nil)
	// A pod of the baker's name, on a node no kubelet runs, so nothing but the bake touches it.
	foreign, err := env.Kube.CoreV1().Pods(DefaultOperatorNamespace).Create(context.Background(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "avatar-foreign-grace"},
		Spec:       corev1.PodSpec{NodeName: "nowhere", Containers: []corev1.Container{{Name: "c", Image: "example.com/users-own:1"}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		env.Kube.CoreV1().Pods(foreign.Namespace).Delete(context.Background(), foreign.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))})
	})

	out := mustBake(t, newActivities(), p.Name, false)
	assert.Equal(t, "BakeFailed", out.Reason)
	assert.Equal(t, "a pod named avatar-foreign-grace exists in liken-system that the people-operator did not create; delete or rename it",
		avatarReady(t, readPerson(t, p.Name)).Message)
	cur, err := env.Kube.CoreV1().Pods(foreign.Namespace).Get(context.Background(), foreign.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, foreign.UID, cur.UID, "the user's pod is still there")
	assert.Nil(t, cur.DeletionTimestamp)
}
