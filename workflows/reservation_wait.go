// The Wait step of a reservation: its spec.start (or its night's dusk), a Telescope and an
// Observatory that exist and are not being deleted, and then the telescope's lock
// (telescope_lock.go), which grants one reservation at a time. While it waits, the step's
// summary says for what; a reservation that ends first gives its place in the lock's queue
// back.
package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// telescopeWait is where a Wait stands: whether it asked the telescope's lock (and who
// holds it, as the lock said), and the timer of spec.start.
type telescopeWait struct {
	// resumed: a run that continued as new holds the telescope already; it asks the lock
	// again (which grants a holder at once) without touching the recorded step.
	resumed     bool
	requested   bool
	heldBy      string
	start       workflow.Future
	startCancel workflow.CancelFunc
	startArmed  time.Time
}

// holding: a resumed Wait holds the telescope already.
func (w *telescopeWait) holding() holding {
	if w.resumed {
		return whileHolding
	}
	return whileWaiting
}

// wait is the Wait step. It says whether the reservation took the telescope (or ended
// first).
func (r *reservation) wait() (bool, error) {
	rec := kube.FindStep(&r.status, kube.StepWait)
	w := &telescopeWait{resumed: rec != nil && rec.State == obsv1.RunDone}
	if !w.resumed && rec != nil && rec.State != obsv1.RunRunning {
		r.status = kube.StepRunning(r.status, kube.StepWait, "", r.now())
	}
	tel := func() string { return "Telescope " + r.state.Telescope.Name }
	for {
		if r.endReason(w.holding()) != "" {
			if w.requested {
				if err := r.signalTelescope(TelescopeRelease); err != nil {
					return false, err
				}
			}
			return w.resumed, nil
		}
		summary, free := r.waitingFor(w)
		if err := r.askTelescope(w, free); err != nil {
			return false, err
		}
		if free {
			summary = "Waiting for " + tel()
			if w.heldBy != "" {
				summary = fmt.Sprintf("%s is held by Reservation %s", tel(), w.heldBy)
			}
		}
		if !w.resumed {
			r.status = kube.StepSummary(r.status, kube.StepWait, summary)
			if err := r.write(); err != nil {
				return false, err
			}
		}
		if granted, err := r.awaitTelescope(w); err != nil {
			return false, err
		} else if !granted {
			continue
		}
		if took, err := r.takeTelescope(w); err != nil {
			return false, err
		} else if !took {
			continue
		}
		if w.startCancel != nil {
			w.startCancel()
		}
		r.observatory = r.state.Observatory.Name
		if !w.resumed {
			r.status = kube.StepEnded(r.status, kube.StepWait, obsv1.RunDone, "Took "+tel(), nil, r.now())
		}
		// The next write carries Wait's end (see succeeded).
		return true, nil
	}
}

// waitingFor says what the Wait waits for, unless the telescope is free to ask for, and
// arms the timer of spec.start (again, when the start moved).
func (r *reservation) waitingFor(w *telescopeWait) (summary string, free bool) {
	now := r.now()
	st := r.state
	tel, obs := "Telescope "+st.Telescope.Name, "Observatory "+st.Observatory.Name
	switch {
	case st.Night != nil && st.Night.Refused != "":
		return st.Night.Refused, false
	case st.Booking != nil && st.Booking.Refused:
		return st.Booking.Message, false
	case st.Spec.Start != nil && now.Before(st.Spec.Start.Time):
		start := st.Spec.Start.UTC()
		if w.start == nil || !w.startArmed.Equal(start) {
			if w.startCancel != nil {
				w.startCancel()
			}
			w.start, w.startCancel = timer(r.ctx, start.Sub(now), "start at "+contract.At(start))
			w.startArmed = start
		}
		if st.Night != nil {
			return "Waiting for " + st.Night.Dusk + " at " + start.Format("2006-01-02 15:04 UTC"), false
		}
		return "Waiting until " + start.Format(time.RFC3339), false
	case !st.Telescope.Exists:
		return "Missing " + tel, false
	case st.Telescope.Deleting:
		return tel + " is being deleted", false
	case !st.Observatory.Exists:
		return "Missing " + obs, false
	case st.Observatory.Deleting:
		return obs + " is being deleted", false
	}
	return "", true
}

// askTelescope asks the telescope's lock for a turn when the telescope became free to ask
// for, and withdraws the request when it no longer is (it no longer counts among the
// waiters).
func (r *reservation) askTelescope(w *telescopeWait, free bool) error {
	switch {
	case !free && w.requested:
		w.requested, w.heldBy = false, ""
		return r.signalTelescope(TelescopeRelease)
	case free && !w.requested:
		r.locks.telescope = r.token()
		w.requested = true
		return r.signalTelescope(TelescopeTake)
	}
	return nil
}

// awaitTelescope waits for a change, the start, or the lock's answer; granted says the lock
// granted the telescope.
func (r *reservation) awaitTelescope(w *telescopeWait) (granted bool, err error) {
	err = r.await(func(sel workflow.Selector) {
		if w.start != nil {
			sel.AddFuture(w.start, func(workflow.Future) { w.start, w.startCancel = nil, nil })
		}
		if w.requested {
			sel.AddReceive(r.telAnswers, func(c workflow.ReceiveChannel, _ bool) {
				var ans TelescopeAnswer
				c.Receive(r.ctx, &ans)
				switch {
				case ans.Token != r.locks.telescope:
					// An answer to an earlier request, which this run withdrew.
				case ans.Granted:
					granted = true
				default:
					w.heldBy = ans.Holder
				}
			})
		}
	})
	return granted, err
}

// takeTelescope checks again, once the lock granted it, that the telescope may be held, and
// holds its finalizer, so that its delete waits for the deactivation. When it may not, it
// gives the telescope back and reads again: the Wait goes on.
func (r *reservation) takeTelescope(w *telescopeWait) (bool, error) {
	if err := r.read(); err != nil {
		return false, err
	}
	took := r.endReason(w.holding()) == "" && r.state.Telescope.Exists && !r.state.Telescope.Deleting &&
		r.state.Observatory.Exists && !r.state.Observatory.Deleting
	if took {
		res, err := r.addFinalizer(obsv1.KindTelescope, r.state.Telescope.Name, "")
		if err != nil {
			return false, err
		}
		took = !res.Gone && !res.Deleting
	}
	if took {
		return true, nil
	}
	if err := r.signalTelescope(TelescopeRelease); err != nil {
		return false, err
	}
	w.requested, w.heldBy = false, ""
	return false, r.read()
}

// holding says whether the reservation holds its telescope: then a delete of the Telescope
// or the Observatory ends it too, where before only its own delete and its end do.
type holding int

const (
	whileWaiting holding = iota
	whileHolding
)

// endReason says why the reservation ends, or "" while it does not.
func (r *reservation) endReason(h holding) string {
	if r.end.why != "" {
		return r.end.why
	}
	st := r.state
	switch {
	case st.Gone || st.Deleting:
		return "Reservation " + r.in.Name + " was deleted"
	case h == whileHolding && (!st.Telescope.Exists || st.Telescope.Deleting):
		return "Telescope " + r.telescope + " was deleted"
	case h == whileHolding && (!st.Observatory.Exists || st.Observatory.Deleting):
		return "Observatory " + r.observatory + " was deleted"
	case st.Spec.End != nil && !r.now().Before(st.Spec.End.Time):
		return "Reservation " + r.in.Name + " ended at " + st.Spec.End.UTC().Format(time.RFC3339)
	}
	return ""
}
