// Person is the lifecycle of one Person's picture, as one long-lived workflow per Person
// (ID person/<name>). Its shard (see PeopleShard) signals it at every change that matters (create,
// spec change, check-avatar annotation, delete, a baker pod that finished or went stale); the
// workflow answers each burst of signals with one pass, re-checks a fetched or baked picture
// every six hours on a durable timer, and ends when the Person is gone.
//
// A pass reads the Person itself (level-triggered: a signal only means "look again"), so
// signals carry no spec and the picture's bytes never enter the history: the activity that
// reads the picture writes it straight into the Person's status.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/people"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
)

const (
	// RecheckEvery is how often a fetched or baked picture is read again.
	RecheckEvery = 6 * time.Hour
)

// A run continues as new when Temporal suggests it, when its history passes
// personHistoryLimit events, or after personPassLimit passes (a pass is about a dozen events,
// and the count is what the test environment can check). Variables for tests.
var (
	personHistoryLimit = 5000
	personPassLimit    = 300
)

// syncPerson is the quick pass (no pods): a local activity, because it takes milliseconds
// and a regular activity would triple the history and the server's work per change. A few
// attempts ride over a restarting API server; the next signal or re-check tries again.
var syncPerson = workflow.LocalActivityOptions{
	StartToCloseTimeout: 30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
		MaximumAttempts: 10,
	},
}

// bakePerson runs a baker pod, which the activity itself times out after its deadline (2 min
// from the pod's creation). The heartbeat timeout lets another worker take over within
// seconds when this one dies; the retry adopts the same pod.
var bakePerson = workflow.ActivityOptions{
	StartToCloseTimeout: 5 * time.Minute,
	HeartbeatTimeout:    20 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: 5 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
		MaximumAttempts: 5,
	},
}

// retryAfterFailure is how long a pass that could not run waits before trying again.
const retryAfterFailure = 30 * time.Second

// Person runs one Person's picture until the Person is deleted.
func Person(ctx workflow.Context, in contract.PersonInput) error {
	changes := workflow.GetSignalChannel(ctx, contract.PersonChanged)
	person := &personRun{ctx: ctx, name: in.Name, changes: changes, pending: true}
	for {
		// Coalesce: every change received so far is answered by the same pass.
		for person.changes.ReceiveAsync(nil) {
			person.pending = true
		}
		if person.pending || person.recheck {
			next, err := person.runPass()
			if err != nil || next == personEnds {
				return err
			}
			if next == receiveFirst {
				continue
			}
		}
		if person.long() {
			// Signals still buffered are answered by the next run's first pass.
			for person.changes.ReceiveAsync(nil) {
			}
			return workflow.NewContinueAsNewError(ctx, Person, contract.PersonInput{Name: in.Name})
		}
		person.await()
	}
}

// personRun is one run of a Person's workflow: whether a pass is owed, and its one timer.
type personRun struct {
	ctx     workflow.Context
	name    string
	changes workflow.ReceiveChannel
	// pending says a change waits for a pass; recheck that the six-hourly re-check is due.
	pending, recheck bool
	// due is the one timer a Person has: the six-hourly re-check, or the retry of a failed
	// pass (dueIsRetry).
	due        workflow.Future
	cancelDue  workflow.CancelFunc
	dueIsRetry bool
	passes     int
}

// What a Person's workflow does after a pass.
type afterPass int

const (
	// waitNext: wait for a change or the timer.
	waitNext afterPass = iota
	// receiveFirst: take the changes that came meanwhile first (a failed pass, or a Person
	// created again while it was forgotten).
	receiveFirst
	// personEnds: the Person is gone and forgotten, and no change came meanwhile.
	personEnds
)

