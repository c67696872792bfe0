// Trigger rules: which resources a condition holds for, a trigger firing once per transition after
// its `for`, and a run waiting for its first unmet requirement.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var tt0 = time.Date(2030, 1, 1, 22, 0, 0, 0, time.UTC)

func obsCond(typ string, status metav1.ConditionStatus, at time.Time) obsv1.Condition {
	return obsv1.Condition{Type: typ, Status: status, LastTransitionTime: metav1.NewTime(at), Reason: typ}
}

func unsafeWhen(forDur string) obsv1.TriggerCondition {
	return obsv1.TriggerCondition{
		ConditionRef: obsv1.ConditionRef{Kind: obsv1.KindWeatherStation, Name: "lab", Type: "Safe", Status: metav1.ConditionFalse},
		For:          forDur,
	}
}

func TestAConditionHoldsForItsOwnerAKindOrEveryResourceOfAKind(t *testing.T) {
	dome := ResourceID{Kind: obsv1.KindDome, Name: "lab"}
	seen := []Observed{
		{Kind: obsv1.KindDome, Name: "lab", Conditions: []obsv1.Condition{obsCond("Parked", metav1.ConditionTrue, tt0)}},
		{Kind: obsv1.KindMount, Name: "east", Conditions: []obsv1.Condition{obsCond("Parked", metav1.ConditionTrue, tt0.Add(time.Minute))}},
		{Kind: obsv1.KindMount, Name: "west", Conditions: []obsv1.Condition{obsCond("Parked", metav1.ConditionTrue, tt0.Add(2*time.Minute))}},
	}
	holds, since := WhenHolds(dome, obsv1.ConditionRef{Type: "Parked"}, seen)
	assert.True(t, holds, "no kind is the owner")
	assert.Equal(t, tt0, since)

	holds, since = WhenHolds(dome, obsv1.ConditionRef{Kind: obsv1.KindMount, Type: "Parked"}, seen)
	assert.True(t, holds, "every Mount is parked")
	assert.Equal(t, tt0.Add(2*time.Minute), since, "since the last of them parked")

	seen[2].Conditions[0].Status = metav1.ConditionFalse
	holds, _ = WhenHolds(dome, obsv1.ConditionRef{Kind: obsv1.KindMount, Type: "Parked"}, seen)
	assert.False(t, holds, "one Mount is not parked")
	holds, _ = WhenHolds(dome, obsv1.ConditionRef{Kind: obsv1.KindMount, Name: "east", Type: "Parked"}, seen)
	assert.True(t, holds, "a named Mount is")

	holds, _ = WhenHolds(dome, obsv1.ConditionRef{Kind: obsv1.KindWeatherStation, Type: "Safe"}, seen)
	assert.False(t, holds, "no WeatherStation: nothing holds")
	holds, _ = WhenHolds(dome, obsv1.ConditionRef{Type: "Open"}, seen)
	assert.False(t, holds, "a condition not reported does not hold")
}

func TestATriggerFiresOncePerTransitionAfterItsFor(t *testing.T) {
	mount := ResourceID{Kind: obsv1.KindMount, Name: "east"}
	whens := []obsv1.TriggerCondition{unsafeWhen(""), unsafeWhen("20m")}
	weather := func(status metav1.ConditionStatus, at time.Time) []Observed {
		return []Observed{{Kind: obsv1.KindWeatherStation, Name: "lab", Conditions: []obsv1.Condition{obsCond("Safe", status, at)}}}
	}

	due, err := DueTriggers(mount, whens, nil, weather(metav1.ConditionFalse, tt0), false)
	require.NoError(t, err)
	assert.Equal(t, []TriggerRun{{Index: 0, Since: tt0, At: tt0}, {Index: 1, Since: tt0, At: tt0.Add(20 * time.Minute)}}, due)

	// The first ran; the second waits, Pending: only the second is still due.
	records := []obsv1.ProcedureRecord{
		{Trigger: "triggers[0]", Since: &metav1.Time{Time: tt0}, RunRecord: obsv1.RunRecord{State: obsv1.RunDone}},
		{Trigger: "triggers[1]", Since: &metav1.Time{Time: tt0}, RunRecord: obsv1.RunRecord{State: obsv1.RunPending}},
	}
	due, err = DueTriggers(mount, whens, records, weather(metav1.ConditionFalse, tt0), false)
	require.NoError(t, err)
	assert.Equal(t, []TriggerRun{{Index: 1, Since: tt0, At: tt0.Add(20 * time.Minute)}}, due)
	assert.Empty(t, StaleTriggers(records, due, len(whens)))

	// Calm before the 20 minutes: nothing is due, and the Pending run is let go.
	due, err = DueTriggers(mount, whens, records, weather(metav1.ConditionTrue, tt0.Add(5*time.Minute)), false)
	require.NoError(t, err)
	assert.Empty(t, due)
	assert.Equal(t, []int{1}, StaleTriggers(records, due, len(whens)))

	// Unsafe again: a new transition, so both fire again, the second 20 minutes on.
	again := tt0.Add(10 * time.Minute)
	due, err = DueTriggers(mount, whens, records, weather(metav1.ConditionFalse, again), false)
	require.NoError(t, err)
	assert.Equal(t, []TriggerRun{{Index: 0, Since: again, At: again}, {Index: 1, Since: again, At: again.Add(20 * time.Minute)}}, due)
	assert.Equal(t, []int{1}, StaleTriggers(records, due, len(whens)), "the earlier transition's Pending run is let go")

	// A run that began and whose worker died is due again, to complete.
	records[0].State = obsv1.RunRunning
	due, err = DueTriggers(mount, whens[:1], records, weather(metav1.ConditionFalse, tt0), false)
	require.NoError(t, err)
	assert.Equal(t, []TriggerRun{{Index: 0, Since: tt0, At: tt0}}, due)

	// A Failed run is due again only when the resource's retry annotation asks.
	records[0].State = obsv1.RunFailed
	due, err = DueTriggers(mount, whens[:1], records, weather(metav1.ConditionFalse, tt0), false)
	require.NoError(t, err)
	assert.Empty(t, due)
	due, err = DueTriggers(mount, whens[:1], records, weather(metav1.ConditionFalse, tt0), true)
	require.NoError(t, err)
	assert.Equal(t, []TriggerRun{{Index: 0, Since: tt0, At: tt0}}, due)
	due, err = DueTriggers(mount, whens[:1], records, weather(metav1.ConditionTrue, tt0.Add(time.Minute)), true)
	require.NoError(t, err)
	assert.Empty(t, due, "not when its condition no longer holds")
}

