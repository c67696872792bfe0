// The working steps of a reservation, from StartSite to StopSite (kube.ActivationSteps and
// kube.DeactivationSteps): each is its own activity, registered under the step's name, run
// with its deadline counted from the step's recorded startTime. runOnce is the same for every
// step; what a few do beside their activity (a turn from the observatory's lock, a finalizer,
// a word kept for the summaries) is in siteTurnOf, takeSiteTurn and succeeded. A step that
// fails waits for the retry annotation, and during activation for the reservation's end.
package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// stepRetry retries a step's transient errors until its deadline; the non-retryable types
// are a user's to fix.
var stepRetry = &temporal.RetryPolicy{
	InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
	NonRetryableErrorTypes: []string{observatory.ErrStepFailed, observatory.ErrStepTimedOut},
}

// stepHeartbeatTimeout notices a dead worker within half a minute: the steps heartbeat every
// observatory.StepHeartbeatEvery.
var stepHeartbeatTimeout = 3 * observatory.StepHeartbeatEvery

// stepDeadline is a step's deadline (kube's); a variable so a test on a real server can
// see a deadline pass in seconds.
var stepDeadline = kube.StepDeadline

// perActionStepLimit bounds Activation and Deactivation, whose actions each have their own
// deadline (the activity enforces them); this only stops a step that never returns.
var perActionStepLimit = 6 * time.Hour

// siteTurnOf is the turn a working step takes from the observatory's lock; "" for none.
func siteTurnOf(step string) SiteOp {
	switch step {
	case kube.StepStartSite:
		return SiteStart
	case kube.StepActivation:
		return SiteActivate
	case kube.StepDeactivation:
		return SiteDeactivate
	case kube.StepStopSite:
		return SiteStop
	}
	return ""
}

// isSiteOnly says whether the step is the site's own part (StartSite, StopSite): Skipped
// when another reservation does it, or when no observatory is known.
func isSiteOnly(step string) bool { return step == kube.StepStartSite || step == kube.StepStopSite }

// keepWhatPowerOnSaid keeps the telescope's endpoint and devices for the status and the
// summaries of the steps after it.
func (r *reservation) keepWhatPowerOnSaid(res observatory.StepResult) {
	if res.Endpoint != nil {
		ep := *res.Endpoint
		r.endpoint = &ep
	}
	if len(res.Devices) > 0 {
		r.devices = res.Devices
	}
}

// sayWhyItEnded heads Abort's summary with why the reservation ended.
func (r *reservation) sayWhyItEnded(res *observatory.StepResult) {
	if r.end.why != "" {
		res.Summary = joinSummary(r.end.why, res.Summary)
	}
}

// stepInput is what every activity of this reservation is told: who it is for, and where.
// Started is now; a step's own input adds its startTime, deadline and records.
func (r *reservation) stepInput(step string) observatory.StepInput {
	return observatory.StepInput{
		Namespace: r.in.Namespace, Reservation: r.in.Name, UID: r.state.UID, Holder: r.holder,
		Telescope: r.telescope, Observatory: r.observatory, Step: step, Started: r.now(),
	}
}

// activate runs the activation steps after Wait. It says whether the reservation ended
// before it was Ready.
func (r *reservation) activate() (bool, error) {
	for _, step := range kube.ActivationSteps[1:] {
		if done(kube.FindStep(&r.status, step)) {
			continue
		}
		ended, err := r.runUntilDone(step)
		if err != nil || ended {
			return ended, err
		}
	}
	return false, r.write()
}

// stepOutcome is how one run of a step ended.
type stepOutcome int

const (
	stepFinished stepOutcome = iota // Done or Skipped
	stepFailed
	stepCut // the reservation ended during an activation step
	// stepActivityNext is between the parts of runOnce: the step's activity runs next.
	stepActivityNext
)

