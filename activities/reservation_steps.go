// The reservation steps not written yet (see reservation.go for the contract). Each refuses
// with a non-retryable "not implemented yet", so a reservation stops Failed at its first
// missing step instead of pretending to be Ready. The steps that start and stop pods are in
// reservation_steps_kube.go.
package activities

import "context"

// StartGuider starts PHD2 and connects it; Skipped without a Guider.
func (a *Activities) StartGuider(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}

// StopGuider deletes the guider's pod, Service and ConfigMap.
func (a *Activities) StopGuider(ctx context.Context, in StepInput) (StepResult, error) {
	return StepResult{}, notImplemented(in.Step)
}
