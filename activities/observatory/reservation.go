// The contract between ReservationWorkflow and the activities that do a reservation's work.
// Each of the fourteen working steps is one activity of its own name (StartSite,
// PowerOn, StartDevices, Connect, Configure, Activation, StartGuider, Abort, Deactivation,
// StopGuider, Disconnect, StopDevices, PowerOff, StopSite), so the Temporal UI shows every
// step by name; they all take a StepInput and return a StepResult. Beside them are the
// bookkeeping activities the workflow needs around the steps: reading the Reservation and what
// it depends on, the deactivate finalizer, the status and its Events, the retry annotation,
// and the signals to the coordinating workflows (one per telescope, one per observatory).
//
// How a step reports its end (the workflow turns it into status.steps[]):
//   - Success: a StepResult, Skipped when there was nothing to do. The summary names the
//     devices involved.
//   - A failure a user must fix, or a device that answered Alert: a non-retryable
//     ApplicationError of type ErrStepFailed whose message starts "Failed: ".
//   - An action's own deadline passed (Activation and Deactivation, whose deadlines are per
//     action): a non-retryable ApplicationError of type ErrStepTimedOut whose message starts
//     "timed out after <d>: ".
//   - Anything else (an API server that does not answer, a conflict) is transient: Temporal
//     tries again until the step's deadline, which counts from StepInput.Started. When the
//     deadline passes the workflow writes "timed out after <d>: " and the last heartbeat.
//
// Every step heartbeats at least every StepHeartbeatEvery with a short string saying what it
// waits on ("pod east-mount Ready"), so a dead worker is noticed within seconds and a timeout
// says where it stuck, and returns promptly when its context is cancelled: a reservation that
// ends mid-step cancels the step. Every step is idempotent: a retry does the same work again
// without doubling it.
package observatory

