// A Reservation's status as pure composition: its steps, phase, conditions, endpoint, deadlines,
// times and Events, from begin to release.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var (
	rt0   = time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	facts = ReservationFacts{Telescope: "east", Holder: "ada", Generation: 3,
		Endpoint: &obsv1.Endpoint{Service: "east-telescope", Host: "east-telescope.observatory.svc", Port: 7624}}
)

// at is rt0 plus n seconds.
func at(n int) time.Time { return rt0.Add(time.Duration(n) * time.Second) }

// upTo is a status whose steps before the named one are Done (each taking 10 s) and whose
// named step runs with summary, composed.
func upTo(step, summary string) obsv1.ReservationStatus {
	st := ReservationBegun(obsv1.ReservationStatus{})
	n := 0
	for _, s := range append(append([]string{}, ActivationSteps...), DeactivationSteps...) {
		if s == StepAbort {
			st = ReservationEnded(st, at(n))
		}
		st = StepRunning(st, s, "", at(n))
		if s == step {
			st = StepSummary(st, s, summary)
			break
		}
		n += 10
		st = StepEnded(st, s, obsv1.RunDone, "did "+s, nil, at(n))
	}
	return ComposeReservation(st, facts, at(n))
}

func states(st obsv1.ReservationStatus) map[string]obsv1.RunState {
	out := map[string]obsv1.RunState{}
	for _, r := range st.Steps {
		out[r.Name] = r.State
	}
	return out
}

func TestABegunReservationHasTheEightActivationStepsPendingAndIsScheduled(t *testing.T) {
	st := ComposeReservation(ReservationBegun(obsv1.ReservationStatus{}), facts, rt0)
	require.Len(t, st.Steps, 8)
	for i, r := range st.Steps {
		assert.Equal(t, ActivationSteps[i], r.Name)
		assert.Equal(t, obsv1.RunPending, r.State)
	}
	assert.Equal(t, obsv1.ReservationScheduled, st.Phase)
	assert.Equal(t, StepWait, st.Step)
	assert.Equal(t, int64(3), st.ObservedGeneration)
}

func TestABegunReservationKeepsTheStepsAlreadyRecorded(t *testing.T) {
	rec := upTo(StepConnect, "")
	again := ReservationBegun(rec)
	assert.Equal(t, rec.Steps, again.Steps)
}

func TestThePhaseAndTheStepFollowTheSteps(t *testing.T) {
	released := StepEnded(upTo(StepStopSite, ""), StepStopSite, obsv1.RunDone, "", nil, at(500))
	failed := StepEnded(upTo(StepConnect, ""), StepConnect, obsv1.RunFailed, "Failed: Mount east is in Alert", nil, at(100))
	failedThenEnded := ReservationEnded(failed, at(200))
	failedDeact := StepEnded(upTo(StepDisconnect, ""), StepDisconnect, obsv1.RunFailed, "Failed: x", nil, at(300))
	ready := StepEnded(upTo(StepStartGuider, ""), StepStartGuider, obsv1.RunSkipped, "no Guider", nil, at(100))
	endedEarly := ReservationEnded(StepRunning(ReservationBegun(obsv1.ReservationStatus{}), StepWait, "", rt0), at(5))
	for _, tc := range []struct {
		name  string
		st    obsv1.ReservationStatus
		phase obsv1.ReservationPhase
		step  string
	}{
		{"waiting", upTo(StepWait, "Telescope east is held by Reservation bob"), obsv1.ReservationScheduled, StepWait},
		{"powering on", upTo(StepPowerOn, ""), obsv1.ReservationActivating, StepPowerOn},
		{"ready with the guider skipped", ready, obsv1.ReservationReady, ""},
		{"a failed activation step", failed, obsv1.ReservationFailed, StepConnect},
		{"a failed activation step, then the end", failedThenEnded, obsv1.ReservationDeactivating, StepAbort},
		{"disconnecting", upTo(StepDisconnect, ""), obsv1.ReservationDeactivating, StepDisconnect},
		{"a failed deactivation step", failedDeact, obsv1.ReservationFailed, StepDisconnect},
		{"every deactivation step done", released, obsv1.ReservationReleased, ""},
		{"ended before it took the telescope", endedEarly, obsv1.ReservationReleased, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := ComposeReservation(tc.st, facts, at(1000))
			assert.Equal(t, tc.phase, st.Phase)
			assert.Equal(t, tc.step, st.Step)
		})
	}
}