// runPass runs a pass and sets the timer its outcome asks for.
func (person *personRun) runPass() (afterPass, error) {
	out, err := pass(person.ctx, person.name, person.recheck)
	person.pending, person.recheck = false, false
	person.passes++
	workflow.SetCurrentDetails(person.ctx, personDetails(out, err))
	switch {
	case err != nil:
		workflow.GetLogger(person.ctx).Warn("a pass failed; trying again later", "person", person.name, "err", err)
		person.stopDue()
		person.startDue(retryAfterFailure, "try the pass again", true)
		return receiveFirst, nil
	case out.Gone:
		if err := forget(person.ctx, person.name); err != nil {
			return personEnds, err
		}
		// A Person created again under the same name while we cleaned up keeps this
		// workflow alive; otherwise it ends here.
		if !person.changes.ReceiveAsync(nil) {
			return personEnds, nil
		}
		person.pending = true
		return receiveFirst, nil
	}
	person.stopDue()
	person.due, person.cancelDue = nil, nil
	if out.Recheck {
		person.startDue(RecheckEvery, "re-check the picture", false)
	}
	return waitNext, nil
}

// startDue starts the timer: the retry of a failed pass, or the re-check.
func (person *personRun) startDue(d time.Duration, what string, isRetry bool) {
	person.due, person.cancelDue = timer(person.ctx, d, what+" in "+kube.ShortDuration(d))
	person.dueIsRetry = isRetry
}

// stopDue cancels the timer, if one runs.
func (person *personRun) stopDue() {
	if person.cancelDue != nil {
		person.cancelDue()
	}
}

// long says whether the run continues as new now: Temporal suggests it, or the history or
// the passes passed their limits.
func (person *personRun) long() bool {
	info := workflow.GetInfo(person.ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() > personHistoryLimit ||
		person.passes >= personPassLimit
}

// await waits for a change or the timer.
func (person *personRun) await() {
	sel := workflow.NewSelector(person.ctx)
	sel.AddReceive(person.changes, func(c workflow.ReceiveChannel, _ bool) {
		var ch contract.PersonChange
		c.Receive(person.ctx, &ch)
		person.pending = true
	})
	if person.due != nil {
		sel.AddFuture(person.due, func(f workflow.Future) {
			person.due, person.cancelDue = nil, nil
			if f.Get(person.ctx, nil) == nil {
				if person.dueIsRetry {
					person.pending = true
				} else {
					person.recheck = true
				}
			}
		})
	}
	sel.Select(person.ctx)
}

// pass runs the quick pass and, when the picture needs a baker pod, the bake.
func pass(ctx workflow.Context, name string, recheck bool) (people.PersonOutcome, error) {
	in := people.PersonPass{Name: name, Recheck: recheck}
	var out people.PersonOutcome
	opts := syncPerson
	opts.Summary = "read " + name + "'s picture and write the status"
	if recheck {
		opts.Summary = "check " + name + "'s picture again and write the status"
	}
	lctx := workflow.WithLocalActivityOptions(ctx, opts)
	if err := workflow.ExecuteLocalActivity(lctx, peopleActs.SyncPerson, in).Get(ctx, &out); err != nil {
		return out, err
	}
	if !out.NeedsBake {
		return out, nil
	}
	// A fresh value: decoding into out would keep the quick pass's NeedsBake (omitempty).
	var baked people.PersonOutcome
	bake := bakePerson
	bake.Summary = "read " + name + "'s " + out.Source + " in the baker pod " + kube.BakerPodName(name)
	actx := workflow.WithActivityOptions(ctx, bake)
	err := workflow.ExecuteActivity(actx, peopleActs.BakePerson, in).Get(ctx, &baked)
	return baked, err
}

func forget(ctx workflow.Context, name string) error {
	opts := syncPerson
	opts.Summary = name + " is gone: delete its baker pods"
	lctx := workflow.WithLocalActivityOptions(ctx, opts)
	return workflow.ExecuteLocalActivity(lctx, peopleActs.ForgetPerson, name).Get(ctx, nil)
}

// timer starts a cancellable durable timer; summary is what the Temporal UI says of it.
func timer(ctx workflow.Context, d time.Duration, summary string) (workflow.Future, workflow.CancelFunc) {
	tctx, cancel := workflow.WithCancel(ctx)
	return workflow.NewTimerWithOptions(tctx, d, workflow.TimerOptions{Summary: summary}), cancel
}
