// The site guard's trips as the runner shows them: the Observatory's ParkedBySafety follows
// the guard's last trip, False while the guard parks the site (saying what fails, while
// something does and the guard tries it again) and True once it has finished, and each Dome
// and Mount the guard parked without the runner says so in its own ParkedBySafety. One
// condition type for the whole trip, so the finished report replaces what the trip said while
// under way, and no condition is left behind to be removed.
package observatory

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/guard"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// SafetyTripCondition is the Observatory's ParkedBySafety for the site guard's last trip.
func SafetyTripCondition(t guard.Trip) obsv1.Condition {
	if t.Finished {
		return kube.ParkedBySafetyCondition(t.Kind, "The site guard "+guard.TripWords(t))
	}
	since := "since " + t.Time.UTC().Format("15:04:05 MST") + " because " + guard.TripCauses(t)
	if t.RunnerAway {
		since += ", while the runner was away"
	}
	if t.Failing == "" {
		return obsv1.Condition{Type: obsv1.ConditionParkedBySafety, Status: metav1.ConditionFalse,
			Reason: kube.ReasonSafetyParking, Message: "The site guard is parking the site " + since}
	}
	return obsv1.Condition{Type: obsv1.ConditionParkedBySafety, Status: metav1.ConditionFalse, Reason: kube.ReasonSafetyParkFailing,
		Message: "The site guard is parking the site " + since + ", and fails: " + t.Failing + "; it tries again"}
}

// WithSafetyTrip is the Observatory's status with the guard's trip: its ParkedBySafety, and
// once the trip has finished its lastSafetyPark, the two in one write. A status whose
// lastSafetyPark holds the trip or a newer one is returned as it is: the finished report is
// there, and no observer's late view of the trip under way may replace it. The input is not
// changed.
func WithSafetyTrip(st obsv1.ObservatoryStatus, t guard.Trip, now time.Time) obsv1.ObservatoryStatus {
	at := t.Time.Truncate(time.Second) // lastSafetyPark keeps seconds
	if st.LastSafetyPark != nil && !st.LastSafetyPark.Time.Time.Before(at) {
		return st
	}
	st.Conditions = kube.WithCondition(st.Conditions, SafetyTripCondition(t), 0, now)
	if t.Finished {
		st.LastSafetyPark = &obsv1.SafetyPark{Time: metav1.NewTime(at), Cause: t.Kind,
			Message: "The site guard " + guard.TripWords(t), RunnerAway: t.RunnerAway}
	}
	return st
}

// SafetyParkedDeviceMessage is the ParkedBySafety message of a Dome or Mount the guard parked
// while the runner was away.
func SafetyParkedDeviceMessage(kind obsv1.Kind, t guard.Trip) string {
	verb := "Parked"
	if kind == obsv1.KindDome {
		verb = "Closed"
	}
	return verb + " by the site guard at " + t.Time.UTC().Format("15:04:05 MST") + " because " + guard.TripCauses(t) +
		", while the runner was away"
}
