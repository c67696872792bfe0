// The reservation steps not written yet (see reservation.go for the contract). Each refuses
// with a non-retryable "not implemented yet", so a reservation stops Failed at its first
// missing step instead of pretending to be Ready. The steps that start and stop pods are in
// reservation_steps_kube.go.
package activities

import "context"

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
