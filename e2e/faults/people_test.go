// A burst of Persons meets a SIGKILLed worker and a minute without Temporal, and loses no Person:
// each gets the picture of its latest spec and no Person's workflow starts twice.
package faults

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"liken.sh/runner/contract"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures/avatar"
)

// crowd creates n Persons named prefix-0000 on, 16 at a time, and removes them at the end.
func crowd(t *testing.T, ctx context.Context, prefix string, from, to int) []string {
	t.Helper()
	names := make([]string, 0, to-from)
	errs := make(chan error, to-from)
	sem := make(chan struct{}, 16)
	for i := from; i < to; i++ {
		name := fmt.Sprintf("%s-%04d", prefix, i)
		names = append(names, name)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			_, err := env.Dynamic.Resource(peoplev1.PersonResource).Create(ctx, person(name, "Crowd Member "+name), metav1.CreateOptions{})
			errs <- err
		}()
	}
	for range names {
		require.NoError(t, <-errs)
	}
	return names
}

func deletePeopleAtEnd(t *testing.T) {
	t.Cleanup(func() {
		env.Dynamic.Resource(peoplev1.PersonResource).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	})
}

// painted says whether the Person has its initials for its current generation.
func painted(p *peoplev1.Person) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == peoplev1.ConditionAvatarReady {
			return c.Reason == avatar.ReasonInitials && c.ObservedGeneration == p.Generation && avatar.IsInitials(p.Status.Thumbnail)
		}
	}
	return false
}

// awaitPainted waits (bounded by limit) until every Person of names is painted for its
// current generation.
func awaitPainted(t *testing.T, ctx context.Context, limit time.Duration, what string, names []string) {
	t.Helper()
	eventually(t, limit, what, func() (bool, string) {
		n, missing := countPainted(ctx, names)
		return n == len(names), fmt.Sprintf("%d of %d; %s is not", n, len(names), missing)
	})
}

// countPainted counts the Persons of names painted for their current generation.
func countPainted(ctx context.Context, names []string) (int, string) {
	done, missing := 0, ""
	for _, n := range names {
		p, err := getPerson(ctx, n)
		if err == nil && painted(p) {
			done++
		} else if missing == "" {
			missing = n
		}
	}
	return done, missing
}

// TestAWorkerKilledAndTemporalAwayForAMinuteDuringABurstLoseNoPerson: a burst of Persons
// meets a worker killed with SIGKILL in the middle of painting and handing on, and then a
// Temporal server stopped for 60 s while Persons are created, changed and deleted. The
// watcher retries with back-off; once Temporal is back, every Person has its picture for its
// latest spec, every deleted one's workflow has ended, and no Person's workflow was started
// twice.
func TestAWorkerKilledAndTemporalAwayForAMinuteDuringABurstLoseNoPerson(t *testing.T) {
	ctx := timeout(t, 8*time.Minute)
	deletePeopleAtEnd(t)
	s := newSystem(t)
	s.startWatcher("people").WaitReady()
	doomed := s.startWorker()
	s.startWorker()
	c := temporal(t)
	prefix := "burst-" + strings.TrimPrefix(s.queue, "faults-")

	// A burst of 200; the first worker dies once some are painted, mid-batch.
	var first []string
	created := make(chan struct{})
	go func() { defer close(created); first = crowd(t, ctx, prefix, 0, 200) }()
	awaitPaintedWithPrefix(t, ctx, prefix, 20)
	doomed.Kill()
	s.startWorker()
	<-created
	awaitPainted(t, ctx, 3*time.Minute, "every Person of the burst was painted after the kill", first)

	// Temporal away for a minute while Persons are created, changed and deleted.
	stopped := time.Now()
	bringBack := stopProcess(t, "temporal")
	second := crowd(t, ctx, prefix, 200, 260)
	changed, deleted := first[:20], first[20:40]
	for _, n := range changed {
		_, err := env.Dynamic.Resource(peoplev1.PersonResource).Patch(ctx, n, types.MergePatchType,
			[]byte(`{"spec":{"displayName":"Changed While Away"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
	}
	for _, n := range deleted {
		require.NoError(t, env.Dynamic.Resource(peoplev1.PersonResource).Delete(ctx, n, metav1.DeleteOptions{}))
	}
	time.Sleep(time.Until(stopped.Add(60 * time.Second)))
	bringBack(ctx)
	back := time.Now()

	live := append(append([]string{}, first[40:]...), second...)
	live = append(live, changed...)
	awaitPainted(t, ctx, 3*time.Minute, "every Person created or changed while Temporal was away was painted", live)
	t.Logf("Temporal was away %s; everything converged %s after it came back",
		back.Sub(stopped).Round(time.Second), time.Since(back).Round(time.Second))
	deletedAndTheirWorkflowsEnded(t, ctx, c, deleted)

	ids := map[string]bool{}
	for _, n := range append(live, deleted...) {
		ids[contract.PersonID(n)] = true
	}
	onceEach(t, ctx, c, ids)
}

// awaitPaintedWithPrefix waits (a minute at most) until at least at Persons named with prefix
// have a status, that is were painted.
func awaitPaintedWithPrefix(t *testing.T, ctx context.Context, prefix string, at int) {
	t.Helper()
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := env.Dynamic.Resource(peoplev1.PersonResource).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		n := 0
		for _, u := range l.Items {
			if _, ok := u.Object["status"]; ok && strings.HasPrefix(u.GetName(), prefix) {
				n++
			}
		}
		return n >= at, nil
	}), "the first Persons of the burst were painted")
}

// deletedAndTheirWorkflowsEnded waits until every Person of deleted is gone and its workflow
// no longer runs.
func deletedAndTheirWorkflowsEnded(t *testing.T, ctx context.Context, c client.Client, deleted []string) {
	t.Helper()
	eventually(t, 2*time.Minute, "the workflow of every Person deleted while Temporal was away ended", func() (bool, string) {
		for _, n := range deleted {
			if _, err := getPerson(ctx, n); !apierrors.IsNotFound(err) {
				return false, n + " still exists"
			}
			d, err := c.DescribeWorkflowExecution(ctx, contract.PersonID(n), "")
			if err != nil {
				return false, err.Error()
			}
			if d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				return false, n + "'s workflow still runs"
			}
		}
		return true, ""
	})
}
