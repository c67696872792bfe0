// The steps of a Reservation, in the order they run, and the deadline of each. The names are
// the existing operator's words: they appear in status.steps[].name, status.step, the Ready
// condition's reason and the Events' reasons, so a user's scripts and alerts keep working.
// Never rename one.
package kube

import "time"

// The activation steps: taking the telescope, then bringing it up.
const (
	StepWait         = "Wait"
	StepStartSite    = "StartSite"
	StepPowerOn      = "PowerOn"
	StepStartDevices = "StartDevices"
	StepConnect      = "Connect"
	StepConfigure    = "Configure"
	StepActivation   = "Activation"
	StepStartGuider  = "StartGuider"
)

// The deactivation steps: taking it down again.
const (
	StepAbort        = "Abort"
	StepDeactivation = "Deactivation"
	StepStopGuider   = "StopGuider"
	StepDisconnect   = "Disconnect"
	StepStopDevices  = "StopDevices"
	StepPowerOff     = "PowerOff"
	StepStopSite     = "StopSite"
)

// ActivationSteps are written Pending when a reservation begins.
var ActivationSteps = []string{
	StepWait, StepStartSite, StepPowerOn, StepStartDevices, StepConnect, StepConfigure,
	StepActivation, StepStartGuider,
}

// DeactivationSteps are appended when the reservation ends.
var DeactivationSteps = []string{
	StepAbort, StepDeactivation, StepStopGuider, StepDisconnect, StepStopDevices, StepPowerOff,
	StepStopSite,
}

// stepDeadlines bound each step. Wait has none (it lasts until the telescope is free), and
// Activation and Deactivation have none of their own: each action of their procedures has one.
var stepDeadlines = map[string]time.Duration{
	StepStartSite:    10 * time.Minute,
	StepPowerOn:      10 * time.Minute,
	StepStartDevices: 10 * time.Minute,
	StepConnect:      2 * time.Minute,
	StepConfigure:    2 * time.Minute,
	StepStartGuider:  10 * time.Minute,
	StepAbort:        2 * time.Minute,
	StepStopGuider:   2 * time.Minute,
	StepDisconnect:   2 * time.Minute,
	StepStopDevices:  2 * time.Minute,
	StepPowerOff:     5 * time.Minute,
	StepStopSite:     5 * time.Minute,
}

// StepDeadline is how long a step may take from its recorded startTime; zero when the step
// has no deadline of its own (Wait, Activation, Deactivation).
func StepDeadline(step string) time.Duration { return stepDeadlines[step] }

// IsDeactivationStep says whether the step is one of the seven that take the telescope down.
func IsDeactivationStep(step string) bool {
	for _, s := range DeactivationSteps {
		if s == step {
			return true
		}
	}
	return false
}

// AnnotationRetry on a Reservation asks the runner to run its Failed step again; any value
// does. The runner removes it when the step starts.
const AnnotationRetry = "observatory.liken.sh/retry"