import (
	"time"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The error types of a step's non-retryable failures; the workflow tells the two apart for
// the Ready condition's reason (StepFailed or StepTimedOut).
const (
	ErrStepFailed   = "StepFailed"
	ErrStepTimedOut = "StepTimedOut"
)

// StepHeartbeatEvery is how often a running step heartbeats; the workflow's heartbeat timeout
// is three times this.
const StepHeartbeatEvery = 10 * time.Second

// StepInput is what a step works on. The workflow fills every field for every step.
type StepInput struct {
	Namespace   string
	Reservation string
	// UID is the Reservation's metadata.uid, for owner references and Events.
	UID    string
	Holder string
	// Telescope is spec.telescope; Observatory its spec.observatory when the reservation
	// took it.
	Telescope   string
	Observatory string
	// Step is the step's name, such as PowerOn (the activity's own name).
	Step string
	// Started is the step's recorded startTime: its deadline counts from here, so a retry
	// after a crash does not get a new one.
	Started time.Time
	// Deadline is the step's fixed deadline (kube.StepDeadline), from Started; zero for
	// Activation and Deactivation, whose actions each have their own.
	Deadline time.Duration `json:",omitempty"`
	// IncludesObservatory: this reservation runs the observatory's own part (its tiers, or
	// its triggers) as well as the telescope's. Activation gets it when the observatory is
	// not yet active (no other telescope there activated it); Deactivation when no other
	// telescope there is active any more. The observatory's workflow decides, under the
	// per-site lock, so they run once.
	IncludesObservatory bool `json:",omitempty"`
	// Why the reservation ends, for the deactivation steps, such as "Telescope east was
	// deleted" or "Reservation ada-east ended at 2030-01-01T22:00:00Z". Abort's summary begins
	// with it (the workflow adds it; the activity need not).
	Why string `json:",omitempty"`
	// Actions are the records of an earlier run of this step, when a retry re-runs it: Done
	// actions are skipped, Failed ones run again.
	Actions []obsv1.ActionRecord `json:",omitempty"`
	// ConditionSignal is for ObserveDevices: the signal it sends its own workflow, with the
	// message {"why":"condition"}, when a device's condition changes, so the triggers look
	// again. Empty sends none.
	ConditionSignal string `json:",omitempty"`
}

// StepResult is what a step did.
type StepResult struct {
	// Skipped: there was nothing to do (such as StartGuider without a Guider).
	Skipped bool `json:",omitempty"`
	// Summary names the devices involved: "Connected Mount east, Camera east-main".
	Summary string `json:",omitempty"`
	// Actions are the step's actions on single resources, such as each procedure action.
	Actions []obsv1.ActionRecord `json:",omitempty"`
	// Endpoint is where the holder's INDI client connects: the telescope's INDI server.
	// PowerOn returns it; the status shows it while Ready.
	Endpoint *obsv1.Endpoint `json:",omitempty"`
	// Devices are the telescope's devices, Switches aside, in connect order ("Mount east"):
	// PowerOn returns them, so that the Temporal UI names them in the next steps' summaries.
	Devices []string `json:",omitempty"`
}

// ReservationRef names a Reservation.
type ReservationRef struct {
	Namespace string
	Name      string
}

// ReservationState is what ReadReservation found: the Reservation, and whether what it holds
// is there.
type ReservationState struct {
	// Gone: no Reservation of that name exists.
	Gone       bool   `json:",omitempty"`
	UID        string `json:",omitempty"`
	Generation int64  `json:",omitempty"`
	// Created is metadata.creationTimestamp, which orders reservations that start together.
	Created time.Time
	// Spec is the Reservation's, with a night's start and end put in (Night).
	Spec obsv1.ReservationSpec
	// Deleting: metadata.deletionTimestamp is set.
	Deleting bool `json:",omitempty"`
	// HasFinalizer: the deactivate finalizer is on the Reservation.
	HasFinalizer bool `json:",omitempty"`
	// Retry is the value of the retry annotation; empty when there is none.
	Retry string `json:",omitempty"`
	// Status is the status as written: a workflow that starts over (or follows the
	// existing operator) resumes from it.
	Status obsv1.ReservationStatus
	// Telescope is spec.telescope; Observatory the Telescope's spec.observatory (empty
	// Name when the Telescope is missing).
	Telescope   TargetState
	Observatory TargetState
	// Night is spec.night resolved at the Observatory's place; nil for a reservation by the
	// clock, or while the Observatory is missing.
	Night *kube.NightPlan `json:",omitempty"`
	// Booking is what the site's booking rules say of it; nil once it took the telescope
	// (the rules are checked only until then), or while the Observatory is missing.
	Booking *kube.Booking `json:",omitempty"`
}

// TargetState is whether a Telescope or Observatory a reservation needs is there.
type TargetState struct {
	Name     string `json:",omitempty"`
	Exists   bool   `json:",omitempty"`
	Deleting bool   `json:",omitempty"`
}

// FinalizerRef names the object whose deactivate finalizer is added or removed: a
// Reservation, a Telescope or an Observatory.
type FinalizerRef struct {
	Kind      obsv1.Kind
	Namespace string
	Name      string
	// UID, when set, is the object meant: another object created since under the same name
	// is left alone (reported Gone).
	UID string `json:",omitempty"`
}

// FinalizerResult is what a finalizer change found.
type FinalizerResult struct {
	// Gone: no such object (or another one by that name).
	Gone bool `json:",omitempty"`
	// Deleting: the object is being deleted. AddDeactivateFinalizer adds nothing to it.
	Deleting bool `json:",omitempty"`
	// Has: the finalizer is on the object after the call.
	Has bool `json:",omitempty"`
	// Changed: the call patched the object.
	Changed bool `json:",omitempty"`
}

// ReservationStatusWrite is a status to write and the Events it deserves.
type ReservationStatusWrite struct {
	Ref ReservationRef
	// UID, when set, is the Reservation meant; another one by that name is not written.
	UID    string `json:",omitempty"`
	Status obsv1.ReservationStatus
	// Events are posted after the status is written, and only when it changed, so a
	// retried write does not count them twice.
	Events []kube.Event `json:",omitempty"`
}

// StatusWritten is what a status write did.
type StatusWritten struct {
	Gone  bool `json:",omitempty"`
	Wrote bool `json:",omitempty"`
}

// RetryRemoval removes the retry annotation when the failed step it asked for starts again.
type RetryRemoval struct {
	Ref ReservationRef
	// Value is the annotation's value the workflow answered; a newer value is left, so a
	// second retry asked for meanwhile is not lost.
	Value string
}
