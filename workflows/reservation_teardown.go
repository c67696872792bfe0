// The end of a reservation: the deactivation steps (from Abort to StopSite, appended to the
// status when it ends), then Released, the Telescope's finalizer and its lock, and the
// Reservation's own finalizer last. A failed deactivation step keeps the finalizer and waits
// for the retry annotation only.
package workflows

import (
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// deactivate appends the deactivation steps and runs them.
func (r *reservation) deactivate() error {
	r.end.why = r.endReason(whileHolding)
	r.status = kube.ReservationEnded(r.status, r.now())
	if err := r.write(); err != nil {
		return err
	}
	r.revokeAccess()
	for _, step := range kube.DeactivationSteps {
		if done(kube.FindStep(&r.status, step)) {
			continue
		}
		if _, err := r.runUntilDone(step); err != nil {
			return err
		}
	}
	return nil
}

// release ends the reservation: Released, then the Telescope's finalizer and its lock, and
// the Reservation's own finalizer last.
func (r *reservation) release() error {
	if err := r.write(); err != nil {
		return err
	}
	if r.state.Telescope.Name != "" {
		if err := r.removeFinalizer(obsv1.KindTelescope, r.state.Telescope.Name, ""); err != nil {
			return err
		}
		if err := r.signalTelescope(TelescopeRelease); err != nil {
			return err
		}
	}
	return r.removeFinalizer(obsv1.KindReservation, r.in.Name, r.state.UID)
}

// endUntaken ends a reservation that ended before it took its telescope: nothing ran, so
// nothing is undone.
func (r *reservation) endUntaken() error {
	r.status = kube.ReservationEnded(r.status, r.now())
	if err := r.write(); err != nil {
		return err
	}
	return r.removeFinalizer(obsv1.KindReservation, r.in.Name, r.state.UID)
}
