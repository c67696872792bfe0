// The dome and mount locks: a mount may not unpark while its dome is parked, and a dome may
// not park while a mount is unparked. The drivers enforce this themselves (DOME_POLICY,
// MOUNT_POLICY) from the park state of the device they snoop on; the dome runs on the
// observatory's INDI server and the mounts on each telescope's, so the site guard
// (indi/guard) relays the states between servers. These are the Observatory's conditions
// that show what the guard holds (LocksRelayed, SafetyArmed) and what it did
// (ParkedBySafety).
package kube

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/prop"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The reasons of the LocksRelayed, SafetyArmed and ParkedBySafety conditions.
const (
	ReasonRelaying = "Relaying"
	ReasonWaiting  = "Waiting"
	ReasonIdle     = "Idle"
	ReasonArmed    = "Armed"
	ReasonNotArmed = "NotArmed"
	// ReasonGuardRefused: the site guard speaks another protocol than the runner
	// (guard.Report.Speaks), so the runner does not arm it.
	ReasonGuardRefused = "GuardRefused"
	ReasonWeather      = "WeatherAlert"
	ReasonHeartbeat    = "HeartbeatLost"
	ReasonSunUp        = "SunUp"
	ReasonSafetyPark   = "ParkedBySafety" // the Event's reason
	// ReasonSafetyParking: the guard's trip is under way (ParkedBySafety=False).
	ReasonSafetyParking = "SafetyParking"
	// ReasonSafetyParkFailing: a park of the trip under way failed and the guard tries it
	// again (ParkedBySafety=False); also the reason of its Warning Event.
	ReasonSafetyParkFailing = "SafetyParkFailing"
)

// The INDI park vectors the locks snoop on: a mount's DOME_PARK of its dome, a dome's
// TELESCOPE_PARK of its mount.
const (
	DomeParkVector  = "DOME_PARK"
	MountParkVector = "TELESCOPE_PARK"
)

// ParkReport is what a dome or a mount reports of its park state.
type ParkReport struct {
	Label    string // "Mount east"
	Reported bool   // its driver defines the park vector (it runs and is connected)
	Parked   bool   // PARK is On
	Moving   bool   // the vector is Busy: parking or unparking
	// Released (mounts only): its telescope's reservation has ended its Deactivation, so a
	// silent mount no longer counts.
	Released bool
}

// ParkReportOf reads a device's park vector; ok says whether the driver defines it.
func ParkReportOf(label string, p prop.Property, ok bool) ParkReport {
	if !ok {
		return ParkReport{Label: label}
	}
	return ParkReport{Label: label, Reported: true, Parked: p.SwitchOn("PARK"), Moving: p.State == prop.Busy}
}

// DomeParked is the dome state relayed to the mounts: a dome that is silent or moving counts
// as parked, so no mount unparks under a dome that may be closing.
func DomeParked(d ParkReport) bool { return !d.Reported || d.Moving || d.Parked }

// MountsParked is the one state relayed to the dome: parked only when every mount is parked
// and still. A silent mount counts as unparked until its Deactivation has ended: it may be
// pointing out of a dome that would close on it.
func MountsParked(mounts []ParkReport) bool {
	for _, m := range mounts {
		switch {
		case !m.Reported && m.Released:
		case !m.Reported, m.Moving, !m.Parked:
			return false
		}
	}
	return true
}

// HoldsMounts says whether a reservation's silent mounts still count as unparked: from its
// first step until its Deactivation step has ended.
func HoldsMounts(st obsv1.ReservationStatus) bool {
	switch st.Phase {
	case "", obsv1.ReservationScheduled, obsv1.ReservationReleased:
		return false
	}
	rec := FindStep(&st, StepDeactivation)
	return rec == nil || rec.State == obsv1.RunPending || rec.State == obsv1.RunRunning
}