func TestTheConditionsSayWhatTheSpecSays(t *testing.T) {
	ready := StepEnded(upTo(StepStartGuider, ""), StepStartGuider, obsv1.RunDone, "", nil, at(100))
	released := StepEnded(upTo(StepStopSite, ""), StepStopSite, obsv1.RunDone, "", nil, at(500))
	type cond struct {
		status          metav1.ConditionStatus
		reason, message string
	}
	for _, tc := range []struct {
		name        string
		st          obsv1.ReservationStatus
		ready, safe cond
	}{
		{"a waiting step names what it waits for", upTo(StepWait, "Telescope east is held by Reservation bob"),
			cond{"False", "Wait", "Telescope east is held by Reservation bob"},
			cond{"False", "Scheduled", "Waiting to activate Telescope east"}},
		{"a running step without a summary is Running", upTo(StepStartDevices, ""),
			cond{"False", "StartDevices", "Running"},
			cond{"False", "Activating", "Activating Telescope east"}},
		{"ready gives the address", ready,
			cond{"True", "Ready", "Ready at east-telescope.observatory.svc:7624"},
			cond{"False", "InUse", "In use by ada"}},
		{"a failed step", StepEnded(upTo(StepConnect, ""), StepConnect, obsv1.RunFailed, "Failed: Mount east is in Alert", nil, at(100)),
			cond{"False", "StepFailed", "Failed: Mount east is in Alert"},
			cond{"False", "Failed", "Failed Telescope east"}},
		{"a step past its deadline", StepEnded(upTo(StepPowerOn, ""), StepPowerOn, obsv1.RunFailed, "timed out after 10m: pod east-switch Ready", nil, at(700)),
			cond{"False", "StepTimedOut", "timed out after 10m: pod east-switch Ready"},
			cond{"False", "Failed", "Failed Telescope east"}},
		{"deactivating", upTo(StepPowerOff, ""),
			cond{"False", "PowerOff", "Running"},
			cond{"False", "Deactivating", "Deactivating Telescope east"}},
		{"released", released,
			cond{"False", "Released", "Released Telescope east"},
			cond{"True", "Released", "Safe to power off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := ComposeReservation(tc.st, facts, at(1000))
			r, s := ReservationCondition(&st, obsv1.ConditionReady), ReservationCondition(&st, obsv1.ConditionSafeToPowerOff)
			require.NotNil(t, r)
			require.NotNil(t, s)
			assert.Equal(t, tc.ready, cond{r.Status, r.Reason, r.Message})
			assert.Equal(t, tc.safe, cond{s.Status, s.Reason, s.Message})
			assert.Equal(t, int64(3), r.ObservedGeneration)
		})
	}
}

func TestTheEndpointIsShownOnlyWhileReady(t *testing.T) {
	assert.Nil(t, ComposeReservation(upTo(StepActivation, ""), facts, rt0).Endpoint)
	ready := ComposeReservation(StepEnded(upTo(StepStartGuider, ""), StepStartGuider, obsv1.RunDone, "", nil, at(100)), facts, at(100))
	require.NotNil(t, ready.Endpoint)
	assert.Equal(t, int32(7624), ready.Endpoint.Port)
	assert.Nil(t, ComposeReservation(ReservationEnded(ready, at(200)), facts, at(200)).Endpoint)
}

func TestTheBookingIsConfirmedInAConditionAndAWarningSaysWhenItIsNot(t *testing.T) {
	waiting := ComposeReservation(ReservationBegun(obsv1.ReservationStatus{}), facts, rt0)
	f := facts
	f.Booking = &Booking{Refused: true, Reason: ReasonTooLong, Message: "Refused: it lasts 6h"}
	refused := ComposeReservation(waiting, f, at(1))
	c := ReservationCondition(&refused, obsv1.ConditionConfirmed)
	require.NotNil(t, c)
	assert.Equal(t, obsv1.Condition{Type: obsv1.ConditionConfirmed, Status: metav1.ConditionFalse, Reason: ReasonTooLong,
		Message: "Refused: it lasts 6h", ObservedGeneration: facts.Generation, LastTransitionTime: metav1.NewTime(at(1))}, *c)
	assert.Equal(t, []Event{{Type: corev1.EventTypeWarning, Reason: ReasonTooLong, Message: "Refused: it lasts 6h"}},
		ReservationEvents(&waiting, &refused, "east"))

	f.Booking = &Booking{Confirmed: true, Reason: ReasonConfirmed, Message: "Within the site's booking rules"}
	confirmed := ComposeReservation(refused, f, at(2))
	assert.Equal(t, metav1.ConditionTrue, ReservationCondition(&confirmed, obsv1.ConditionConfirmed).Status)
	assert.Equal(t, []Event{{Type: corev1.EventTypeNormal, Reason: ReasonConfirmed, Message: "Within the site's booking rules"}},
		ReservationEvents(&refused, &confirmed, "east"))
	kept := ComposeReservation(confirmed, facts, at(3))
	assert.Equal(t, ReservationCondition(&confirmed, obsv1.ConditionConfirmed), ReservationCondition(&kept, obsv1.ConditionConfirmed),
		"once the telescope is taken, the booking is not checked and the condition stays")
}

