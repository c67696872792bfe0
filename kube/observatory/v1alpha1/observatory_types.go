// The Observatory kind: a site, where its telescopes stand and what its own devices (dome,
// weather station) share. The runner starts the site once for all its telescopes, runs its
// INDI server (<name>-observatory) while any of them is held, and relays the dome's and the
// mounts' park states between servers so neither moves into the other.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Observatory is a site with telescopes and shared devices.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=observatories,singular=observatory,shortName=obs,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="an Observatory name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Latitude",type=string,JSONPath=`.status.display.latitude`
// +kubebuilder:printcolumn:name="Longitude",type=string,JSONPath=`.status.display.longitude`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Weather",type=string,JSONPath=`.status.weather`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Telescopes",type=string,priority=1,JSONPath=`.status.telescopes`
// +kubebuilder:printcolumn:name="Reservations",type=string,priority=1,JSONPath=`.status.reservations`
// +kubebuilder:printcolumn:name="Server",type=string,priority=1,JSONPath=`.status.server.host`
type Observatory struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// site's INDI server <name>-observatory.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Where the site is and what it does when it starts and stops.
	// +required
	Spec ObservatorySpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status ObservatoryStatus `json:"status,omitempty"`
}

// ObservatorySpec is an Observatory's spec.
type ObservatorySpec struct {
	// Where the site is on Earth. The runner writes it to the mounts and other devices that
	// need it (GEOGRAPHIC_COORD).
	// +required
	Location Location `json:"location"`

	Procedures `json:",inline"`
}

// Location is a place on Earth.
type Location struct {
	// Degrees north of the equator, -90 to 90.
	// +required
	// +kubebuilder:validation:Minimum=-90
	// +kubebuilder:validation:Maximum=90
	Latitude float64 `json:"latitude"`

	// Degrees east of Greenwich, -180 to 180 (west is negative).
	// +required
	// +kubebuilder:validation:Minimum=-180
	// +kubebuilder:validation:Maximum=180
	Longitude float64 `json:"longitude"`

	// Metres above sea level, -500 to 9000.
	// +optional
	// +kubebuilder:validation:Minimum=-500
	// +kubebuilder:validation:Maximum=9000
	Elevation float64 `json:"elevation,omitempty"`
}

// ActivationPhase is where a Telescope or an Observatory is between its reservations.
//
// +kubebuilder:validation:Enum=Idle;Activating;Ready;Deactivating;Error
type ActivationPhase string

// The activation phases.
const (
	PhaseIdle         ActivationPhase = "Idle"
	PhaseActivating   ActivationPhase = "Activating"
	PhaseReady        ActivationPhase = "Ready"
	PhaseDeactivating ActivationPhase = "Deactivating"
	PhaseError        ActivationPhase = "Error"
)

// ObservatoryStatus is what the runner observes of a site.
type ObservatoryStatus struct {
	StatusBase `json:",inline"`

	// Idle, Activating, Ready, Deactivating, or Error. Conditions: Active (from its first
	// telescope's activation to its last one's deactivation) and LocksRelayed (absent
	// without a Dome).
	// +optional
	Phase ActivationPhase `json:"phase,omitempty"`

	// The site's INDI server, while it runs.
	// +optional
	Server *Server `json:"server,omitempty"`

	// The names of the site's telescopes.
	// +optional
	Telescopes []string `json:"telescopes,omitempty"`

	// The devices that belong to the site itself.
	// +optional
	Devices []DeviceSummary `json:"devices,omitempty"`

	// The names of the reservations that hold one of the site's telescopes.
	// +optional
	Reservations []string `json:"reservations,omitempty"`

	// The worst verdict of the site's weather stations: Safe, Warning, Danger, or Unknown.
	// +optional
	Weather string `json:"weather,omitempty"`

	// Values as text for people: latitude and longitude.
	// +optional
	Display map[string]string `json:"display,omitempty"`

	// Records of the site's procedure runs, so a restarted runner resumes them.
	// +optional
	Procedures []ProcedureRecord `json:"procedures,omitempty"`
}

// ObservatoryList is a list of observatories.
//
// +kubebuilder:object:root=true
type ObservatoryList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The observatories.
	Items []Observatory `json:"items"`
}
