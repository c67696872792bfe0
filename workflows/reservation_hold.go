// Ready: a reservation holds its telescope until spec.end or a delete, and its holder may
// port-forward its servers (GrantAccess, written again at each change the watcher signals, so
// it follows their Person; the deactivation revokes it). All the while, one
// long activity (ObserveDevices) mirrors what the drivers report into the devices' status,
// the triggers run (reservation_triggers.go), and each change the watcher signals makes it
// handle what changed under it (reservation_live.go): the devices that joined or left, and
// what was deleted, created again.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
)

// grantAccess lets the holder's users and groups port-forward the telescope's and the site's
// servers while Ready (docs/booking.md); the log says who. A way in that cannot be written
// costs the holder their remote access, never the night: it is logged, and the night goes on.
func (r *reservation) grantAccess() {
	if !r.holderAccess() {
		return
	}
	var out observatory.AccessGranted
	in := observatory.AccessGrant{Ref: r.ref, UID: r.state.UID, Holder: r.holder, Telescope: r.telescope, Observatory: r.observatory}
	if err := r.quick("open the servers to "+r.holder, observatoryActs.GrantAccess, in, &out); err != nil {
		workflow.GetLogger(r.ctx).Warn("the holder's way in to the servers could not be written", "holder", r.holder, "err", err)
		return
	}
	workflow.GetLogger(r.ctx).Info("the holder may reach the servers", "holder", r.holder, "who", out.Subjects)
}

// revokeAccess closes the holder's way in as the reservation ends; it never holds up the
// deactivation (the Reservation owns the Role, which goes with it in any case).
func (r *reservation) revokeAccess() {
	if !r.holderAccess() {
		return
	}
	if err := r.quick("close "+r.holder+"'s way in", observatoryActs.RevokeAccess, r.ref, nil); err != nil {
		workflow.GetLogger(r.ctx).Warn("the holder's way in to the servers could not be removed", "holder", r.holder, "err", err)
	}
}

// keepAccess writes the holder's way in again after a change the watcher signalled, such as
// their Person naming another user: level-triggered, whatever the change, it writes only what
// differs. Gated, since histories recorded before it woke for changes without it.
func (r *reservation) keepAccess() {
	if workflow.GetVersion(r.ctx, "access-follows-holder", workflow.DefaultVersion, 1) == 1 {
		r.grantAccess()
	}
}

// holderAccess gates the holder's way in: v0.1.0's histories, which every build replays,
// were recorded without it.
func (r *reservation) holderAccess() bool {
	return workflow.GetVersion(r.ctx, "holder-access", workflow.DefaultVersion, 1) == 1
}

// hold keeps the telescope Ready until the reservation ends, the holder's way in open. Its
// devices are observed all the while, and no longer: the observer stops before deactivation
// begins, or before the run continues as new (whose hold starts it again).
func (r *reservation) hold() error {
	if err := r.write(); err != nil {
		return err
	}
	// The triggers live from here until deactivation begins (or the run continues as new,
	// whose hold starts them again); the observer tells them when a condition changes. Both
	// start before the way in is written, which an API server away may hold up for a while.
	triggers := r.triggers()
	defer triggers.stop()
	stop := r.observe()
	defer stop()
	r.grantAccess()
	for r.endReason(whileHolding) == "" {
		if err := r.continueAsNewIfLong(); err != nil {
			return err
		}
		if err := r.await(triggers.add); err != nil {
			return err
		}
		if r.endReason(whileHolding) != "" {
			break
		}
		if r.lastAwait.changed && !r.lastAwait.onlyConditions {
			r.keepAccess()
		}
		if r.lastAwait.changed && !r.lastAwait.onlyConditions && !r.lastAwait.onlyOwn {
			// A change of the Reservation itself (a new end, say) leaves its devices and
			// pods as they were: nothing to heal.
			r.heal()
		}
		if r.lastAwait.changed {
			triggers.request()
		}
	}
	return nil
}

// observeOptions run ObserveDevices, which heartbeats every second and runs until cancelled.
// A worker that dies is noticed after HeartbeatTimeout, which also bounds how long the end of
// a reservation waits for its observer to stop (WaitForCancellation: no status write from it
// lands after deactivation began). An attempt lasts at most StartToCloseTimeout, and a new one
// follows for a longer reservation; retries never stop, so a lost INDI server is observed
// again when it is back.
var observeOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 24 * time.Hour,
	HeartbeatTimeout:    10 * time.Second,
	WaitForCancellation: true,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// observe starts ObserveDevices, which writes the status of the telescope's and the
// observatory's devices while the reservation is Ready, and returns what stops it. The
// observer is a window on the devices, not a part of the lifecycle: its failure is logged
// and never fails the reservation.
func (r *reservation) observe() (stop func()) {
	in := r.stepInput("Observe")
	// The observer tells the triggers, through the change signal, when a condition changed.
	in.ConditionSignal = contract.ReservationChanged
	ctx, cancel := workflow.WithCancel(r.ctx)
	opts := observeOptions
	opts.Summary = "the status of the devices of " + r.servers() + ", while Ready"
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), observatoryActs.ObserveDevices, in)
	stopped := false
	workflow.Go(r.ctx, func(gctx workflow.Context) {
		if err := f.Get(gctx, nil); err != nil && !stopped {
			workflow.GetLogger(gctx).Warn("the devices are no longer observed; the reservation goes on",
				"reservation", r.in.Namespace+"/"+r.in.Name, "err", err)
		}
	})
	return func() {
		stopped = true
		cancel()
		_ = f.Get(r.ctx, nil)
	}
}
