// What the people watcher sends, read back from the workflows' histories on a real Temporal
// server, for each kind of change a real API server reports: one signal per change that
// matters, none for the worker's own status writes, every Person again after a restart, and
// nothing lost while Temporal is away.
package watch_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	enumspb "go.temporal.io/api/enums/v1"

	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

func TestCreatingAPersonStartsItsShardWithOneSignal(t *testing.T) {
	ctx := timeout(t, time.Minute)
	deletePeopleAtEnd(t)
	queue := taskQueue(t)
	w := startWatcher(t, queue)
	name := unique("ada")
	shard := contract.PeopleShardID(contract.ShardOf(name))
	if err := temporal(t).TerminateWorkflow(ctx, shard, "", "a test starts this shard afresh"); err != nil && !isNotFound(err) {
		t.Fatal(err)
	}
	p := newPerson(t, ctx, name)

	got := waitSignals(t, ctx, name, 1, 20*time.Second)
	want := contract.PersonChange{Name: name, UID: string(p.GetUID()), Generation: 1, Why: "added"}
	if got[0].Change != want {
		t.Fatalf("the signal carries %+v, want %+v", got[0].Change, want)
	}
	waitIdle(t, w)
	if got := waitSignals(t, ctx, name, 1, time.Second); len(got) != 1 {
		t.Fatalf("one create sent %d signals: %+v", len(got), got)
	}

	// The signal started the shard's workflow: its type, input and task queue. (The test
	// ended any run an earlier test started, so that this one is the watcher's.)
	iter := temporalClient.GetWorkflowHistory(ctx, shard, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	first, err := iter.Next()
	if err != nil {
		t.Fatal(err)
	}
	started := first.GetWorkflowExecutionStartedEventAttributes()
	var in contract.PeopleInput
	if err := converter.GetDefaultDataConverter().FromPayloads(started.GetInput(), &in); err != nil {
		t.Fatal(err)
	}
	if started.GetWorkflowType().GetName() != contract.PeopleShardWorkflow || started.GetTaskQueue().GetName() != queue ||
		in.Shard != contract.ShardOf(name) {
		t.Fatalf("started %s on %s with %+v; want %s on %s for the shard %d", started.GetWorkflowType().GetName(),
			started.GetTaskQueue().GetName(), in, contract.PeopleShardWorkflow, queue, contract.ShardOf(name))
	}
}

// aSignalledPerson starts the people watcher, creates a Person named after base and waits
// for its first signal; the test's Persons are deleted when it ends.
func aSignalledPerson(t *testing.T, ctx context.Context, base string) (running, string, *unstructured.Unstructured) {
	t.Helper()
	deletePeopleAtEnd(t)
	w := startWatcher(t, taskQueue(t))
	name := unique(base)
	p := newPerson(t, ctx, name)
	waitSignals(t, ctx, name, 1, 20*time.Second)
	return w, name, p
}

// patchPerson merge-patches the Person name, as a user's kubectl patch does.
func patchPerson(t *testing.T, ctx context.Context, name, patch string) {
	t.Helper()
	if _, err := env.Dynamic.Resource(peoplev1.PersonResource).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestAStatusOnlyUpdateSendsNothing(t *testing.T) {
	ctx := timeout(t, time.Minute)
	w, name, p := aSignalledPerson(t, ctx, "grace")
	waitIdle(t, w)

	ignored := w.Stats.Ignored.Load()
	// What the worker writes: the picture and its condition, through /status.
	p.Object["status"] = map[string]any{"thumbnail": "data:image/jpeg;base64,/9j/"}
	if _, err := env.Dynamic.Resource(peoplev1.PersonResource).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A label is not something a pass acts on either.
	patchPerson(t, ctx, name, `{"metadata":{"labels":{"team":"analytical-engine"}}}`)
	awaitIgnored(t, 10*time.Second, &w.Stats.Ignored, ignored, 2, "the 2 updates")
	waitIdle(t, w)
	if got := waitSignals(t, ctx, name, 1, time.Second); len(got) != 1 {
		t.Fatalf("a status write and a label sent signals: %+v", got)
	}
}

func TestASpecChangeAndACheckAvatarChangeEachSendOneSignal(t *testing.T) {
	ctx := timeout(t, time.Minute)
	w, name, p := aSignalledPerson(t, ctx, "charles")
	waitIdle(t, w)

	patchPerson(t, ctx, name, `{"spec":{"displayName":"Charles Babbage"}}`)
	got := waitSignals(t, ctx, name, 2, 20*time.Second)
	want := contract.PersonChange{Name: name, UID: string(p.GetUID()), Generation: 2, Why: "updated"}
	if got[1].Change != want {
		t.Fatalf("the spec change sent %+v, want %+v", got[1].Change, want)
	}
	waitIdle(t, w)

	patchPerson(t, ctx, name, `{"metadata":{"annotations":{"people.liken.sh/check-avatar":"2025-01-01T00:00:00Z"}}}`)
	got = waitSignals(t, ctx, name, 3, 20*time.Second)
	want = contract.PersonChange{Name: name, UID: string(p.GetUID()), Generation: 2, CheckAvatar: "2025-01-01T00:00:00Z", Why: "updated"}
	if got[2].Change != want {
		t.Fatalf("the check-avatar change sent %+v, want %+v", got[2].Change, want)
	}
	waitIdle(t, w)
	if got := waitSignals(t, ctx, name, 3, time.Second); len(got) != 3 {
		t.Fatalf("a create and two changes sent %d signals: %+v", len(got), got)
	}
}

func TestDeletingAPersonSendsDeleted(t *testing.T) {
	ctx := timeout(t, time.Minute)
	w, name, p := aSignalledPerson(t, ctx, "mary")

	if err := env.Dynamic.Resource(peoplev1.PersonResource).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitSignals(t, ctx, name, 2, 20*time.Second)
	want := contract.PersonChange{Name: name, UID: string(p.GetUID()), Generation: 1, Deleted: true, Why: "deleted"}
	if got[1].Change != want {
		t.Fatalf("the delete sent %+v, want %+v", got[1].Change, want)
	}
	waitIdle(t, w)
}

func TestABurstOf200PeopleReachesTheShardsOnceEach(t *testing.T) {
	ctx := timeout(t, 3*time.Minute)
	deletePeopleAtEnd(t)
	w := startWatcher(t, taskQueue(t))
	prefix := unique("burst")
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%03d", prefix, i)
	}
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 20)
	for _, n := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, err := createPerson(t, ctx, n); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	created := time.Since(start)

	var got map[string][]signal
	eventually(t, 90*time.Second, func() (bool, string) {
		var err error
		if got, err = allSignals(ctx); err != nil {
			return false, err.Error()
		}
		missing := 0
		for _, n := range names {
			if len(got[n]) == 0 {
				missing++
			}
		}
		return missing == 0, fmt.Sprintf("%d of 200 Persons not signalled", missing)
	})
	t.Logf("200 Persons created in %s; all 200 signalled %s after the first create",
		created.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	waitIdle(t, w)
	got, err := allSignals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if len(got[n]) != 1 || got[n][0].Change.Why != "added" {
			t.Errorf("%s: %+v, want one change, added", n, got[n])
		}
	}
}

