// The site guard's trips as the runner shows them: the Observatory's ParkedBySafety while a
// trip is under way, failing, and finished, and the words for its causes.
package observatory

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/guard"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var tripTime = time.Date(2026, 12, 6, 23, 14, 5, 0, time.UTC)

const (
	alertCause  = "Weather Simulator reports Alert"
	beatStopped = "the heartbeat of Telescope east stopped"
	noParkCause = "Telescope Simulator of Telescope east did not park: timed out"
)

func TestAFinishedTripIsParkedBySafetyWithWhatTheGuardDidAndEveryCause(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseWeather, Reason: alertCause, Causes: []string{alertCause, beatStopped}, Finished: true,
		RunnerAway: true, Parked: []guard.Done{{Telescope: "east", Device: "Telescope Simulator"}}, Closed: []guard.Done{{Device: "Dome Simulator"}}}
	assert.Equal(t, obsv1.Condition{Type: obsv1.ConditionParkedBySafety, Status: metav1.ConditionTrue, Reason: kube.ReasonWeather,
		Message: "The site guard parked Telescope Simulator of Telescope east, then closed Dome Simulator at 23:14:05 UTC because " +
			alertCause + " and " + beatStopped + ", while the runner was away"}, SafetyTripCondition(trip))
}

func TestATripUnderWaySaysTheGuardIsParkingTheSite(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseHeartbeat, Reason: beatStopped, RunnerAway: true}
	assert.Equal(t, obsv1.Condition{Type: obsv1.ConditionParkedBySafety, Status: metav1.ConditionFalse, Reason: kube.ReasonSafetyParking,
		Message: "The site guard is parking the site since 23:14:05 UTC because " + beatStopped + ", while the runner was away"},
		SafetyTripCondition(trip))
}

func TestATripUnderWayThatFailsSaysWhatFailsInTheGuardsWordsAndThatItTriesAgain(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseWeather, Reason: alertCause, Failing: noParkCause}
	assert.Equal(t, obsv1.Condition{Type: obsv1.ConditionParkedBySafety, Status: metav1.ConditionFalse, Reason: kube.ReasonSafetyParkFailing,
		Message: "The site guard is parking the site since 23:14:05 UTC because " + alertCause + ", and fails: " + noParkCause + "; it tries again"},
		SafetyTripCondition(trip))
}

func TestAFailureTheGuardGotOverLeavesNoTraceInTheTripsCondition(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseWeather, Reason: alertCause, Failing: noParkCause}
	failing := SafetyTripCondition(trip)
	trip.Failing = ""
	parking := SafetyTripCondition(trip)
	assert.Equal(t, kube.ReasonSafetyParking, parking.Reason)
	assert.NotContains(t, parking.Message, noParkCause)
	assert.NotEqual(t, failing.Reason, parking.Reason, "the failure's end is a transition")
}

func TestAFinishedTripThatFailedSomewhereStillSaysParkedAndWhatFailed(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseWeather, Reason: alertCause, Finished: true, Failing: noParkCause,
		Failed: "not every mount reports parked, so the domes stay as they are"}
	c := SafetyTripCondition(trip)
	assert.Equal(t, metav1.ConditionTrue, c.Status, "the trip is over: the finished report replaces the failing one")
	assert.Equal(t, kube.ReasonWeather, c.Reason)
	assert.Contains(t, c.Message, "(not every mount reports parked, so the domes stay as they are)")
}

func TestADeviceTheGuardParkedWithoutTheRunnerSaysHowWhenAndEveryCause(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Reason: alertCause, Causes: []string{alertCause, beatStopped}, RunnerAway: true}
	assert.Equal(t, "Closed by the site guard at 23:14:05 UTC because "+alertCause+" and "+beatStopped+", while the runner was away",
		SafetyParkedDeviceMessage(obsv1.KindDome, trip))
	assert.Equal(t, "Parked by the site guard at 23:14:05 UTC because "+alertCause+" and "+beatStopped+", while the runner was away",
		SafetyParkedDeviceMessage(obsv1.KindMount, trip))
}

