// Procedures: what a device, a Telescope or an Observatory does when a reservation activates
// it (activation), deactivates it (deactivation), and when a condition changes in between
// (triggers). Each action names a target state, not a command: the runner reads the device
// first and sends nothing if it is already there.
//
// Which verbs an action may name depends on the kind, so the schema does not offer a verb a
// device cannot perform: Dome and Mount park, DustCap opens and closes, FlatPanel lights,
// Camera cools and warms, and every kind runs a job. Go has no generics controller-gen can
// turn into a schema, so each verb set has its own Action, Trigger and Procedures types, built
// from the shared ActionBase and TriggerCondition.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ParkState is the target of a Dome's or Mount's state action.
//
// +kubebuilder:validation:Enum=Parked;Unparked
type ParkState string

// The park states.
const (
	Parked   ParkState = "Parked"
	Unparked ParkState = "Unparked"
)

// CoverState is the target of a DustCap's state action.
//
// +kubebuilder:validation:Enum=Open;Closed
type CoverState string

// The cover states.
const (
	CoverOpen   CoverState = "Open"
	CoverClosed CoverState = "Closed"
)

// LightState is the target of a FlatPanel's state action.
//
// +kubebuilder:validation:Enum=Lit;Dark
type LightState string

// The light states.
const (
	Lit  LightState = "Lit"
	Dark LightState = "Dark"
)

