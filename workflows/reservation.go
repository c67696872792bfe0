// Reservation is the lifecycle of one Reservation, as one workflow per Reservation (ID
// reservation/<ns>/<name>), and reads top-down as docs/architecture.md tells it (run, below):
//
//   - begin: the deactivate finalizer, and the first status;
//   - Wait (reservation_wait.go): spec.start on a durable timer, then the telescope from
//     the telescope's lock (telescope_lock.go);
//   - the activation steps (reservation_steps.go), StartSite to StartGuider, each its own
//     activity with its deadline; the four that touch the observatory's site take a
//     turn from its lock first (reservation_site.go, site_turns.go);
//   - Ready (reservation_hold.go) until spec.end (another durable timer) or a delete of the
//     Reservation, its Telescope or its Observatory: the devices observed, the triggers run,
//     devices that join or leave handled live;
//   - the deactivation steps, Abort to StopSite, and the release (reservation_teardown.go).
//
// The watcher signals ReservationChanged at every change that matters; a signal only means
// "look again": the workflow reads the Reservation through an activity, so a missed or
// repeated signal does no harm (reservation_io.go, with the status writes). A step that fails
// leaves things as they are: the reservation is Failed and waits for the retry annotation
// or, during activation, for its end, which deactivates from Abort. A reservation held for a
// very long time continues as new while Ready or Failed, and the new run resumes from the
// status it wrote.
package workflows

import (
	"time"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"

	"go.temporal.io/sdk/workflow"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
)

// Reservation runs one Reservation from its start to its release.
func Reservation(ctx workflow.Context, in contract.ReservationInput) error {
	r := &reservation{
		ctx:         ctx,
		in:          in,
		ref:         observatory.ReservationRef{Namespace: in.Namespace, Name: in.Name},
		changes:     workflow.GetSignalChannel(ctx, contract.ReservationChanged),
		telAnswers:  workflow.GetSignalChannel(ctx, TelescopeAnswers),
		siteAnswers: workflow.GetSignalChannel(ctx, SiteAnswers),
	}
	if err := workflow.SetQueryHandler(ctx, contract.ReservationStatusQuery, func() (obsv1.ReservationStatus, error) {
		return r.status, nil
	}); err != nil {
		return err
	}
	return r.run()
}

// reservation is one run's state, in the order the lifecycle needs it.
type reservation struct {
	ctx workflow.Context
	in  contract.ReservationInput
	ref observatory.ReservationRef
	// changes are the watcher's signals; telAnswers and siteAnswers the locks' answers.
	changes, telAnswers, siteAnswers workflow.ReceiveChannel

	// state is the Reservation as last read (reads counts the reads, for continue-as-new);
	// telescope and holder stay as last read, for a Reservation that is gone; observatory is
	// the Telescope's, from when the reservation took it.
	state                          observatory.ReservationState
	reads                          int
	telescope, holder, observatory string

	// status is what the workflow composed, written what the Reservation holds; endpoint is
	// where PowerOn said the telescope's server is, devices the telescope's as PowerOn and
	// the live plan last said in this run (for the steps' summaries).
	status, written obsv1.ReservationStatus
	endpoint        *obsv1.Endpoint
	devices         []string
	search          searched

	end       ending
	lastAwait awaitResult
	locks     lockRequests
}

// ending is when and why the reservation ends: timer fires at spec.end, armed is the end it
// was armed for, and why is set once it ended.
type ending struct {
	timer workflow.Future
	armed time.Time
	why   string
}

// awaitResult says what ended the last await: changed, a change signal; onlyConditions, every
// change it took said a device's condition changed (WhyCondition), and the Reservation was
// not read; onlyOwn, every change it took was of the Reservation itself (WhyAdded,
// WhyUpdated: its spec or its annotations), which moves no device and deletes no pod.
type awaitResult struct{ changed, onlyConditions, onlyOwn bool }

// lockRequests are this run's requests of the telescope's and the observatory's locks: the
// tokens of the last of each (seq counts them), and whether it holds a turn of the site.
type lockRequests struct {
	seq             int
	telescope, site string
	holdingSite     bool
}

// searched are the search attributes as last upserted (once: at all, in this run).
type searched struct {
	last [4]string
	once bool
}

// run is the lifecycle, top-down: begin (read, finalizer, first status), Wait, the
// activation steps, Ready until the end, the deactivation steps, release.
func (r *reservation) run() error {
	carryOn, err := r.begin()
	if err != nil || !carryOn {
		return err
	}
	if kube.Ended(&r.status) {
		// A run that resumes after the end: the deactivation goes on.
		r.observatory = r.state.Observatory.Name
	} else {
		took, err := r.wait()
		if err != nil {
			return err
		}
		if !took {
			return r.endUntaken()
		}
		ended, err := r.activate()
		if err != nil {
			return err
		}
		if !ended {
			if err := r.hold(); err != nil {
				return err
			}
		}
	}
	if err := r.deactivate(); err != nil {
		return err
	}
	return r.release()
}

// begin reads the Reservation, holds it with the deactivate finalizer, and writes its first
// status; carryOn is false for a Reservation with nothing to run (gone, released, or deleted
// before the runner took it on).
func (r *reservation) begin() (carryOn bool, err error) {
	if err := r.read(); err != nil {
		return false, err
	}
	st := r.state
	if st.Status.Phase != "" && !st.Gone {
		// A run that resumes a status (continued as new, or started again after its end)
		// carries the search attributes from its start, so a list filtered by Telescope or
		// Holder finds it too. A new reservation's first status write sets them.
		r.status = st.Status
		r.upsertSearch()
	}
	switch {
	case st.Gone:
		return false, nil
	case st.Status.Phase == obsv1.ReservationReleased:
		// Released before (by its end, or by a run that stopped before the last write):
		// nothing holds it any more.
		return false, r.removeFinalizer(obsv1.KindReservation, r.in.Name, st.UID)
	case st.Deleting && !st.HasFinalizer && len(st.Status.Steps) == 0:
		// Deleted before the runner took it on: nothing to undo, nothing to hold.
		return false, nil
	}
	if !st.Deleting && !st.HasFinalizer {
		if _, err := r.addFinalizer(obsv1.KindReservation, r.in.Name, st.UID); err != nil {
			return false, err
		}
	}
	r.written = st.Status
	r.status = kube.ReservationBegun(st.Status)
	return true, r.write()
}