// runUntilDone runs a step until it is Done or Skipped. A failed step waits for the retry
// annotation; an activation step also ends with the reservation (ended is then true).
func (r *reservation) runUntilDone(step string) (ended bool, err error) {
	deactivating := kube.IsDeactivationStep(step)
	for {
		if !deactivating && r.endReason(whileHolding) != "" {
			return true, nil
		}
		if rec := kube.FindStep(&r.status, step); rec != nil && rec.State == obsv1.RunFailed {
			retry, ended, err := r.awaitRetry(deactivating)
			if err != nil || ended {
				return ended, err
			}
			if err := r.local("the retry of "+step+" begins", observatoryActs.RemoveRetryAnnotation, observatory.RetryRemoval{Ref: r.ref, Value: retry}, nil); err != nil {
				return false, err
			}
			r.state.Retry = ""
		}
		out, err := r.runOnce(step)
		switch {
		case err != nil:
			return false, err
		case out == stepFinished:
			return false, nil
		case out == stepCut:
			return true, nil
		}
	}
}

// awaitRetry waits, Failed, for the retry annotation (returned), or during activation for the
// reservation's end.
func (r *reservation) awaitRetry(deactivating bool) (retry string, ended bool, err error) {
	if err := r.write(); err != nil {
		return "", false, err
	}
	for {
		if !deactivating && r.endReason(whileHolding) != "" {
			return "", true, nil
		}
		if r.state.Retry != "" {
			return r.state.Retry, false, nil
		}
		if err := r.continueAsNewIfLong(); err != nil {
			return "", false, err
		}
		if err := r.await(nil); err != nil {
			return "", false, err
		}
	}
}

// runOnce runs a step once: its site turn when it has one, then its activity.
func (r *reservation) runOnce(step string) (stepOutcome, error) {
	rec := kube.FindStep(&r.status, step)
	// A step recorded Running by an earlier run resumes with its startTime, so its deadline
	// still counts from there; one that waited for a site turn starts afresh.
	resume := rec != nil && rec.State == obsv1.RunRunning && rec.StartTime != nil
	turn, out, err := r.takeSiteTurn(step)
	if err != nil || out != stepActivityNext {
		return out, err
	}
	if !resume || turn.asked {
		r.status = kube.StepRunning(r.status, step, "", r.now())
		if err := r.write(); err != nil {
			return stepFailed, err
		}
	}
	rec = kube.FindStep(&r.status, step)
	in := r.stepInput(step)
	in.Started, in.Deadline, in.IncludesObservatory, in.Actions = rec.StartTime.Time, stepDeadline(step), turn.runsSite, rec.Actions
	if kube.IsDeactivationStep(step) {
		in.Why = r.end.why
	}
	limit := in.Deadline
	if limit == 0 {
		limit = perActionStepLimit
	}
	res, stepErr, cut, err := r.execute(step, in, limit)
	switch {
	case err != nil:
		return stepFailed, err
	case cut:
		return stepCut, r.siteRelease(SiteDone, false)
	case stepErr != nil:
		return stepFailed, r.failed(step, stepErr, res, limit)
	}
	return stepFinished, r.succeeded(step, res)
}

// execute runs the step's activity until it ends (stepErr is its error), or, for an
// activation step, until the reservation's end cuts it short: then it is cancelled, and
// waited for until it stopped, so that Abort does not run beside it (cut).
func (r *reservation) execute(step string, in observatory.StepInput, limit time.Duration) (
	res observatory.StepResult, stepErr error, cut bool, err error) {
	remaining := limit - r.now().Sub(in.Started)
	if remaining <= 0 {
		return res, temporal.NewTimeoutError(0, nil), false, nil
	}
	actx, cancel := workflow.WithCancel(r.ctx)
	actx = workflow.WithActivityOptions(actx, workflow.ActivityOptions{
		ScheduleToCloseTimeout: remaining,
		HeartbeatTimeout:       stepHeartbeatTimeout,
		WaitForCancellation:    true,
		RetryPolicy:            stepRetry,
		Summary:                StepSummary(step, r.telescope, r.observatory, r.devices),
	})
	// The step's activity is registered under the step's name.
	f := workflow.ExecuteActivity(actx, step, in)
	for finished := false; !finished; {
		if err := r.await(func(sel workflow.Selector) {
			sel.AddFuture(f, func(f workflow.Future) { stepErr, finished = f.Get(r.ctx, &res), true })
		}); err != nil {
			return res, nil, false, err
		}
		if !finished && !kube.IsDeactivationStep(step) && !cut && r.endReason(whileHolding) != "" {
			cancel()
			cut = true
		}
	}
	return res, stepErr, cut, nil
}