func TestABookingQueuedBehindAnotherIsConfirmedOnceItTakesTheTelescope(t *testing.T) {
	f := facts
	f.Booking = &Booking{Reason: ReasonQueued, Message: "Overlaps first: it waits for it in the telescope's queue"}
	queued := ComposeReservation(ReservationBegun(obsv1.ReservationStatus{}), f, rt0)
	assert.Equal(t, ReasonQueued, ReservationCondition(&queued, obsv1.ConditionConfirmed).Reason)

	taken := ComposeReservation(StepRunning(StepEnded(queued, StepWait, obsv1.RunDone, "", nil, at(1)), StepPowerOn, "", at(1)), facts, at(1))
	c := ReservationCondition(&taken, obsv1.ConditionConfirmed)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Equal(t, "Holds Telescope east: what it was queued behind is over", c.Message)
	assert.Contains(t, ReservationEvents(&queued, &taken, "east"), Event{Type: corev1.EventTypeNormal, Reason: ReasonConfirmed, Message: c.Message})
}

func TestATransitionTimeMovesOnlyWhenTheConditionsStatusChanges(t *testing.T) {
	st := ComposeReservation(upTo(StepPowerOn, ""), facts, at(10))
	before := ReservationCondition(&st, obsv1.ConditionReady).LastTransitionTime
	// A new step is a new reason and message, but Ready stays False.
	st = ComposeReservation(StepRunning(StepEnded(st, StepPowerOn, obsv1.RunDone, "", nil, at(20)), StepStartDevices, "", at(20)), facts, at(20))
	c := ReservationCondition(&st, obsv1.ConditionReady)
	assert.Equal(t, StepStartDevices, c.Reason)
	assert.Equal(t, before, c.LastTransitionTime)

	ready := ComposeReservation(StepEnded(upTo(StepStartGuider, ""), StepStartGuider, obsv1.RunDone, "", nil, at(100)), facts, at(100))
	prev := ComposeReservation(upTo(StepStartGuider, ""), facts, at(90))
	ready.Conditions = prev.Conditions
	ready = ComposeReservation(ready, facts, at(100))
	c = ReservationCondition(&ready, obsv1.ConditionReady)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.True(t, c.LastTransitionTime.Equal(&metav1.Time{Time: at(100)}), "Ready moved to True at %v", c.LastTransitionTime)
}

func TestAnEndSkipsTheUnfinishedActivationStepsAndAppendsTheSevenDeactivationSteps(t *testing.T) {
	st := ReservationEnded(upTo(StepConnect, ""), at(100))
	s := states(st)
	for _, name := range []string{StepWait, StepStartSite, StepPowerOn, StepStartDevices} {
		assert.Equal(t, obsv1.RunDone, s[name], name)
	}
	for _, name := range []string{StepConnect, StepConfigure, StepActivation, StepStartGuider} {
		assert.Equal(t, obsv1.RunSkipped, s[name], name)
		assert.Equal(t, SummaryEnded, FindStep(&st, name).Summary)
	}
	require.Len(t, st.Steps, 15)
	for i, name := range DeactivationSteps {
		assert.Equal(t, name, st.Steps[8+i].Name)
		assert.Equal(t, obsv1.RunPending, st.Steps[8+i].State)
	}
	assert.Equal(t, obsv1.ReservationDeactivating, ComposeReservation(st, facts, at(100)).Phase)
	assert.NotNil(t, FindStep(&st, StepConnect).StopTime, "the interrupted step stopped")
	assert.Nil(t, FindStep(&st, StepConfigure).StartTime, "a step that never ran has no start")
}

func TestAnEndBeforeTheTelescopeWasTakenSkipsEveryStepAndReleases(t *testing.T) {
	st := ReservationEnded(upTo(StepWait, "Telescope east is held by Reservation bob"), at(30))
	require.Len(t, st.Steps, 8, "no deactivation: nothing was activated")
	for _, r := range st.Steps {
		assert.Equal(t, obsv1.RunSkipped, r.State, r.Name)
		assert.Equal(t, SummaryEndedBeforeTaking, r.Summary, r.Name)
	}
	st = ComposeReservation(st, facts, at(30))
	assert.Equal(t, obsv1.ReservationReleased, st.Phase)
	assert.Equal(t, "Safe to power off", ReservationCondition(&st, obsv1.ConditionSafeToPowerOff).Message)
}