func TestRestartingTheWatcherSignalsEveryPersonAgain(t *testing.T) {
	ctx := timeout(t, time.Minute)
	deletePeopleAtEnd(t)
	queue := taskQueue(t)
	first := startWatcher(t, queue)
	names := []string{unique("ada"), unique("grace"), unique("mary")}
	for _, n := range names {
		newPerson(t, ctx, n)
	}
	for _, n := range names {
		waitSignals(t, ctx, n, 1, 20*time.Second)
	}
	waitIdle(t, first)
	first.stop()

	startWatcher(t, queue)
	for _, n := range names {
		got := waitSignals(t, ctx, n, 2, 20*time.Second)
		if got[1].Change.Why != "resync" || got[1].Change.Generation != 1 {
			t.Errorf("%s after the restart: %+v, want a resync of generation 1", n, got[1].Change)
		}
	}
}

func TestChangesWhileTemporalIsDownAreSignalledWhenItReturns(t *testing.T) {
	ctx := timeout(t, 3*time.Minute)
	deletePeopleAtEnd(t)
	w := startWatcher(t, taskQueue(t))
	changed, deleted, created := unique("changed"), unique("deleted"), unique("created")
	newPerson(t, ctx, changed)
	gone := newPerson(t, ctx, deleted)
	waitSignals(t, ctx, changed, 1, 20*time.Second)
	waitSignals(t, ctx, deleted, 1, 20*time.Second)
	waitIdle(t, w)

	stopped := time.Now()
	restart, err := env.Stack.StopProcess("temporal")
	if err != nil {
		t.Fatal(err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			restart(context.Background())
		}
	})
	failed := w.Stats.Failed.Load()
	newPerson(t, ctx, created)
	patchPerson(t, ctx, changed, `{"spec":{"nickname":"Ada"}}`)
	if err := env.Dynamic.Resource(peoplev1.PersonResource).Delete(ctx, deleted, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Every one of the three is tried and fails while the frontend is away.
	eventually(t, 60*time.Second, func() (bool, string) {
		n := w.Stats.Failed.Load() - failed
		return n >= 3, fmt.Sprintf("%d failed signals so far", n)
	})
	if err := restart(ctx); err != nil {
		t.Fatalf("restart Temporal: %v", err)
	}
	restarted = true

	back := time.Now()
	t.Logf("Temporal was away for %s", back.Sub(stopped).Round(time.Millisecond))
	got := waitSignals(t, ctx, created, 1, 90*time.Second)
	if got[0].Change.Why != "added" {
		t.Errorf("the Person created while Temporal was away: %+v", got[0].Change)
	}
	got = waitSignals(t, ctx, changed, 2, 90*time.Second)
	if got[1].Change.Generation != 2 {
		t.Errorf("the Person changed while Temporal was away: %+v", got[1].Change)
	}
	got = waitSignals(t, ctx, deleted, 2, 90*time.Second)
	if !got[1].Change.Deleted || got[1].Change.UID != string(gone.GetUID()) {
		t.Errorf("the Person deleted while Temporal was away: %+v", got[1].Change)
	}
	t.Logf("all three changes reached Temporal %s after it came back", time.Since(back).Round(time.Millisecond))
	waitIdle(t, w)
}

