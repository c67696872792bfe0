// The fourteen working steps of a reservation, one activity each (see reservation.go for the
// contract). They are placeholders: each refuses with a non-retryable "not implemented yet",
// so a reservation stops Failed at its first working step instead of pretending to be Ready.
// The activities that really start servers, pods and drivers replace this file.
package activities

import "context"

// StartSite brings up the observatory's INDI server and its devices, once for all its
// telescopes; the workflow runs it only for the first telescope there.
func (a *Activities) StartSite(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// PowerOn starts the telescope's INDI server and its Switch pods, and turns the power
// outputs on. It returns the server's Endpoint.
func (a *Activities) PowerOn(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// StartDevices starts each device's pod, Service and claim and waits for its driver.
func (a *Activities) StartDevices(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// Connect connects the devices in the spec's order.
func (a *Activities) Connect(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// Configure writes location, active devices, gain and offset, scope info and filter names.
func (a *Activities) Configure(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// StartGuider starts PHD2 and connects it; Skipped without a Guider.
func (a *Activities) StartGuider(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// Abort stops guiding, exposures and mount motion.
func (a *Activities) Abort(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// StopGuider deletes the guider's pod, Service and ConfigMap.
func (a *Activities) StopGuider(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// Disconnect disconnects the devices in the reverse of Connect's order.
func (a *Activities) Disconnect(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// StopDevices deletes the device pods (not the Switches).
func (a *Activities) StopDevices(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// PowerOff turns the outputs off, then stops the Switch pods and the telescope's server.
func (a *Activities) PowerOff(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// StopSite stops the observatory's devices and server; the workflow runs it only for the
// last telescope there.
func (a *Activities) StopSite(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}