// failed records a failed step. A failed step carries its action records in the error's
// details, so that status.steps[].actions shows them and a retry skips the actions already
// Done.
func (r *reservation) failed(step string, stepErr error, res observatory.StepResult, limit time.Duration) error {
	summary := failureSummary(stepErr, limit)
	var appErr *temporal.ApplicationError
	if errors.As(stepErr, &appErr) && appErr.HasDetails() {
		var failed observatory.StepResult
		if appErr.Details(&failed) == nil {
			res.Actions = failed.Actions
		}
	}
	r.status = kube.StepEnded(r.status, step, obsv1.RunFailed, summary, res.Actions, r.now())
	workflow.GetLogger(r.ctx).Warn("a reservation step failed", "reservation", r.in.Name, "step", step, "summary", summary)
	if err := r.siteRelease(SiteDone, false); err != nil {
		return err
	}
	return r.write()
}

// succeeded records a step Done (or Skipped, as its activity said), after what the step
// does beside: PowerOn's endpoint and devices kept, Abort's why, StopSite's finalizer. The
// step's end is not written on its own: the next write, which the caller makes before
// anything that waits (the next step Running, its site turn's "Waiting for Observatory",
// Ready, a retry, Released), carries it with its Events. With twenty telescopes at once each
// write takes 100-200 ms, and a write of its own would delay the next step's activity.
func (r *reservation) succeeded(step string, res observatory.StepResult) error {
	switch step {
	case kube.StepPowerOn:
		r.keepWhatPowerOnSaid(res)
	case kube.StepAbort:
		r.sayWhyItEnded(&res)
	case kube.StepStopSite:
		if err := r.letGoOfObservatory(); err != nil {
			return err
		}
	}
	state := obsv1.RunDone
	if res.Skipped {
		state = obsv1.RunSkipped
	}
	r.status = kube.StepEnded(r.status, step, state, res.Summary, res.Actions, r.now())
	return r.siteRelease(SiteDone, true)
}

func done(rec *obsv1.StepRecord) bool {
	return rec != nil && (rec.State == obsv1.RunDone || rec.State == obsv1.RunSkipped)
}

// failureSummary is the summary of a failed step: "timed out after <d>: ..." when its
// deadline passed, else "Failed: ...".
func failureSummary(err error, limit time.Duration) string {
	var timeout *temporal.TimeoutError
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &timeout):
		detail := ""
		if timeout.HasLastHeartbeatDetails() {
			var s string
			if timeout.LastHeartbeatDetails(&s) == nil {
				detail = s
			}
		}
		if cause := errors.Unwrap(timeout); detail == "" && cause != nil {
			detail = cause.Error()
		}
		if detail == "" {
			detail = "the step did not finish"
		}
		return fmt.Sprintf("%s after %s: %s", kube.TimedOutPrefix, kube.ShortDuration(limit), detail)
	case errors.As(err, &app):
		msg := app.Message()
		if app.Type() == observatory.ErrStepTimedOut || strings.HasPrefix(msg, kube.TimedOutPrefix) || strings.HasPrefix(msg, kube.FailedPrefix) {
			return msg
		}
		return kube.FailedPrefix + msg
	}
	return kube.FailedPrefix + err.Error()
}

func joinSummary(head, tail string) string {
	if tail == "" {
		return head
	}
	return head + "; " + tail
}
