// The triggers of a Ready reservation: while the telescope is held, RunTriggers
// passes over every resource's triggers, one pass at a time, again when the device observer
// says a condition changed and when the earliest `for` runs out. A pass is an activity of
// its own, so the history shows when each ran; the end of the reservation cancels the pass
// in flight and waits for it, so Deactivation finds the triggers' records settled.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
)

// triggerOptions run one pass over the triggers. A pass runs the actions of the runs due,
// each bounded by its own timeout; it heartbeats, so a dead worker is noticed, and the
// next attempt resumes the runs that began. The end of the reservation cancels it and waits
// until it has stopped, so Deactivation finds its records settled.
var triggerOptions = workflow.ActivityOptions{
	StartToCloseTimeout: perActionStepLimit,
	HeartbeatTimeout:    stepHeartbeatTimeout,
	WaitForCancellation: true,
	RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 5},
}

// triggerPasses runs RunTriggers while the reservation is Ready: one pass at a time, again
// after a pass when a condition changed during it, and when the earliest `for` it was told
// of runs out.
type triggerPasses struct {
	r      *reservation
	ctx    workflow.Context
	cancel workflow.CancelFunc
	// pass is the pass in flight; again asks for another once it ends.
	pass  workflow.Future
	again bool
	// timer fires at the earliest `for`; at is when, to replace it only for an earlier one.
	timer       workflow.Future
	timerAt     time.Time
	timerCancel workflow.CancelFunc
}

// triggers starts the triggers' life (a first pass: a condition that already holds fires
// at once); stop ends it, waiting for a pass in flight.
func (r *reservation) triggers() *triggerPasses {
	t := &triggerPasses{r: r}
	t.ctx, t.cancel = workflow.WithCancel(r.ctx)
	t.request()
	return t
}

// request asks for a pass: now, or after the one in flight.
func (t *triggerPasses) request() {
	if t.pass != nil {
		t.again = true
		return
	}
	r := t.r
	in := r.stepInput("Triggers")
	// The site's own triggers (the Dome's, the WeatherStation's) run from every reservation
	// there: each run is a target state or a Job named from its transition, so a second
	// reservation's pass finds it done or adopts it.
	in.IncludesObservatory = r.observatory != ""
	opts := triggerOptions
	opts.Summary = "a pass over the triggers of " + r.servers()
	t.pass = workflow.ExecuteActivity(workflow.WithActivityOptions(t.ctx, opts), observatoryActs.RunTriggers, in)
}

// add lets a wait wake for the end of a pass or the earliest `for`.
func (t *triggerPasses) add(sel workflow.Selector) {
	if t.pass != nil {
		sel.AddFuture(t.pass, t.ended)
	}
	if t.timer != nil {
		sel.AddFuture(t.timer, func(workflow.Future) {
			t.timer = nil
			t.request()
		})
	}
}

// ended takes a pass's result: the next `for` to wake for, and another pass if asked.
func (t *triggerPasses) ended(f workflow.Future) {
	t.pass = nil
	var res observatory.TriggersResult
	if err := f.Get(t.ctx, &res); err != nil {
		workflow.GetLogger(t.ctx).Warn("a pass over the triggers failed; the next change tries again",
			"reservation", t.r.in.Namespace+"/"+t.r.in.Name, "err", err)
	} else if len(res.Ran) > 0 {
		workflow.GetLogger(t.ctx).Info("triggers ran", "reservation", t.r.in.Namespace+"/"+t.r.in.Name, "runs", res.Ran)
	}
	if res.NextAt != nil && (t.timer == nil || res.NextAt.Before(t.timerAt)) {
		if t.timerCancel != nil {
			t.timerCancel()
		}
		var tctx workflow.Context
		tctx, t.timerCancel = workflow.WithCancel(t.ctx)
		t.timerAt = *res.NextAt
		t.timer = workflow.NewTimerWithOptions(tctx, max(res.NextAt.Sub(t.r.now()), time.Second),
			workflow.TimerOptions{Summary: "look at the triggers again at " + contract.At(*res.NextAt) + ", when a `for` runs out"})
	}
	if t.again {
		t.again = false
		t.request()
	}
}

// stop cancels a pass in flight and waits until it has stopped.
func (t *triggerPasses) stop() {
	t.cancel()
	if t.pass != nil {
		_ = t.pass.Get(t.r.ctx, nil)
		t.pass = nil
	}
}