// Job is a container the runner runs to completion as a batch/v1 Job in the resource's
// namespace. It gets LIKEN_OBSERVATORY, LIKEN_TELESCOPE, LIKEN_RESOURCE, LIKEN_TRIGGER,
// INDI_HOST and INDI_PORT in its environment, so it can talk to the INDI server.
type Job struct {
	// The container image to run.
	// +required
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`

	// The entrypoint, replacing the image's; the image's when empty.
	// +optional
	Command []string `json:"command,omitempty"`

	// The arguments to the entrypoint.
	// +optional
	Args []string `json:"args,omitempty"`

	// Environment variables for the container. A name the runner sets itself is dropped.
	// +optional
	// +listType=map
	// +listMapKey=name
	Env []EnvVar `json:"env,omitempty"`
}

// EnvVar is one environment variable of a job.
type EnvVar struct {
	// The variable's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// The variable's value.
	// +optional
	Value string `json:"value,omitempty"`
}

// Temperature is the target of a Camera's cool or warm action.
type Temperature struct {
	// The sensor temperature to reach, in degrees Celsius.
	// +required
	Celsius float64 `json:"celsius"`

	// How close to celsius the sensor must get, in degrees, for the action to be done.
	// +optional
	// +kubebuilder:default=0.5
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	Within float64 `json:"within,omitempty"`
}

// ConditionRef names a condition of a resource in this namespace.
//
// +kubebuilder:validation:XValidation:rule="!has(self.name) || has(self.kind)",message="name needs a kind"
type ConditionRef struct {
	// The kind of the resource whose condition counts. Empty means the resource that owns the
	// procedure.
	// +optional
	Kind Kind `json:"kind,omitempty"`

	// The name of that resource. Empty with a kind means every resource of that kind.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Name string `json:"name,omitempty"`

	// The condition type, such as Safe or Parked. An Observatory has the sky's too:
	// AstronomicalNight, NauticalNight and CivilNight (True while the Sun is more than 18,
	// 12 or 6 degrees below the horizon) and MoonUp, updated every 5 minutes, so a trigger
	// can park at nautical dawn or close when the Moon rises.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Type string `json:"type"`

	// The status the condition must have.
	// +optional
	// +kubebuilder:default=True
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status metav1.ConditionStatus `json:"status,omitempty"`
}

// TriggerCondition is the condition a trigger waits for.
type TriggerCondition struct {
	ConditionRef `json:",inline"`

	// How long the condition must hold before the run starts, as a Go duration such as 5m. A
	// change in between cancels the run.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	For string `json:"for,omitempty"`
}

// After makes an action wait for other resources' runs of the same step or transition.
type After struct {
	// The kind of the resources to wait for.
	// +required
	Kind Kind `json:"kind"`

	// The resource to wait for. Empty means every resource of the kind. A name that does not
	// exist fails the action.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Name string `json:"name,omitempty"`
}

// ActionBase is what every action has besides its verbs: the job verb, which every kind
// offers, and the options.
type ActionBase struct {
	// Run a container to completion; the action is done when the Job completes.
	// +optional
	Job *Job `json:"job,omitempty"`

	// How long the action may take before it fails, as a positive Go duration such as 90s or
	// 10m. The default depends on the verb: 10m for state, 20m for cool, 10m for warm and job.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule=`self.matches(r'^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$') && duration(self) > duration('0s')`,message="timeout must be a positive Go duration, such as 90s or 10m"
	Timeout string `json:"timeout,omitempty"`

	// Conditions that must hold when the action starts; otherwise it fails.
	// +optional
	// +kubebuilder:validation:MaxItems=8
	Requires []ConditionRef `json:"requires,omitempty"`

	// Other resources whose runs of the same procedure must end before this action starts.
	// +optional
	// +kubebuilder:validation:MaxItems=8
	After []After `json:"after,omitempty"`
}

// Action is one step of a procedure on a kind whose only verb is job.
//
// +kubebuilder:validation:XValidation:rule="has(self.job)",message="an action names exactly one verb: job"
type Action struct {
	ActionBase `json:",inline"`
}

// ParkAction is one step of a Dome's or Mount's procedure.
//
// +kubebuilder:validation:XValidation:rule="[has(self.state), has(self.job)].exists_one(v, v)",message="an action names exactly one verb: state or job"
type ParkAction struct {
	// Park or unpark: Parked or Unparked. A Dome parks first, then moves its shutter to match.
	// +optional
	State ParkState `json:"state,omitempty"`

	ActionBase `json:",inline"`
}

// CoverAction is one step of a DustCap's procedure.
//
// +kubebuilder:validation:XValidation:rule="[has(self.state), has(self.job)].exists_one(v, v)",message="an action names exactly one verb: state or job"
type CoverAction struct {
	// Open or close the cap: Open or Closed.
	// +optional
	State CoverState `json:"state,omitempty"`

	ActionBase `json:",inline"`
}

// LightAction is one step of a FlatPanel's procedure.
//
// +kubebuilder:validation:XValidation:rule="[has(self.state), has(self.job)].exists_one(v, v)",message="an action names exactly one verb: state or job"
type LightAction struct {
	// Switch the panel's light: Lit or Dark.
	// +optional
	State LightState `json:"state,omitempty"`

	ActionBase `json:",inline"`
}

// CameraAction is one step of a Camera's procedure.
//
// +kubebuilder:validation:XValidation:rule="[has(self.cool), has(self.warm), has(self.job)].exists_one(v, v)",message="an action names exactly one verb: cool, warm, or job"
type CameraAction struct {
	// Turn the cooler on and wait until the sensor is within `within` of celsius. The first
	// setpoint is sent again after the driver restarts.
	// +optional
	Cool *Temperature `json:"cool,omitempty"`

	// Wait for the sensor to warm to celsius, then turn the cooler off. Running out of time
	// is not a failure: the cooler is turned off anyway.
	// +optional
	Warm *Temperature `json:"warm,omitempty"`

	ActionBase `json:",inline"`
}

// Trigger runs actions once per transition of a condition into the wanted status, from the
// end of activation until deactivation starts.
type Trigger struct {
	// The condition to wait for.
	// +required
	When TriggerCondition `json:"when"`

	// The actions to run, in order, when it holds.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Run []Action `json:"run"`
}

// ParkTrigger is a Dome's or Mount's trigger.
type ParkTrigger struct {
	// The condition to wait for.
	// +required
	When TriggerCondition `json:"when"`

	// The actions to run, in order, when it holds.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Run []ParkAction `json:"run"`
}

// CoverTrigger is a DustCap's trigger.
type CoverTrigger struct {
	// The condition to wait for.
	// +required
	When TriggerCondition `json:"when"`

	// The actions to run, in order, when it holds.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Run []CoverAction `json:"run"`
}

// LightTrigger is a FlatPanel's trigger.
type LightTrigger struct {
	// The condition to wait for.
	// +required
	When TriggerCondition `json:"when"`

	// The actions to run, in order, when it holds.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Run []LightAction `json:"run"`
}

// CameraTrigger is a Camera's trigger.
type CameraTrigger struct {
	// The condition to wait for.
	// +required
	When TriggerCondition `json:"when"`

	// The actions to run, in order, when it holds.
	// +required
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	Run []CameraAction `json:"run"`
}

// Procedures are the procedures of a kind whose only verb is job: Telescope, Observatory,
// and the devices without a state of their own.
type Procedures struct {
	// Actions run when a reservation activates the resource, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Activation []Action `json:"activation,omitempty"`

	// Actions run when the reservation ends, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Deactivation []Action `json:"deactivation,omitempty"`

	// Actions run when a condition changes while the resource is active.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Triggers []Trigger `json:"triggers,omitempty"`
}

// ParkProcedures are a Dome's or Mount's procedures.
type ParkProcedures struct {
	// Actions run when a reservation activates the resource, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Activation []ParkAction `json:"activation,omitempty"`

	// Actions run when the reservation ends, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Deactivation []ParkAction `json:"deactivation,omitempty"`

	// Actions run when a condition changes while the resource is active.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Triggers []ParkTrigger `json:"triggers,omitempty"`
}

// CoverProcedures are a DustCap's procedures.
type CoverProcedures struct {
	// Actions run when a reservation activates the resource, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Activation []CoverAction `json:"activation,omitempty"`

	// Actions run when the reservation ends, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Deactivation []CoverAction `json:"deactivation,omitempty"`

	// Actions run when a condition changes while the resource is active.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Triggers []CoverTrigger `json:"triggers,omitempty"`
}

// LightProcedures are a FlatPanel's procedures.
type LightProcedures struct {
	// Actions run when a reservation activates the resource, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Activation []LightAction `json:"activation,omitempty"`

	// Actions run when the reservation ends, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Deactivation []LightAction `json:"deactivation,omitempty"`

	// Actions run when a condition changes while the resource is active.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Triggers []LightTrigger `json:"triggers,omitempty"`
}

// CameraProcedures are a Camera's procedures.
type CameraProcedures struct {
	// Actions run when a reservation activates the resource, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Activation []CameraAction `json:"activation,omitempty"`

	// Actions run when the reservation ends, in order.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Deactivation []CameraAction `json:"deactivation,omitempty"`

	// Actions run when a condition changes while the resource is active.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Triggers []CameraTrigger `json:"triggers,omitempty"`
}
