// The first look at many Persons at once, for the people shards (workflows.People): in a
// burst, one workflow task answers dozens of Persons instead of one workflow start each, and
// the Persons' own workflows, started afterwards, find their pictures already written.
package people

import (
	"context"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"go.temporal.io/sdk/activity"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	"liken.sh/runner/pictures/avatar"
)

// PaintOutcome counts what PaintPeople did; the names are in its input.
type PaintOutcome struct {
	// Painted: the status was written.
	Painted int `json:",omitempty"`
	// Current: the status already matched the Person's spec.
	Current int `json:",omitempty"`
	// Left names the Persons with an http(s), nfs:// or claim:// picture, those gone, and
	// those it failed on: the Persons' own workflows do them.
	Left []string `json:",omitempty"`
}

// paintWorkers is how many Persons one PaintPeople writes at once. The shards run side by
// side, so the API server sees a few dozen writes in flight: it is built for hundreds.
const paintWorkers = 8

// PaintPeople writes the picture of every named Person whose picture needs neither the
// network nor a pod (initials, data:, a source no reader takes), paintWorkers at a time. It
// never fails and never retries: every Person it leaves or fails on is looked at again by
// the Person's own workflow, which the shard signals next.
func (a *Activities) PaintPeople(ctx context.Context, names []string) (PaintOutcome, error) {
	var painted, current atomic.Int64
	var mu sync.Mutex
	var left []string
	atMost(paintWorkers, names, func(name string) {
		switch wrote, ok := a.paint(ctx, name); {
		case !ok:
			mu.Lock()
			left = append(left, name)
			mu.Unlock()
		case wrote:
			painted.Add(1)
		default:
			current.Add(1)
		}
	})
	sort.Strings(left)
	return PaintOutcome{Painted: int(painted.Load()), Current: int(current.Load()), Left: left}, nil
}

// paint is PaintPeople for one Person: ok is false when it left the Person to its workflow.
func (a *Activities) paint(ctx context.Context, name string) (wrote, ok bool) {
	// resourceVersion 0 reads the API server's watch cache, which costs it far less than a
	// read from etcd and already holds the change the watcher saw. A read older than our own
	// last write makes the status write conflict, and the Person's workflow does it.
	p, u, err := a.readPerson(ctx, name, metav1.GetOptions{ResourceVersion: "0"})
	if err != nil {
		return false, false
	}
	src, perr := avatar.ParseSource(p.Spec.Avatar)
	if !kube.AvatarReadDue(p, false, perr == nil && src.Kind == avatar.KindData) {
		return false, true
	}
	read, quick := quickRead(p, src, perr)
	if !quick {
		return false, false
	}
	out, err := a.finish(ctx, u, p, read, p.Annotations[kube.AnnotationCheckAvatar], outcomeOf(p))
	if err != nil {
		logFor(ctx).Warn("could not paint a Person; its workflow tries again", "person", name, "err", err)
		return false, false
	}
	return out.Wrote, !out.Gone
}

// signalWorkers is how many signals SignalWorkflows has in flight at once.
const signalWorkers = 16

// SignalWorkflows sends every signal of its input, starting each workflow that does not run,
// signalWorkers at a time, and heartbeats as it goes, so a worker that dies mid-way is
// replaced within the heartbeat timeout. A retry sends them all again: each one only asks its
// workflow to look again, so a repeat costs one look.
func (a *Activities) SignalWorkflows(ctx context.Context, signals []activities.WorkflowSignal) error {
	if err := activities.NeedTemporal(a.Temporal); err != nil {
		return err
	}
	// A retry sends every signal again, and some reached workflows that have ended since
	// (a Person deleted while Temporal was away): those are not started again. (A Person
	// created again under the name of one whose workflow completed then gets its workflow
	// from the watcher's next resync; its picture is painted already.)
	retry := activity.IsActivity(ctx) && activity.GetInfo(ctx).Attempt > 1
	var done atomic.Int64
	var failed atomic.Pointer[error]
	atMost(signalWorkers, signals, func(s activities.WorkflowSignal) {
		s.NotAfterEnd = s.NotAfterEnd || retry
		if err := activities.SignalWorkflow(ctx, a.Temporal, s); err != nil {
			failed.CompareAndSwap(nil, &err)
			return
		}
		activities.RecordHeartbeat(ctx, strconv.FormatInt(done.Add(1), 10)+" signalled")
	})
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}

// atMost calls f on every item, n at a time, and returns when all are done.
func atMost[T any](n int, items []T, f func(T)) {
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, it := range items {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(it)
		})
	}
	wg.Wait()
}
