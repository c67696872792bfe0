// The Observatory kind: a site, where its telescopes stand and what its own devices (dome,
// weather station) share. The runner starts the site once for all its telescopes, runs its
// INDI server (<name>-observatory) while any of them is held; the site guard on that server
// locks the dome and the mounts against each other across servers, and parks the site on a
// weather Alert or when the runner's heartbeat stops, with the runner gone.

package v1alpha1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Observatory is a site with telescopes and shared devices.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=observatories,singular=observatory,shortName=obs,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="an Observatory name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Weather",type=string,JSONPath=`.status.weather`
// +kubebuilder:printcolumn:name="Sky",type=string,JSONPath=`.status.sky.darkness`
// +kubebuilder:printcolumn:name="Sun",type=string,JSONPath=`.status.display.sun`
// +kubebuilder:printcolumn:name="Moon",type=string,JSONPath=`.status.display.moon`
// +kubebuilder:printcolumn:name="Dusk",type=string,JSONPath=`.status.display.dusk`
// +kubebuilder:printcolumn:name="Dawn",type=string,JSONPath=`.status.display.dawn`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Latitude",type=string,priority=1,JSONPath=`.status.display.latitude`
// +kubebuilder:printcolumn:name="Longitude",type=string,priority=1,JSONPath=`.status.display.longitude`
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

	// What protects the site while the runner (worker, Temporal, API server) is away.
	// +optional
	Safety Safety `json:"safety,omitempty"`

	// What observers may book at the site, and who goes first (docs/booking.md).
	// +optional
	Booking *Booking `json:"booking,omitempty"`

	Procedures `json:",inline"`
}

// Safety sets the site guard, the INDI driver on the site's server that guards the site in
// real time: it parks every mount and then closes every dome when a weather station reports
// Alert, when the runner's heartbeat stops for longer than heartbeatTimeout, or while the Sun
// is above sunAltitude.
type Safety struct {
	// How long the runner's heartbeat may stop while a reservation is Ready before the site
	// guard parks every mount and then closes every dome, as a Go duration ("5m"). A worker
	// that restarts within it causes nothing. "0s" turns the heartbeat watch off; the weather
	// interlock and the dome and mount locks stay on. Defaults to 5m.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	HeartbeatTimeout *metav1.Duration `json:"heartbeatTimeout,omitempty"`

	// The Sun's altitude in degrees (its centre, without refraction) above which the site
	// guard parks every mount and then closes every dome, and keeps them so until the Sun is
	// below it again: direct sunlight through an open telescope can ruin a camera, and dawn
	// comes whatever the schedule says. The guard computes it from spec.location and its own
	// clock, with the runner gone as with it there. Defaults to -6, civil dawn: about half an
	// hour before sunrise at mid-latitudes, time to park and close. Raise it toward 0 to take
	// twilight flats; 90 turns the watch off (a solar telescope, or simulators observing by
	// day).
	// +optional
	// +kubebuilder:validation:Minimum=-18
	// +kubebuilder:validation:Maximum=90
	SunAltitude *float64 `json:"sunAltitude,omitempty"`
}

// DefaultSunAltitude is Safety.SunAltitude when it is not set: civil dawn.
const DefaultSunAltitude = -6.0

// SunAltitudeOrDefault is the Sun's altitude limit in force.
func (s Safety) SunAltitudeOrDefault() float64 {
	if s.SunAltitude == nil {
		return DefaultSunAltitude
	}
	return *s.SunAltitude
}

// DefaultHeartbeatTimeout is Safety.HeartbeatTimeout when it is not set: long enough for a
// worker to be replaced (about a minute) without the night stopping, short enough that an
// unattended site does not run on for long with no one to end its night.
const DefaultHeartbeatTimeout = 5 * time.Minute

// HeartbeatTimeoutOrDefault is the heartbeat timeout in force.
func (s Safety) HeartbeatTimeoutOrDefault() time.Duration {
	if s.HeartbeatTimeout == nil {
		return DefaultHeartbeatTimeout
	}
	return s.HeartbeatTimeout.Duration
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
	// telescope's activation to its last one's deactivation), LocksRelayed (absent
	// without a Dome), SafetyArmed (which of the site guard's layers are on, while the site
	// runs) and ParkedBySafety (the site guard's last park: True once it has finished, False
	// with reason SafetyParking or SafetyParkFailing while the guard parks the site); and the
	// sky's, for triggers: AstronomicalNight, NauticalNight, CivilNight and MoonUp.
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

	// The sky over the site, computed from spec.location and kept up to date every few
	// minutes while the runner runs.
	// +optional
	Sky *Sky `json:"sky,omitempty"`

	// Values as text for people: latitude and longitude; the Sun's altitude, the Moon's
	// illumination and phase, and tonight's astronomical dusk and dawn (UTC).
	// +optional
	Display map[string]string `json:"display,omitempty"`

	// Records of the site's procedure runs, so a restarted runner resumes them.
	// +optional
	Procedures []ProcedureRecord `json:"procedures,omitempty"`

	// The last time the site guard parked the site, as the runner reported it.
	// +optional
	LastSafetyPark *SafetyPark `json:"lastSafetyPark,omitempty"`
}

// Sky is the sky over a site at one time: where the Sun and the Moon stand, how dark it is,
// and when tonight's astronomical darkness begins and ends. Altitudes are of the body's
// centre in degrees, without refraction; times are UTC.
type Sky struct {
	// When the runner computed it.
	Time metav1.Time `json:"time"`
	// The Sun's altitude, to a tenth of a degree.
	SunAltitude float64 `json:"sunAltitude"`
	// The Moon's altitude, to a tenth of a degree.
	MoonAltitude float64 `json:"moonAltitude"`
	// The lit part of the Moon's disc in percent: 0 at new Moon, 100 at full.
	MoonIllumination int32 `json:"moonIllumination"`
	// The Moon's phase in words: New, Waxing Crescent, First Quarter, Waxing Gibbous, Full,
	// Waning Gibbous, Last Quarter or Waning Crescent.
	MoonPhase string `json:"moonPhase"`
	// How dark it is: Day, Civil Twilight, Nautical Twilight, Astronomical Twilight, or Night
	// (the Sun more than 18° below the horizon: dark enough to observe anything).
	Darkness string `json:"darkness"`
	// When tonight's astronomical darkness begins: tonight is the night under way, or by day
	// the coming one. Absent when it has none (a summer night far from the equator, the
	// polar day), or when it began before the night's local noon (the polar night).
	// +optional
	Dusk *metav1.Time `json:"dusk,omitempty"`
	// When tonight's astronomical darkness ends; absent as dusk is.
	// +optional
	Dawn *metav1.Time `json:"dawn,omitempty"`
	// Tonight in words: "astronomical night 17:58 to 05:50 UTC", or why there is none.
	Tonight string `json:"tonight"`
}

// SafetyPark is one time the site guard parked the site.
type SafetyPark struct {
	// When the guard began to park.
	Time metav1.Time `json:"time"`
	// Why: Weather (a station reported Alert), Heartbeat (the runner's stopped) or Sun (it
	// rose above spec.safety.sunAltitude).
	Cause string `json:"cause"`
	// What it did, when and why, in words.
	Message string `json:"message"`
	// Whether the runner was away (its heartbeat missing) when the guard parked.
	RunnerAway bool `json:"runnerAway"`
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