// LocksRelayedCondition is the Observatory's LocksRelayed while a reservation runs at it:
// True when the dome and every counted mount have reported, False/Waiting naming the first
// that has not.
func LocksRelayedCondition(dome ParkReport, mounts []ParkReport) obsv1.Condition {
	var silent, mountLabels []string
	if !dome.Reported {
		silent = append(silent, dome.Label)
	}
	for _, m := range mounts {
		mountLabels = append(mountLabels, m.Label)
		if !m.Reported && !m.Released {
			silent = append(silent, m.Label)
		}
	}
	if len(silent) > 0 {
		return obsv1.Condition{Type: obsv1.ConditionLocksRelayed, Status: metav1.ConditionFalse, Reason: ReasonWaiting,
			Message: "Waiting for the park state of " + strings.Join(silent, ", ")}
	}
	to := "no mount"
	if len(mountLabels) > 0 {
		to = strings.Join(mountLabels, ", ")
	}
	return obsv1.Condition{Type: obsv1.ConditionLocksRelayed, Status: metav1.ConditionTrue, Reason: ReasonRelaying,
		Message: "Relaying the park states of " + dome.Label + " and " + to}
}

// LocksIdleCondition is the Observatory's LocksRelayed once its server has stopped.
func LocksIdleCondition(observatory string) obsv1.Condition {
	return obsv1.Condition{Type: obsv1.ConditionLocksRelayed, Status: metav1.ConditionFalse, Reason: ReasonIdle,
		Message: "Nothing runs at Observatory " + observatory}
}

// SafetyArmedCondition is the Observatory's SafetyArmed while its site runs: the site guard's
// own words for which layers are on, or what is missing, and which build of the guard runs.
func SafetyArmedCondition(armed bool, message, version string) obsv1.Condition {
	if version != "" {
		message += " (site guard " + version + ")"
	}
	if armed {
		return obsv1.Condition{Type: obsv1.ConditionSafetyArmed, Status: metav1.ConditionTrue, Reason: ReasonArmed, Message: message}
	}
	return obsv1.Condition{Type: obsv1.ConditionSafetyArmed, Status: metav1.ConditionFalse, Reason: ReasonNotArmed, Message: message}
}

// GuardRefusedCondition is the Observatory's SafetyArmed when the runner will not arm its site
// guard: why, and what to do about it.
func GuardRefusedCondition(why, server string) obsv1.Condition {
	return obsv1.Condition{Type: obsv1.ConditionSafetyArmed, Status: metav1.ConditionFalse, Reason: ReasonGuardRefused,
		Message: "Not armed: " + why + "; delete the pod " + server + " so that it starts again from the image this runner names"}
}

// EventTypeOf is the type of the Event that a condition written alone posts when it changes:
// a Warning for a reason that asks a person to act, else Normal.
func EventTypeOf(c obsv1.Condition) string {
	if c.Reason == ReasonGuardRefused || c.Reason == ReasonUnplugged {
		return corev1.EventTypeWarning
	}
	return corev1.EventTypeNormal
}

// SafetyIdleCondition is the Observatory's SafetyArmed once its server has stopped: no guard
// runs, and nothing needs one.
func SafetyIdleCondition(observatory string) obsv1.Condition {
	return obsv1.Condition{Type: obsv1.ConditionSafetyArmed, Status: metav1.ConditionFalse, Reason: ReasonIdle,
		Message: "Nothing runs at Observatory " + observatory}
}

// ParkedBySafetyCondition is ParkedBySafety on the Observatory and on each Dome and Mount the
// site guard parked: why (the cause, Weather, Heartbeat or Sun) and what it did, in its words.
func ParkedBySafetyCondition(cause, message string) obsv1.Condition {
	reason := ReasonWeather
	switch cause {
	case "Heartbeat":
		reason = ReasonHeartbeat
	case "Sun":
		reason = ReasonSunUp
	}
	return obsv1.Condition{Type: obsv1.ConditionParkedBySafety, Status: metav1.ConditionTrue, Reason: reason, Message: message}
}