func TestAFailedActivationStepStaysFailedWhenTheReservationEnds(t *testing.T) {
	failed := StepEnded(upTo(StepConnect, ""), StepConnect, obsv1.RunFailed, "Failed: Mount east is in Alert", nil, at(100))
	st := ComposeReservation(ReservationEnded(failed, at(200)), facts, at(200))
	assert.Equal(t, obsv1.RunFailed, states(st)[StepConnect])
	assert.Equal(t, obsv1.RunSkipped, states(st)[StepConfigure])
	assert.Equal(t, StepAbort, st.Step)
}

func TestARetryStartsTheStepOverWithANewStartAndKeepsItsActions(t *testing.T) {
	acts := []obsv1.ActionRecord{{Kind: obsv1.KindMount, Name: "east", Action: "state: Unparked", RunRecord: obsv1.RunRecord{State: obsv1.RunDone}}}
	failed := StepEnded(upTo(StepActivation, ""), StepActivation, obsv1.RunFailed, "Failed: x", acts, at(100))
	again := StepRunning(failed, StepActivation, "", at(400))
	r := FindStep(&again, StepActivation)
	assert.Equal(t, obsv1.RunRunning, r.State)
	assert.True(t, r.StartTime.Equal(&metav1.Time{Time: at(400)}))
	assert.Nil(t, r.StopTime)
	assert.Empty(t, r.Summary)
	assert.Equal(t, acts, r.Actions)
}

func TestTimesAreKeptInWholeSecondsUTC(t *testing.T) {
	st := StepRunning(ReservationBegun(obsv1.ReservationStatus{}), StepWait, "", rt0.Add(1500*time.Millisecond).In(time.FixedZone("x", 3600)))
	assert.Equal(t, at(1), FindStep(&st, StepWait).StartTime.Time)
}

func TestTheStepDeadlinesAreTheSpecs(t *testing.T) {
	for step, d := range map[string]time.Duration{
		StepWait: 0, StepStartSite: 10 * time.Minute, StepPowerOn: 10 * time.Minute, StepStartDevices: 10 * time.Minute,
		StepConnect: 2 * time.Minute, StepConfigure: 2 * time.Minute, StepActivation: 0, StepStartGuider: 10 * time.Minute,
		StepAbort: 2 * time.Minute, StepDeactivation: 0, StepStopGuider: 2 * time.Minute, StepDisconnect: 2 * time.Minute,
		StepStopDevices: 2 * time.Minute, StepPowerOff: 5 * time.Minute, StepStopSite: 5 * time.Minute,
	} {
		assert.Equal(t, d, StepDeadline(step), step)
	}
}

func TestEachStepEndAndEachNewPhaseIsAnEvent(t *testing.T) {
	normal := func(reason, msg string) Event {
		return Event{Type: corev1.EventTypeNormal, Reason: reason, Message: msg}
	}
	warning := func(reason, msg string) Event {
		return Event{Type: corev1.EventTypeWarning, Reason: reason, Message: msg}
	}
	compose := func(st obsv1.ReservationStatus, n int) obsv1.ReservationStatus {
		return ComposeReservation(st, facts, at(n))
	}

	connecting := upTo(StepConnect, "")
	// upTo gives each step 10 s: Wait stopped at 10 s, Connect started at 40 s.
	guiding := upTo(StepStartGuider, "")
	ready := compose(StepEnded(guiding, StepStartGuider, obsv1.RunDone, "PHD2 connected", nil, at(79)), 79)
	stopping := upTo(StepStopSite, "")
	for _, tc := range []struct {
		name     string
		old, new obsv1.ReservationStatus
		want     []Event
	}{
		{"a step done", connecting, compose(StepEnded(connecting, StepConnect, obsv1.RunDone, "Connected Mount east", nil, at(59)), 59),
			[]Event{normal("Connect", "Done in 19 s: Connected Mount east")}},
		{"a step skipped", guiding, compose(StepEnded(guiding, StepStartGuider, obsv1.RunSkipped, "no Guider", nil, at(71)), 71),
			[]Event{normal("StartGuider", "Skipped: no Guider"), normal("Ready", "Ready in 61 s at east-telescope.observatory.svc:7624")}},
		{"ready", guiding, ready,
			[]Event{normal("StartGuider", "Done in 9 s: PHD2 connected"), normal("Ready", "Ready in 69 s at east-telescope.observatory.svc:7624")}},
		{"a step failed", connecting, compose(StepEnded(connecting, StepConnect, obsv1.RunFailed, "Failed: Mount east is in Alert", nil, at(50)), 50),
			[]Event{warning("StepFailed", "Connect: Failed: Mount east is in Alert")}},
		{"a step timed out", connecting, compose(StepEnded(connecting, StepConnect, obsv1.RunFailed, "timed out after 2m: Mount east", nil, at(160)), 160),
			[]Event{warning("StepTimedOut", "Connect: timed out after 2m: Mount east")}},
		{"the end of a ready reservation", ready, compose(StepRunning(ReservationEnded(ready, at(300)), StepAbort, "", at(300)), 300),
			[]Event{normal("Deactivating", "Deactivating Telescope east")}},
		{"released", stopping, compose(StepEnded(stopping, StepStopSite, obsv1.RunDone, "", nil, at(150)), 150),
			[]Event{normal("StopSite", "Done in 10 s"), normal("Released", "Released in 70 s: Telescope east is safe to power off")}},
		{"nothing changed", ready, ready, nil},
		{"a summary changed while waiting", upTo(StepWait, "a"), upTo(StepWait, "b"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ReservationEvents(&tc.old, &tc.new, "east"))
		})
	}
}

