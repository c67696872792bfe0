// The Telescope kind: one instrument at an Observatory, the unit a Reservation holds. While it
// is held, the runner serves the devices of the telescope and of its optical trains on one INDI
// server (<name>-telescope), the address the holder's KStars or other INDI client connects to.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Telescope is one instrument at an Observatory: its mount, optics and devices, held by one
// Reservation at a time.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=telescopes,singular=telescope,shortName=tel,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.observatory"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Telescope name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Observatory",type=string,JSONPath=`.spec.observatory`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Reservation",type=string,JSONPath=`.status.reservation.name`
// +kubebuilder:printcolumn:name="Holder",type=string,JSONPath=`.status.reservation.holder`
// +kubebuilder:printcolumn:name="Host",type=string,JSONPath=`.status.server.host`
// +kubebuilder:printcolumn:name="Port",type=integer,JSONPath=`.status.server.port`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Guider",type=string,priority=1,JSONPath=`.status.display.guider`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.server.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Telescope struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// telescope's INDI server <name>-telescope.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Where the telescope stands and what it does when it starts and stops.
	// +required
	Spec TelescopeSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status TelescopeStatus `json:"status,omitempty"`
}

// TelescopeSpec is a Telescope's spec.
type TelescopeSpec struct {
	// The Observatory, in this namespace, the telescope stands at.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Observatory string `json:"observatory"`

	Procedures `json:",inline"`
}

// TelescopeStatus is what the runner observes of a telescope.
type TelescopeStatus struct {
	StatusBase `json:",inline"`

	// Idle, Activating, Ready, Deactivating, or Error. Conditions: Ready, Active (from the
	// start of activation to the start of deactivation), and ParentFound.
	// +optional
	Phase ActivationPhase `json:"phase,omitempty"`

	// The telescope's INDI server, while a reservation holds it.
	// +optional
	Server *Server `json:"server,omitempty"`

	// The reservation that holds the telescope, if one does.
	// +optional
	Reservation *Holding `json:"reservation,omitempty"`

	// The names of the telescope's optical tubes.
	// +optional
	Tubes []string `json:"tubes,omitempty"`

	// The telescope's optical trains and the devices in each.
	// +optional
	Trains []TrainSummary `json:"trains,omitempty"`

	// The devices that belong to the telescope itself, such as its mount.
	// +optional
	Devices []DeviceSummary `json:"devices,omitempty"`

	// The telescope's Guider, if it has one.
	// +optional
	Guider *GuiderSummary `json:"guider,omitempty"`

	// Values as text for people: guider, such as "Ready, Guiding".
	// +optional
	Display map[string]string `json:"display,omitempty"`

	// Records of the telescope's procedure runs, so a restarted runner resumes them.
	// +optional
	Procedures []ProcedureRecord `json:"procedures,omitempty"`
}

// Holding names the reservation that holds a telescope and for whom.
type Holding struct {
	// The Reservation's name.
	// +optional
	Name string `json:"name,omitempty"`

	// The Reservation's spec.holder.
	// +optional
	Holder string `json:"holder,omitempty"`
}

// TrainSummary is one optical train of a telescope.
type TrainSummary struct {
	// The OpticalTrain's name.
	// +required
	Name string `json:"name"`

	// The devices in the train.
	// +optional
	Devices []DeviceSummary `json:"devices,omitempty"`
}

// GuiderSummary is a telescope's Guider as the telescope's status shows it.
type GuiderSummary struct {
	// The Guider's name.
	// +optional
	Name string `json:"name,omitempty"`

	// Whether the Guider's Ready condition is True: PHD2 runs with its camera and mount
	// connected.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// The reason of the Guider's Ready condition.
	// +optional
	Reason string `json:"reason,omitempty"`

	// The Guider's status.phase.
	// +optional
	Phase string `json:"phase,omitempty"`

	// The Guider's status.state, such as Guiding.
	// +optional
	State GuiderState `json:"state,omitempty"`
}

// TelescopeList is a list of telescopes.
//
// +kubebuilder:object:root=true
type TelescopeList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The telescopes.
	Items []Telescope `json:"items"`
}
