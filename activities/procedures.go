// The Activation and Deactivation steps: the procedures of a reservation's resources, run by
// tier. Activation runs the Observatory, then its devices (only when StepInput.SiteTiers: the
// first telescope there), then the Telescope, its devices and its train's devices;
// Deactivation runs the same tiers in reverse. The resources of one tier run in parallel, the
// tiers in sequence, and one resource's actions in order. Each action is a target state (read
// the device first, send nothing when it is there) or a Job named from the run, so a
// restarted worker adopts the Job it created instead of starting another.
package activities

import "context"

// Activation runs the activation procedures by tier (the observatory's tiers only when
// in.SiteTiers).
func (a *Activities) Activation(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// Deactivation runs the deactivation procedures in reverse tier order (the observatory's
// tiers only when in.SiteTiers).
func (a *Activities) Deactivation(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}