func TestAnEndBeforeTakingTheTelescopeIsReleasedInNoTime(t *testing.T) {
	waiting := upTo(StepWait, "x")
	st := ComposeReservation(ReservationEnded(waiting, at(30)), facts, at(30))
	assert.Equal(t, []Event{
		{Type: corev1.EventTypeNormal, Reason: "Wait", Message: "Skipped: " + SummaryEndedBeforeTaking},
		{Type: corev1.EventTypeNormal, Reason: "Released", Message: "Released in 0 s: Telescope east is safe to power off"},
	}, ReservationEvents(&waiting, &st, "east"))
}

func TestARetriedStepThatFailsAgainIsAnotherEvent(t *testing.T) {
	failed := ComposeReservation(StepEnded(upTo(StepConnect, ""), StepConnect, obsv1.RunFailed, "Failed: x", nil, at(50)), facts, at(50))
	running := ComposeReservation(StepRunning(failed, StepConnect, "", at(100)), facts, at(100))
	assert.Empty(t, ReservationEvents(&failed, &running, "east"))
	again := ComposeReservation(StepEnded(running, StepConnect, obsv1.RunFailed, "Failed: x", nil, at(110)), facts, at(110))
	assert.Len(t, ReservationEvents(&running, &again, "east"), 1)
	// The same failure recorded twice (a retried write) is not news.
	assert.Empty(t, ReservationEvents(&again, &again, "east"))
}

func TestTwoStatusesAreTheSameWhenTheySayTheSame(t *testing.T) {
	a := upTo(StepConnect, "x")
	b := *a.DeepCopy()
	assert.True(t, SameReservationStatus(&a, &b))
	// Times read back from the API server are another location with the same instant.
	b.Steps[0].StartTime = &metav1.Time{Time: b.Steps[0].StartTime.In(time.FixedZone("x", 3600))}
	assert.True(t, SameReservationStatus(&a, &b))
	for name, change := range map[string]func(s *obsv1.ReservationStatus){
		"a summary":   func(s *obsv1.ReservationStatus) { s.Steps[4].Summary = "y" },
		"a state":     func(s *obsv1.ReservationStatus) { s.Steps[5].State = obsv1.RunRunning },
		"a stop":      func(s *obsv1.ReservationStatus) { s.Steps[4].StopTime = stamp(rt0) },
		"an action":   func(s *obsv1.ReservationStatus) { s.Steps[4].Actions = []obsv1.ActionRecord{{Name: "m"}} },
		"a condition": func(s *obsv1.ReservationStatus) { s.Conditions[0].Message = "z" },
		"the phase":   func(s *obsv1.ReservationStatus) { s.Phase = obsv1.ReservationFailed },
		"an endpoint": func(s *obsv1.ReservationStatus) { s.Endpoint = &obsv1.Endpoint{Port: 1} },
		"a step more": func(s *obsv1.ReservationStatus) { s.Steps = append(s.Steps, obsv1.StepRecord{Name: "Abort"}) },
	} {
		c := *a.DeepCopy()
		change(&c)
		assert.False(t, SameReservationStatus(&a, &c), name)
	}
}
