// The pieces many kinds share: references to a parent, conditions, the addresses of the pods
// the runner starts, and the records of steps and procedures that let a restarted runner pick
// up where it stopped. Each kind's own file composes them, so a rule is written once.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types the runner writes. State conditions (Parked, Open, Lit, Cooling, Safe)
// exist only while their device is Connected.
const (
	ConditionReady          = "Ready"
	ConditionParentFound    = "ParentFound"
	ConditionActive         = "Active"
	ConditionLocksRelayed   = "LocksRelayed"
	ConditionSafeToPowerOff = "SafeToPowerOff"
	ConditionParked         = "Parked"
	ConditionOpen           = "Open"
	ConditionLit            = "Lit"
	ConditionCooling        = "Cooling"
	ConditionSafe           = "Safe"
	ConditionSafetyArmed    = "SafetyArmed"
	ConditionParkedBySafety = "ParkedBySafety"
	// ConditionPlugged: the hardware a device's claim was given is still published by its
	// node (a device with a claim, while a reservation runs it).
	ConditionPlugged = "Plugged"
)

// TelescopeParent places a resource on a Telescope. Without it the resource is on the shelf.
type TelescopeParent struct {
	// The Telescope, in this namespace, this resource belongs to. Empty means on the shelf:
	// no reservation uses it.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Telescope string `json:"telescope,omitempty"`
}

// ObservatoryParent places a resource on an Observatory: the site's own devices, served by
// the observatory's INDI server and shared by all its telescopes.
type ObservatoryParent struct {
	// The Observatory, in this namespace, this resource belongs to. Empty means on the shelf:
	// no reservation uses it.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Observatory string `json:"observatory,omitempty"`
}

// OpticalTrainParent places a resource on an OpticalTrain: the devices in the light path
// behind one tube.
type OpticalTrainParent struct {
	// The OpticalTrain, in this namespace, this resource belongs to. Empty means on the shelf:
	// no reservation uses it.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	OpticalTrain string `json:"opticalTrain,omitempty"`
}

// TelescopeOrObservatoryParent places a resource that may serve either one telescope or the
// whole site, but not both.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.telescope) && has(self.observatory))",message="set at most one of spec.telescope and spec.observatory"
type TelescopeOrObservatoryParent struct {
	TelescopeParent   `json:",inline"`
	ObservatoryParent `json:",inline"`
}

// Condition is one aspect of a resource's state, in the shape of metav1.Condition but with an
// optional message.
type Condition struct {
	// The aspect this condition describes, such as Ready, ParentFound or Parked.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Type string `json:"type"`

	// Whether the condition holds: True, False, or Unknown.
	// +required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status metav1.ConditionStatus `json:"status"`

	// The metadata.generation the condition was set for.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// When the status last changed; a new reason or message alone does not move it.
	// +required
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`

	// A CamelCase word for why the condition is as it is, such as NoParent or Moving.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason"`

	// What a person needs to know, naming the resource, such as "Dome lab is parked".
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`
}

// StatusBase is what every status starts with.
type StatusBase struct {
	// The metadata.generation this status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// The latest observations of the resource's state, one per type.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []Condition `json:"conditions,omitempty"`
}

// Endpoint is where a client reaches a Service the runner created.
type Endpoint struct {
	// The Service's name, such as east-telescope.
	// +optional
	Service string `json:"service,omitempty"`

	// The Service's DNS name inside the cluster, such as east-telescope.observatory.svc.
	// +optional
	Host string `json:"host,omitempty"`

	// The Service's port: 7624 for an INDI server, 4400 for PHD2's event server.
	// +optional
	Port int32 `json:"port,omitempty"`
}

// Server is an INDI server the runner runs, and where it runs.
type Server struct {
	Endpoint `json:",inline"`

	// The server's pod, such as east-telescope.
	// +optional
	Pod string `json:"pod,omitempty"`

	// The node the pod runs on.
	// +optional
	Node string `json:"node,omitempty"`
}

// RunState is how far a step, a procedure run or an action got.
//
// +kubebuilder:validation:Enum=Pending;Running;Done;Failed;Skipped
type RunState string

// The run states.
const (
	RunPending RunState = "Pending"
	RunRunning RunState = "Running"
	RunDone    RunState = "Done"
	RunFailed  RunState = "Failed"
	RunSkipped RunState = "Skipped"
)

// RunRecord is the state and times of one run. Deadlines count from startTime, so they
// survive a restart of the runner.
type RunRecord struct {
	// Pending, Running, Done, Failed, or Skipped (nothing to do, or no longer due).
	// +optional
	State RunState `json:"state,omitempty"`

	// When the run started.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// When the run ended.
	// +optional
	StopTime *metav1.Time `json:"stopTime,omitempty"`

	// What happened, naming the devices involved, or why it failed.
	// +optional
	Summary string `json:"summary,omitempty"`
}

// ActionRecord is the record of one action of a step or a procedure.
type ActionRecord struct {
	// The kind of the resource the action ran on.
	// +optional
	Kind Kind `json:"kind,omitempty"`

	// The name of that resource.
	// +optional
	Name string `json:"name,omitempty"`

	// What the action does, such as "state: Parked", "cool: -10", or "job".
	// +optional
	Action string `json:"action,omitempty"`

	RunRecord `json:",inline"`
}

// ProcedureRecord is the record of one run of a procedure on a resource. The runner resumes
// from it after a restart and re-runs the actions that are not Done.
type ProcedureRecord struct {
	// Which procedure ran: activation, deactivation, or triggers[i].
	// +required
	// +kubebuilder:validation:MinLength=1
	Trigger string `json:"trigger"`

	// When the run became due: for a trigger, the transition time of its condition.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`

	RunRecord `json:",inline"`

	// One record per action, in the procedure's order.
	// +optional
	Actions []ActionRecord `json:"actions,omitempty"`
}

// DeviceSummary names a device and its phase, for the status of what it belongs to.
type DeviceSummary struct {
	// The device's kind, such as Mount.
	// +required
	Kind Kind `json:"kind"`

	// The device's name.
	// +required
	Name string `json:"name"`

	// The device's status.phase.
	// +optional
	Phase DevicePhase `json:"phase,omitempty"`
}
