// The reservation's working steps as Temporal registers them, in the order a reservation
// runs them (Activation and Deactivation are in procedures.go). Each is its step's work run
// through runStep, the one place an activity's error becomes a step's error, so the work
// itself returns plain errors.
package observatory

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
)

// runStep runs a step's work. A step error (an ApplicationError: a failure a user must fix,
// a timeout) is kept as it is; anything else is wrapped so the worker's log says which step it
// came from, and Temporal retries it.
func runStep(ctx context.Context, in StepInput, work func(context.Context, StepInput) (StepResult, error)) (StepResult, error) {
	res, err := work(ctx, in)
	var app *temporal.ApplicationError
	if err == nil || errors.As(err, &app) {
		return res, err
	}
	return res, fmt.Errorf("%s: %w", in.Step, err)
}

// StartSite brings up the observatory's INDI server and its devices, once for all its
// telescopes; the workflow runs it only for the first telescope there. An observatory
// without devices needs no server: Skipped.
func (a *Activities) StartSite(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.startSite)
}

// PowerOn starts the telescope's INDI server, linking every device it will run, and its
// Switch pods. It returns the server's Endpoint.
func (a *Activities) PowerOn(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.powerOn)
}

// StartDevices starts each device's pod, Service and claim (after its finalizer), waits
// until they and the server are Ready, and then until each driver has defined its device on
// the server (whose INDI name it records). Switches are PowerOn's.
func (a *Activities) StartDevices(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.startDevices)
}

// Connect connects the telescope's devices in this order: mount, GPS, polar aligner,
// focusers, filter wheels, rotators, dust caps, flat panels, SQMs, receivers, cameras.
func (a *Activities) Connect(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.connect)
}

// Configure writes what the devices must know: the site's location, the devices each driver
// snoops on (ACTIVE_DEVICES), the cameras' gain, offset and optics (SCOPE_INFO from the
// train's OpticalTube), and the filter wheels' filter names.
func (a *Activities) Configure(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.configure)
}

// StartGuider creates the Guider's ConfigMap, Service and pod, waits until the pod is Ready,
// and has PHD2 connect its camera and mount; Skipped without a Guider.
func (a *Activities) StartGuider(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.startGuider)
}

// Abort stops what moves: PHD2's capture first, since guiding would go on exposing and
// pulsing the mount, then each camera's running exposure and each mount's motion. Nothing it
// cannot reach fails it (see the file's head).
func (a *Activities) Abort(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.abort)
}

// StopGuider deletes the guider's pod, Service and ConfigMap; Skipped when none is there.
func (a *Activities) StopGuider(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.stopGuider)
}

// Disconnect disconnects the telescope's devices in the reverse of Connect's order. A server
// that does not run has nothing connected: Skipped.
func (a *Activities) Disconnect(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.disconnect)
}

// StopDevices deletes the device pods, Services and claims of the telescope's server (not
// the Switches: PowerOff's), and then the devices' finalizers.
func (a *Activities) StopDevices(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.stopDevices)
}

// PowerOff stops the Switch pods and the telescope's server.
func (a *Activities) PowerOff(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.powerOff)
}

// StopSite disconnects the observatory's devices, stops their pods, turns their outputs off
// and stops the Switches and the server, and says the site's weather is Unknown again; the
// workflow runs it only for the last telescope there.
func (a *Activities) StopSite(ctx context.Context, in StepInput) (StepResult, error) {
	return runStep(ctx, in, a.stopSite)
}