// bakerPod is a baker pod as the worker makes one (kube.BakerPod's labels and annotations),
// held unscheduled so that only the test moves its phase.
func bakerPod(t *testing.T, ctx context.Context, name, person, source string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default",
			Labels:      map[string]string{kube.LabelBaker: kube.BakerLabelValue, kube.LabelManagedBy: kube.PeopleComponent},
			Annotations: map[string]string{kube.AnnotationPerson: person, kube.AnnotationSource: source},
		},
		Spec: corev1.PodSpec{
			SchedulerName: "nobody",
			Containers:    []corev1.Container{{Name: kube.BakerContainer, Image: "example.com/baker"}},
		},
	}
	out, err := env.Kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		env.Kube.CoreV1().Pods("default").Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))})
	})
	return out
}

func TestABakerPodSignalsItsPersonWhenItFinishesGoesStaleOrIsDeleted(t *testing.T) {
	ctx := timeout(t, time.Minute)
	deletePeopleAtEnd(t)
	w := startWatcher(t, taskQueue(t))
	name := unique("ada")
	p := newPerson(t, ctx, name)
	patchPerson(t, ctx, name, `{"spec":{"avatar":"nfs://files/ada.png"}}`)
	waitSignals(t, ctx, name, 2, 20*time.Second)
	waitIdle(t, w)

	// A pod at work on the current source is the worker's business: nothing to say.
	pod := bakerPod(t, ctx, unique("avatar-ada"), name, "nfs://files/ada.png")
	eventually(t, 10*time.Second, func() (bool, string) {
		_, err := env.Kube.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
	waitIdle(t, w)
	if got := waitSignals(t, ctx, name, 2, time.Second); len(got) != 2 {
		t.Fatalf("a baker pod at work sent signals: %+v", got[2:])
	}

	// It finished: the workflow reads its result.
	pod.Status.Phase = corev1.PodSucceeded
	if _, err := env.Kube.CoreV1().Pods("default").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := waitSignals(t, ctx, name, 3, 20*time.Second)
	if got[2].Change.Why != "baker" || got[2].Change.UID != string(p.GetUID()) {
		t.Errorf("a finished baker pod sent %+v", got[2].Change)
	}
	waitIdle(t, w)

	// It was deleted (the worker cleans up after reading it).
	if err := env.Kube.CoreV1().Pods("default").Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}); err != nil {
		t.Fatal(err)
	}
	got = waitSignals(t, ctx, name, 4, 20*time.Second)
	if got[3].Change.Why != "baker" {
		t.Errorf("a deleted baker pod sent %+v", got[3].Change)
	}
	waitIdle(t, w)

	// A pod for a source the Person no longer has is stale.
	bakerPod(t, ctx, unique("avatar-ada"), name, "nfs://files/old.png")
	got = waitSignals(t, ctx, name, 5, 20*time.Second)
	if got[4].Change.Why != "baker" {
		t.Errorf("a stale baker pod sent %+v", got[4].Change)
	}
	waitIdle(t, w)

	// A pod whose Person is gone: its workflow is told the Person is deleted.
	orphan := unique("nobody")
	bakerPod(t, ctx, unique("avatar-nobody"), orphan, "nfs://files/nobody.png")
	got = waitSignals(t, ctx, orphan, 1, 20*time.Second)
	if want := (contract.PersonChange{Name: orphan, Deleted: true, Why: "baker"}); got[0].Change != want {
		t.Errorf("a baker pod without a Person sent %+v, want %+v", got[0].Change, want)
	}
	waitIdle(t, w)
	if got := waitSignals(t, ctx, name, 5, time.Second); len(got) != 5 {
		t.Errorf("the Person got %d signals, want 5: %+v", len(got), got)
	}
}