func TestAFinishedTripIsRecordedWithItsConditionInTheSameStatus(t *testing.T) {
	trip := guard.Trip{Time: tripTime.Add(300 * time.Millisecond), Kind: guard.CauseWeather, Reason: alertCause, Finished: true, RunnerAway: true}
	st := WithSafetyTrip(obsv1.ObservatoryStatus{}, trip, tripTime.Add(time.Minute))
	assert.Equal(t, &obsv1.SafetyPark{Time: metav1.NewTime(tripTime), Cause: guard.CauseWeather,
		Message: "The site guard parked nothing at 23:14:05 UTC because " + alertCause + ", while the runner was away", RunnerAway: true},
		st.LastSafetyPark)
	c := kube.ConditionOf(st.Conditions, obsv1.ConditionParkedBySafety)
	if assert.NotNil(t, c) {
		assert.Equal(t, metav1.ConditionTrue, c.Status)
		assert.Equal(t, st.LastSafetyPark.Message, c.Message)
	}
}

func TestATripUnderWayIsShownButTheLastRecordStays(t *testing.T) {
	last := &obsv1.SafetyPark{Time: metav1.NewTime(tripTime.Add(-time.Hour)), Cause: guard.CauseWeather, Message: "earlier"}
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseWeather, Reason: alertCause, Failing: noParkCause}
	st := WithSafetyTrip(obsv1.ObservatoryStatus{LastSafetyPark: last}, trip, tripTime)
	assert.Equal(t, last, st.LastSafetyPark)
	c := kube.ConditionOf(st.Conditions, obsv1.ConditionParkedBySafety)
	if assert.NotNil(t, c) {
		assert.Equal(t, kube.ReasonSafetyParkFailing, c.Reason)
	}
}

func TestALateViewOfATripUnderWayDoesNotReplaceItsFinishedReport(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseWeather, Reason: alertCause, Finished: true}
	reported := WithSafetyTrip(obsv1.ObservatoryStatus{}, trip, tripTime)
	trip.Finished, trip.Failing = false, noParkCause
	assert.Equal(t, reported, WithSafetyTrip(reported, trip, tripTime.Add(time.Second)))
}

func TestReportingATripAgainChangesNothing(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseHeartbeat, Reason: beatStopped, Finished: true, RunnerAway: true}
	once := WithSafetyTrip(obsv1.ObservatoryStatus{}, trip, tripTime)
	assert.Equal(t, once, WithSafetyTrip(once, trip, tripTime.Add(time.Minute)))
}

func TestTheFinishedReportReplacesWhatTheTripSaidWhileItFailed(t *testing.T) {
	trip := guard.Trip{Time: tripTime, Kind: guard.CauseWeather, Reason: alertCause, Failing: noParkCause}
	failing := WithSafetyTrip(obsv1.ObservatoryStatus{}, trip, tripTime)
	trip.Finished, trip.Failing = true, ""
	done := WithSafetyTrip(failing, trip, tripTime.Add(time.Minute))
	assert.Len(t, done.Conditions, 1)
	assert.Equal(t, SafetyTripCondition(trip).Message, done.Conditions[0].Message)
	assert.Equal(t, metav1.NewTime(tripTime.Add(time.Minute)), done.Conditions[0].LastTransitionTime, "False to True is a transition")
	assert.Nil(t, failing.LastSafetyPark, "the input is not changed")
}

func TestEveryTripSinceTheLastSeenIsReportedOldestFirstThenTheOneUnderWay(t *testing.T) {
	at := func(minutes int) guard.Trip {
		return guard.Trip{Time: tripTime.Add(time.Duration(minutes)*time.Minute + 300*time.Millisecond), Finished: true}
	}
	dawn, reopened, storm := at(0), at(5), at(9)
	storm.Finished = false
	finished, underWay := newTrips([]guard.Trip{at(-60), dawn, reopened, storm}, at(-60).Time.Truncate(time.Second))
	assert.Equal(t, []guard.Trip{dawn, reopened}, finished)
	assert.Equal(t, &storm, underWay)

	finished, underWay = newTrips([]guard.Trip{dawn, reopened}, reopened.Time.Truncate(time.Second))
	assert.Empty(t, finished, "a trip recorded in whole seconds is seen")
	assert.Nil(t, underWay)
}
