// A reservation's turns of its observatory's site. The four steps that touch the site
// (StartSite, Activation, Deactivation, StopSite) first take a turn from the observatory's
// lock (site_turns.go), which decides whether this reservation does the site's part: the
// site starts once for all its telescopes and stops after the last. StartSite holds the
// Observatory's finalizer, and StopSite lets go of it.
package workflows

import (
	"strings"

	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// siteTurnTaken is what a step's site turn said: asked, a turn was asked for (the step
// then starts afresh); runsSite, this reservation does the site's part.
type siteTurnTaken struct{ asked, runsSite bool }

// takeSiteTurn takes the step's turn from the observatory's lock, when it has one. The step
// goes on (stepActivityNext) unless it ends here: Skipped, or cut by the reservation's end.
func (r *reservation) takeSiteTurn(step string) (turn siteTurnTaken, out stepOutcome, err error) {
	op := siteTurnOf(step)
	if op == "" {
		return turn, stepActivityNext, nil
	}
	if r.observatory == "" {
		// Only a run that resumed after its Telescope vanished knows no observatory: there is
		// no site to take a turn on.
		if !isSiteOnly(step) {
			return turn, stepActivityNext, nil
		}
		r.status = kube.StepEnded(r.status, step, obsv1.RunSkipped, "no Observatory is known for Telescope "+r.telescope, nil, r.now())
		return turn, stepFinished, r.write()
	}
	r.status = kube.StepRunning(r.status, step, "Waiting for Observatory "+r.observatory, r.now())
	if err := r.write(); err != nil {
		return turn, stepFailed, err
	}
	ans, cut, err := r.siteTurn(op, !kube.IsDeactivationStep(step))
	if err != nil || cut {
		return turn, stepCut, err
	}
	if !ans.Run && isSiteOnly(step) {
		r.status = kube.StepEnded(r.status, step, obsv1.RunSkipped, siteSkipSummary(step, r.observatory, ans.Others), nil, r.now())
		return turn, stepFinished, r.write()
	}
	r.locks.holdingSite = ans.Run
	turn = siteTurnTaken{asked: true, runsSite: ans.Run}
	if step == kube.StepStartSite {
		cut, err := r.holdObservatory()
		if err != nil {
			return turn, stepFailed, err
		}
		if cut {
			return turn, stepCut, nil
		}
	}
	return turn, stepActivityNext, nil
}

// holdObservatory holds the Observatory's finalizer as StartSite starts: the observatory is
// held while any of its telescopes is. One that is being deleted (or gone) gets its turn
// back, and the reservation looks again.
func (r *reservation) holdObservatory() (cut bool, err error) {
	res, err := r.addFinalizer(obsv1.KindObservatory, r.observatory, "")
	if err != nil || (!res.Gone && !res.Deleting) {
		return false, err
	}
	if err := r.siteRelease(SiteWithdraw, false); err != nil {
		return false, err
	}
	return true, r.read()
}

// letGoOfObservatory removes the Observatory's finalizer once StopSite stopped the site
// (that is, this reservation held the turn that stops it).
func (r *reservation) letGoOfObservatory() error {
	if !r.locks.holdingSite {
		return nil
	}
	return r.removeFinalizer(obsv1.KindObservatory, r.observatory, "")
}

// siteTurn asks the observatory's lock for a turn and waits for it. During activation the
// reservation's end withdraws the request (cut is then true).
func (r *reservation) siteTurn(op SiteOp, activating bool) (ans SiteAnswer, cut bool, err error) {
	r.locks.site = r.token()
	if err := r.signalSite(SiteRequest{Op: op, Token: r.locks.site}); err != nil {
		return ans, false, err
	}
	for {
		got := false
		if err := r.await(func(sel workflow.Selector) {
			sel.AddReceive(r.siteAnswers, func(c workflow.ReceiveChannel, _ bool) {
				var a SiteAnswer
				c.Receive(r.ctx, &a)
				if a.Token == r.locks.site {
					ans, got = a, true
				}
			})
		}); err != nil {
			return ans, false, err
		}
		if got {
			return ans, false, nil
		}
		if activating && r.endReason(whileHolding) != "" {
			return ans, true, r.signalSite(SiteRequest{Op: SiteWithdraw, Token: r.locks.site})
		}
	}
}

// siteRelease ends a site turn this reservation holds (SiteDone with the step's outcome, or
// SiteWithdraw when it did not use it).
func (r *reservation) siteRelease(op SiteOp, ok bool) error {
	if !r.locks.holdingSite {
		return nil
	}
	r.locks.holdingSite = false
	return r.signalSite(SiteRequest{Op: op, Token: r.locks.site, OK: ok})
}

func (r *reservation) signalSite(req SiteRequest) error {
	req.Reservation, req.Telescope = r.in.Name, r.telescope
	req.WorkflowID = workflow.GetInfo(r.ctx).WorkflowExecution.ID
	return r.coordinate(activities.WorkflowSignal{
		WorkflowID: contract.SiteTurnsID(r.in.Namespace, r.observatory), WorkflowType: contract.SiteTurnsWorkflow, Signal: SiteRequests,
		Message: req, Input: SiteTurnsInput{Namespace: r.in.Namespace, Name: r.observatory},
	}, SiteTurnsWords(r.in.Namespace, r.observatory), coordinatorSummary(obsv1.KindObservatory, r.observatory, string(req.Op)))
}

func siteSkipSummary(step, observatory string, others []string) string {
	where := "Observatory " + observatory
	tels := ""
	if len(others) > 0 {
		tels = "Telescope " + strings.Join(others, ", Telescope ")
	}
	switch {
	case step == kube.StepStartSite && tels != "":
		return where + " is already up for " + tels
	case step == kube.StepStartSite:
		return where + " is already up"
	case tels != "":
		return where + " is still in use by " + tels
	}
	return where + " is not running"
}