func TestATriggerWithAForThatIsNoDurationIsAnError(t *testing.T) {
	_, err := DueTriggers(ResourceID{Kind: obsv1.KindDome, Name: "lab"}, []obsv1.TriggerCondition{unsafeWhen("soon")}, nil, nil, false)
	require.EqualError(t, err, `Dome lab triggers[0].when.for: "soon" is not a Go duration such as 20m`)
	assert.Equal(t, "triggers[3]", TriggerRecord(3))
}

func TestARunWaitsForTheFirstRequirementThatDoesNotHold(t *testing.T) {
	dome := ResourceID{Kind: obsv1.KindDome, Name: "lab"}
	seen := []Observed{{Kind: obsv1.KindWeatherStation, Name: "lab", Conditions: []obsv1.Condition{obsCond("Safe", metav1.ConditionFalse, tt0)}}}
	safe := obsv1.ConditionRef{Kind: obsv1.KindWeatherStation, Name: "lab", Type: "Safe"}
	assert.Equal(t, "Waiting for WeatherStation lab Safe=True", Waiting(dome, []obsv1.ConditionRef{safe}, seen))
	assert.Equal(t, "Waiting for Dome lab Parked=False",
		Waiting(dome, []obsv1.ConditionRef{{Type: "Parked", Status: metav1.ConditionFalse}}, seen), "no kind is the owner")
	assert.Equal(t, "Waiting for Mount Parked=True", Waiting(dome, []obsv1.ConditionRef{{Kind: obsv1.KindMount, Type: "Parked"}}, seen))
	seen[0].Conditions[0].Status = metav1.ConditionTrue
	assert.Empty(t, Waiting(dome, []obsv1.ConditionRef{safe}, seen))
}

func TestADueRunStartsWaitsForItsRequirementsOrWaitsForItsFor(t *testing.T) {
	dome := ResourceID{Kind: obsv1.KindDome, Name: "lab"}
	seen := []Observed{{Kind: obsv1.KindWeatherStation, Name: "lab", Conditions: []obsv1.Condition{obsCond("Safe", metav1.ConditionFalse, tt0)}}}
	safe := obsv1.ConditionRef{Kind: obsv1.KindWeatherStation, Name: "lab", Type: "Safe"}
	now := tt0.Add(time.Minute)
	due := []TriggerRun{
		{Index: 0, Since: tt0, At: tt0},                       // starts now
		{Index: 1, Since: tt0, At: tt0},                       // waits for the weather
		{Index: 2, Since: tt0, At: tt0.Add(30 * time.Minute)}, // waits for its `for`
		{Index: 3, Since: tt0, At: tt0.Add(20 * time.Minute)}, // and so does this one, sooner
	}
	start, wait, next := SplitDue(dome, due, [][]obsv1.ConditionRef{nil, {safe}, nil, nil}, seen, now)
	assert.Equal(t, []TriggerRun{due[0]}, start)
	assert.Equal(t, []WaitingRun{
		{TriggerRun: due[1], Why: "Waiting for WeatherStation lab Safe=True"},
		{TriggerRun: due[2], Why: "Pending: starts at 2030-01-01T22:30:00Z if the condition still holds"},
		{TriggerRun: due[3], Why: "Pending: starts at 2030-01-01T22:20:00Z if the condition still holds"},
	}, wait)
	assert.Equal(t, tt0.Add(20*time.Minute), next)

	start, wait, next = SplitDue(dome, due[:1], [][]obsv1.ConditionRef{nil}, seen, now)
	assert.Equal(t, due[:1], start)
	assert.Empty(t, wait)
	assert.True(t, next.IsZero(), "nothing waits for its for")
}

func TestAPassReadsTheKindsItsReferencesNameAndTheOwnersForNone(t *testing.T) {
	kinds := map[obsv1.Kind]bool{}
	ConditionKinds(kinds, obsv1.KindDome, []obsv1.ConditionRef{{Kind: obsv1.KindWeatherStation, Type: "Safe"}, {Type: "Parked"}})
	ConditionKinds(kinds, obsv1.KindMount, nil)
	assert.Equal(t, map[obsv1.Kind]bool{obsv1.KindWeatherStation: true, obsv1.KindDome: true}, kinds)
}
