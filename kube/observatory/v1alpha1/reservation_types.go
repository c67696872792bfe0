// The Reservation kind: one person's claim on a telescope for a time. The runner brings the
// telescope up in steps (Wait, StartSite, PowerOn, StartDevices, Connect, Configure,
// Activation, StartGuider), holds it Ready until spec.end or a delete, then takes it down
// (Abort, Deactivation, StopGuider, Disconnect, StopDevices, PowerOff, StopSite). The status
// records every step, so a restarted runner resumes where it stopped.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reservation holds a Telescope for one person for a time. A telescope has one holder at a
// time; the others wait in order of start.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=reservations,singular=reservation,shortName=rsv,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:selectablefield:JSONPath=".spec.holder"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Reservation name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Holder",type=string,JSONPath=`.spec.holder`
// +kubebuilder:printcolumn:name="Start",type=string,JSONPath=`.spec.start`
// +kubebuilder:printcolumn:name="End",type=string,JSONPath=`.spec.end`
// +kubebuilder:printcolumn:name="Confirmed",type=string,JSONPath=`.status.conditions[?(@.type=="Confirmed")].status`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Step",type=string,JSONPath=`.status.step`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Booking",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Confirmed")].message`
// +kubebuilder:printcolumn:name="Night",type=string,priority=1,JSONPath=`.spec.night`
// +kubebuilder:printcolumn:name="Host",type=string,priority=1,JSONPath=`.status.endpoint.host`
// +kubebuilder:printcolumn:name="Port",type=integer,priority=1,JSONPath=`.status.endpoint.port`
type Reservation struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters, like every name in this
	// group.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Which telescope, for whom, and when.
	// +required
	Spec ReservationSpec `json:"spec"`
	// The steps that bring the telescope up and down; written only by the runner.
	// +optional
	Status ReservationStatus `json:"status,omitempty"`
}

// ReservationSpec is a Reservation's spec.
//
// +kubebuilder:validation:XValidation:rule="!has(self.start) || !has(self.end) || self.end > self.start",message="spec.end must be after spec.start"
// +kubebuilder:validation:XValidation:rule="!has(self.night) || (!has(self.start) && !has(self.end))",message="spec.night replaces spec.start and spec.end: give the night, or the times"
// +kubebuilder:validation:XValidation:rule="!has(self.twilight) || has(self.night)",message="spec.twilight says which dusk and dawn of spec.night: give spec.night too"
type ReservationSpec struct {
	// The Telescope, in this namespace, to hold. It cannot change: create another Reservation
	// for another telescope.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.telescope cannot change; create another Reservation"
	Telescope string `json:"telescope"`

	// Who holds the telescope: the name of a Person. Only the users and groups that Person
	// names, and the site's administrators, may book, change or cancel it (docs/booking.md).
	// It cannot change: create another Reservation for another holder.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.holder cannot change; create another Reservation"
	Holder string `json:"holder"`

	// When the reservation may take the telescope; now when empty.
	// +optional
	Start *metav1.Time `json:"start,omitempty"`

	// When the runner takes the telescope down again; never when empty, so the reservation
	// lasts until it is deleted. A reservation ended this way stays Released until someone
	// deletes it.
	// +optional
	End *metav1.Time `json:"end,omitempty"`

	// The night to hold the telescope, by the sky instead of the clock: the date of its
	// evening at the site (YYYY-MM-DD, the site's solar day, by its longitude). The
	// reservation starts at that evening's dusk and ends at the next morning's dawn, of the
	// twilight spec.twilight names, at the Observatory's spec.location; status.night says
	// when they fall. Instead of start and end. A night with no such darkness (a summer
	// night far from the equator has no astronomical night) waits, saying so, until the
	// spec changes.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=date
	Night string `json:"night,omitempty"`

	// Which dusk and dawn bound spec.night: astronomical (the Sun 18° below the horizon: the
	// dark sky that faint objects need; the default), nautical (12°) or civil (6°).
	// +optional
	// +kubebuilder:validation:Enum=astronomical;nautical;civil
	Twilight string `json:"twilight,omitempty"`
}

// The twilights of ReservationSpec.Twilight.
const (
	TwilightAstronomical = "astronomical"
	TwilightNautical     = "nautical"
	TwilightCivil        = "civil"
)

// ReservationPhase is where a reservation is in its life.
//
// +kubebuilder:validation:Enum=Scheduled;Activating;Ready;Deactivating;Released;Failed
type ReservationPhase string

// The reservation phases.
const (
	ReservationScheduled    ReservationPhase = "Scheduled"
	ReservationActivating   ReservationPhase = "Activating"
	ReservationReady        ReservationPhase = "Ready"
	ReservationDeactivating ReservationPhase = "Deactivating"
	ReservationReleased     ReservationPhase = "Released"
	ReservationFailed       ReservationPhase = "Failed"
)

// ReservationStatus is how far the reservation got.
type ReservationStatus struct {
	StatusBase `json:",inline"`

	// Scheduled, Activating, Ready, Deactivating, Released, or Failed. Conditions: Ready
	// (its reason is the running step), SafeToPowerOff and Confirmed (whether the booking
	// passed the site's rules, checked until it takes the telescope).
	// +optional
	Phase ReservationPhase `json:"phase,omitempty"`

	// The step that runs now; empty when Ready or Released.
	// +optional
	Step string `json:"step,omitempty"`

	// Every step so far, in order: the 8 activation steps, then the 7 deactivation steps once
	// the reservation ends.
	// +optional
	// +listType=map
	// +listMapKey=name
	Steps []StepRecord `json:"steps,omitempty"`

	// Where the holder's INDI client connects: the telescope's INDI server. Set only while
	// Ready.
	// +optional
	Endpoint *Endpoint `json:"endpoint,omitempty"`

	// When spec.night's dusk and dawn fall at the site; set for a reservation by the sky.
	// +optional
	Night *ReservationNight `json:"night,omitempty"`
}

// ReservationNight is the night a reservation holds, resolved at its site.
type ReservationNight struct {
	// Its start: the evening's dusk.
	Start metav1.Time `json:"start"`
	// Its end: the morning's dawn.
	End metav1.Time `json:"end"`
	// The dusk and dawn it runs between, in words: "astronomical dusk to astronomical dawn".
	Between string `json:"between"`
}

// StepRecord is the record of one step of a reservation.
type StepRecord struct {
	// The step's name, such as StartDevices.
	// +required
	Name string `json:"name"`

	RunRecord `json:",inline"`

	// The step's actions on single resources, such as each procedure action it ran.
	// +optional
	Actions []ActionRecord `json:"actions,omitempty"`
}

// ReservationList is a list of reservations.
//
// +kubebuilder:object:root=true
type ReservationList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The reservations.
	Items []Reservation `json:"items"`
}
