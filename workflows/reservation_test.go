// The lifecycle of a reservation, step by step, in a test environment with skipped time:
// Wait to Released, its start and end timers, deletes, failures and retries, deadlines.
package workflows

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var allWorkingSteps = append(append([]string{}, kube.ActivationSteps[1:]...), kube.DeactivationSteps...)

func TestAReservationRunsEveryStepFromWaitToReleased(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, allWorkingSteps, f.stepsCalled(), "each working step ran once, in kube's order")
	st := f.last()
	require.Len(t, st.Steps, 15)
	assert.Equal(t, obsv1.RunDone, stateOf(st, kube.StepWait))
	assert.Equal(t, "Took Telescope east", summaryOf(st, kube.StepWait))
	for _, s := range allWorkingSteps {
		assert.Equal(t, obsv1.RunDone, stateOf(st, s), s)
		r := kube.FindStep(&st, s)
		assert.NotNil(t, r.StartTime, s)
		assert.NotNil(t, r.StopTime, s)
	}
	assert.Equal(t, []obsv1.ReservationPhase{
		obsv1.ReservationScheduled, obsv1.ReservationActivating, obsv1.ReservationReady,
		obsv1.ReservationDeactivating, obsv1.ReservationReleased,
	}, f.phases())
	assert.Equal(t, obsv1.ReservationReleased, st.Phase)
	assert.Empty(t, st.Step)
	assert.Equal(t, "Reservation a was deleted; did Abort", summaryOf(st, kube.StepAbort))
	safe := kube.ReservationCondition(&st, obsv1.ConditionSafeToPowerOff)
	assert.Equal(t, metav1.ConditionTrue, safe.Status)
	assert.Equal(t, "Safe to power off", safe.Message)

	assert.True(t, f.wrote(func(s obsv1.ReservationStatus) bool {
		c := ready(s)
		return s.Phase == obsv1.ReservationReady && c.Status == metav1.ConditionTrue &&
			c.Message == "Ready at east-telescope.observatory.svc:7624" && s.Step == "" && s.Endpoint != nil
	}), "Ready was written with the address")
	assert.True(t, f.wrote(func(s obsv1.ReservationStatus) bool {
		c := ready(s)
		return s.Phase == obsv1.ReservationActivating && s.Step == kube.StepPowerOn && c.Reason == kube.StepPowerOn && c.Message == "Running"
	}), "a running step was written with its name as the reason")

	assert.Equal(t, []string{
		"+Reservation/a", "+Telescope/east", "+Observatory/lab",
		"-Observatory/lab", "-Telescope/east", "-Reservation/a",
	}, f.finalizerCalls, "the finalizers are taken as the reservation goes and given back last")
	assert.Equal(t, []string{
		"telescope take", "site start", "site done", "site activate", "site done",
		"site deactivate", "site done", "site stop", "site done", "telescope release",
	}, f.signals)

	var reasons []string
	for _, e := range f.events {
		reasons = append(reasons, e.Reason)
	}
	assert.Equal(t, append(append(append(append([]string{"Wait"}, kube.ActivationSteps[1:]...), "Ready"),
		append([]string{"Deactivating"}, kube.DeactivationSteps...)...), "Released"), reasons)
	assert.True(t, strings.HasPrefix(f.events[1].Message, "Done in 0 s: did StartSite"), f.events[1].Message)
}

func TestAReservationThatStartsLaterWaitsOnADurableTimer(t *testing.T) {
	f := newFakeCluster()
	start := rt0.Add(2 * time.Hour)
	f.res.Spec.Start = &metav1.Time{Time: start}
	env := newReservationEnv(t, f)
	f.change(3*time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	require.NotEmpty(t, f.calls)
	assert.Equal(t, kube.StepStartSite, f.calls[0].Step)
	assert.Equal(t, start, f.calls[0].At, "the first working step ran at the start, not before")
	first := f.writes[0]
	assert.Equal(t, obsv1.ReservationScheduled, first.Phase)
	assert.Equal(t, obsv1.RunPending, stateOf(first, kube.StepWait), "the first write has the 8 steps Pending")
	assert.Equal(t, "Waiting to activate Telescope east", kube.ReservationCondition(&first, obsv1.ConditionSafeToPowerOff).Message)
	waiting := f.writes[1]
	assert.Equal(t, obsv1.RunRunning, stateOf(waiting, kube.StepWait))
	assert.Equal(t, "Waiting until 2030-01-01T22:00:00Z", summaryOf(waiting, kube.StepWait))
	assert.Equal(t, "Waiting until 2030-01-01T22:00:00Z", ready(waiting).Message)
}

// A night booked by the sky, as ReadReservation resolves it: the Wait says for which dusk,
// the first working step runs at it, the reservation ends at the dawn, and the status says
// when both fall. A night that can never start says why, until the spec changes.
func TestANightBookedByTheSkyRunsFromItsDuskToItsDawn(t *testing.T) {
	f := newFakeCluster()
	dusk, dawn := rt0.Add(2*time.Hour), rt0.Add(12*time.Hour)
	f.res.Spec.Night = "2030-01-01"
	f.res.Night = &kube.NightPlan{Refused: "No astronomical night at the site on 2030-01-01: book another night"}
	night := &obsv1.ReservationNight{Start: metav1.NewTime(dusk), End: metav1.NewTime(dawn), Between: "astronomical dusk to astronomical dawn"}
	env := newReservationEnv(t, f)
	f.change(time.Hour, "updated", func(s *observatory.ReservationState) {
		s.Spec.Start, s.Spec.End = night.Start.DeepCopy(), night.End.DeepCopy()
		s.Night = &kube.NightPlan{Window: night, Dusk: "astronomical dusk"}
	})
	run(t, env)

	assert.Equal(t, "No astronomical night at the site on 2030-01-01: book another night", summaryOf(f.writes[1], kube.StepWait))
	var waiting *obsv1.ReservationStatus
	for i := range f.writes {
		if summaryOf(f.writes[i], kube.StepWait) == "Waiting for astronomical dusk at 2030-01-01 22:00 UTC" {
			waiting = &f.writes[i]
			break
		}
	}
	require.NotNil(t, waiting, "the Wait says for which dusk")
	require.NotNil(t, waiting.Night, "the status says when the night falls")
	assert.True(t, waiting.Night.Start.Equal(&night.Start) && waiting.Night.End.Equal(&night.End), "%+v", waiting.Night)
	assert.Equal(t, night.Between, waiting.Night.Between)
	assert.Equal(t, kube.StepStartSite, f.calls[0].Step)
	assert.Equal(t, dusk, f.calls[0].At, "the first working step ran at dusk")
	var abort stepCall
	for _, c := range f.calls {
		if c.Step == kube.StepAbort {
			abort = c
		}
	}
	assert.Equal(t, dawn, abort.At, "it ended at dawn")
	assert.Equal(t, obsv1.ReservationReleased, f.last().Phase)
}

func TestTheEndOfAReservationTakesTheTelescopeDownAndLeavesItReleased(t *testing.T) {
	f := newFakeCluster()
	end := rt0.Add(3 * time.Hour)
	f.res.Spec.End = &metav1.Time{Time: end}
	env := newReservationEnv(t, f)
	run(t, env)

	var abort stepCall
	for _, c := range f.calls {
		if c.Step == kube.StepAbort {
			abort = c
		}
	}
	assert.Equal(t, end, abort.At, "Abort ran at the end")
	assert.Equal(t, "Reservation a ended at 2030-01-01T23:00:00Z", abort.In.Why)
	st := f.last()
	assert.Equal(t, obsv1.ReservationReleased, st.Phase)
	assert.True(t, strings.HasPrefix(summaryOf(st, kube.StepAbort), "Reservation a ended at"))
	assert.Equal(t, "-Reservation/a", f.finalizerCalls[len(f.finalizerCalls)-1], "its finalizer goes, so a later delete is at once")
	assert.Equal(t, allWorkingSteps, f.stepsCalled())
}

func TestADeleteWhileReadyDeactivatesTheReservation(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	var readyBefore bool
	env.RegisterDelayedCallback(func() {
		f.mu.Lock()
		readyBefore = f.last().Phase == obsv1.ReservationReady
		f.mu.Unlock()
	}, 30*time.Minute)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.True(t, readyBefore, "the reservation was Ready before the delete")
	assert.Equal(t, obsv1.ReservationReleased, f.last().Phase)
	for _, c := range f.calls {
		if kube.IsDeactivationStep(c.Step) {
			assert.Equal(t, rt0.Add(time.Hour), c.At, "%s ran right after the delete", c.Step)
		}
	}
	assert.NotContains(t, f.finalizers, "Reservation/a")
}

// statusAt is the status f last wrote at after (test time) in env, once the run is over.
func (f *fakeCluster) statusAt(env interface {
	RegisterDelayedCallback(func(), time.Duration)
}, after time.Duration) *obsv1.ReservationStatus {
	var st obsv1.ReservationStatus
	env.RegisterDelayedCallback(func() {
		f.mu.Lock()
		st = f.last()
		f.mu.Unlock()
	}, after)
	return &st
}

func TestADeleteBeforeTheReservationTookTheTelescopeReleasesItAtOnce(t *testing.T) {
	f := newFakeCluster()
	f.heldBy = "first"
	env := newReservationEnv(t, f)
	waiting := f.statusAt(env, 30*time.Minute)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, "Telescope east is held by Reservation first", summaryOf(*waiting, kube.StepWait), "the Wait names the holder")
	assert.Equal(t, "Telescope east is held by Reservation first", ready(*waiting).Message)
	assert.Empty(t, f.calls, "no working step ran")
	st := f.last()
	require.Len(t, st.Steps, 8, "no deactivation steps: nothing was activated")
	for _, r := range st.Steps {
		assert.Equal(t, obsv1.RunSkipped, r.State, r.Name)
		assert.Equal(t, "the reservation ended before it took the telescope", r.Summary, r.Name)
	}
	assert.Equal(t, []obsv1.ReservationPhase{obsv1.ReservationScheduled, obsv1.ReservationReleased}, f.phases())
	assert.Equal(t, []string{"telescope take", "telescope release"}, f.signals, "it withdrew from the telescope's queue")
	assert.Equal(t, []string{"+Reservation/a", "-Reservation/a"}, f.finalizerCalls)
}

func TestAWaitingReservationSaysWhenItsTelescopeIsMissingOrBeingDeleted(t *testing.T) {
	f := newFakeCluster()
	f.res.Telescope = observatory.TargetState{Name: "east"}
	f.res.Observatory = observatory.TargetState{}
	env := newReservationEnv(t, f)
	var summaries []string
	see := func(after time.Duration) {
		env.RegisterDelayedCallback(func() {
			f.mu.Lock()
			summaries = append(summaries, summaryOf(f.last(), kube.StepWait))
			f.mu.Unlock()
		}, after)
	}
	see(time.Minute)
	f.change(10*time.Minute, "telescope", func(s *observatory.ReservationState) {
		s.Telescope = observatory.TargetState{Name: "east", Exists: true, Deleting: true}
		s.Observatory = observatory.TargetState{Name: "lab", Exists: true}
	})
	see(11 * time.Minute)
	f.change(20*time.Minute, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, []string{"Missing Telescope east", "Telescope east is being deleted"}, summaries)
	assert.Empty(t, f.calls)
	assert.NotContains(t, f.signals, "telescope take", "a telescope that is missing or being deleted is not asked for")
}

func TestADeletedTelescopeEndsTheSessionAndAbortSaysSo(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	f.change(time.Hour, "telescope", func(s *observatory.ReservationState) { s.Telescope.Deleting = true })
	run(t, env)

	st := f.last()
	assert.True(t, strings.HasPrefix(summaryOf(st, kube.StepAbort), "Telescope east was deleted"), summaryOf(st, kube.StepAbort))
	assert.Equal(t, obsv1.ReservationReleased, st.Phase)
	assert.Contains(t, f.finalizerCalls, "-Telescope/east", "the telescope's delete can go on")
}

// failRetryAndDelete runs a reservation whose answers fail a step: it returns the status
// seen half an hour in (Failed), then retries the step an hour in and deletes the
// reservation two hours in.
func failRetryAndDelete(t *testing.T, f *fakeCluster) obsv1.ReservationStatus {
	t.Helper()
	env := newReservationEnv(t, f)
	failed := f.statusAt(env, 30*time.Minute)
	f.change(time.Hour, "updated", func(s *observatory.ReservationState) { s.Retry = "please" })
	f.change(2*time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)
	return *failed
}

func TestAFailedStepLeavesTheReservationFailedUntilARetryRunsItAgain(t *testing.T) {
	f := newFakeCluster()
	f.answer = func(n int, in observatory.StepInput) (observatory.StepResult, error) {
		if in.Step == kube.StepConnect && n == 1 {
			return observatory.StepResult{}, temporal.NewNonRetryableApplicationError("Failed: Mount east is in Alert", observatory.ErrStepFailed, nil)
		}
		return observatory.StepResult{Summary: "did " + in.Step}, nil
	}
	failed := failRetryAndDelete(t, f)

	assert.Equal(t, obsv1.ReservationFailed, failed.Phase)
	assert.Equal(t, kube.StepConnect, failed.Step)
	assert.Equal(t, obsv1.RunFailed, stateOf(failed, kube.StepConnect))
	assert.Equal(t, obsv1.RunPending, stateOf(failed, kube.StepConfigure), "nothing after the failed step ran")
	c := ready(failed)
	assert.Equal(t, "StepFailed", c.Reason)
	assert.Equal(t, "Failed: Mount east is in Alert", c.Message)

	assert.Equal(t, []string{"please"}, f.retryRemoved, "the retry annotation was removed")
	var connects []time.Time
	for _, c := range f.calls {
		if c.Step == kube.StepConnect {
			connects = append(connects, c.At)
		}
	}
	assert.Equal(t, []time.Time{rt0, rt0.Add(time.Hour)}, connects, "the retry re-ran the failed step")
	assert.True(t, f.wrote(func(s obsv1.ReservationStatus) bool { return s.Phase == obsv1.ReservationReady }), "and the reservation went on to Ready")
	assert.Equal(t, obsv1.ReservationReleased, f.last().Phase)
	var warnings int
	for _, e := range f.events {
		if e.Type == "Warning" {
			warnings++
			assert.Equal(t, "StepFailed", e.Reason)
		}
	}
	assert.Equal(t, 1, warnings)
}

func TestADeleteAfterAFailedActivationStepDeactivatesFromAbort(t *testing.T) {
	f := newFakeCluster()
	f.answer = func(n int, in observatory.StepInput) (observatory.StepResult, error) {
		if in.Step == kube.StepStartDevices {
			return observatory.StepResult{}, temporal.NewNonRetryableApplicationError("Failed: no node for Camera east-main", observatory.ErrStepFailed, nil)
		}
		return observatory.StepResult{Summary: "did " + in.Step}, nil
	}
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, append([]string{kube.StepStartSite, kube.StepPowerOn, kube.StepStartDevices}, kube.DeactivationSteps...), f.stepsCalled())
	st := f.last()
	assert.Equal(t, obsv1.RunFailed, stateOf(st, kube.StepStartDevices), "the failure stays on record")
	assert.Equal(t, obsv1.RunSkipped, stateOf(st, kube.StepConnect))
	assert.Equal(t, "reservation ended", summaryOf(st, kube.StepConnect))
	assert.Equal(t, obsv1.ReservationReleased, st.Phase)
}

func TestAStepPastItsDeadlineTimesOut(t *testing.T) {
	f := newFakeCluster()
	// Temporal enforces the deadline (ScheduleToClose) and hands the workflow a timeout; the
	// test environment measures it in real time, so the fake hands it over itself. The real
	// deadline is proven on a real server in reservation_server_test.go.
	f.answer = func(n int, in observatory.StepInput) (observatory.StepResult, error) {
		if in.Step == kube.StepPowerOn && n == 1 {
			return observatory.StepResult{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, errors.New("pod east-switch is not Ready"))
		}
		return observatory.StepResult{}, nil
	}
	env := newReservationEnv(t, f)
	failed := f.statusAt(env, 30*time.Minute)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, obsv1.ReservationFailed, failed.Phase)
	assert.Equal(t, kube.StepPowerOn, failed.Step)
	c := ready(*failed)
	assert.Equal(t, "StepTimedOut", c.Reason)
	assert.True(t, strings.HasPrefix(c.Message, "timed out after 10m: "), c.Message)
}

func TestAStepThatReportsItsOwnDeadlineTimesOut(t *testing.T) {
	f := newFakeCluster()
	f.answer = func(n int, in observatory.StepInput) (observatory.StepResult, error) {
		if in.Step == kube.StepActivation {
			return observatory.StepResult{}, temporal.NewNonRetryableApplicationError("timed out after 5m: Dome lab did not open", observatory.ErrStepTimedOut, nil)
		}
		return observatory.StepResult{}, nil
	}
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)
	assert.True(t, f.wrote(func(s obsv1.ReservationStatus) bool {
		c := ready(s)
		return s.Phase == obsv1.ReservationFailed && c.Reason == "StepTimedOut" && c.Message == "timed out after 5m: Dome lab did not open"
	}))
}

func TestAFailedDeactivationStepKeepsTheFinalizer(t *testing.T) {
	f := newFakeCluster()
	f.answer = func(n int, in observatory.StepInput) (observatory.StepResult, error) {
		if in.Step == kube.StepDisconnect {
			return observatory.StepResult{}, temporal.NewNonRetryableApplicationError("Failed: Mount east did not disconnect", observatory.ErrStepFailed, nil)
		}
		return observatory.StepResult{}, nil
	}
	env := newReservationEnv(t, f)
	// The run waits for a retry that never comes; its timeout ends the test.
	env.SetWorkflowRunTimeout(24 * time.Hour)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	env.ExecuteWorkflow(Reservation, contract.ReservationInput{Namespace: "observatory", Name: "a"})
	require.Error(t, env.GetWorkflowError())

	st := f.last()
	assert.Equal(t, obsv1.ReservationFailed, st.Phase)
	assert.Equal(t, kube.StepDisconnect, st.Step)
	assert.Equal(t, obsv1.RunPending, stateOf(st, kube.StepStopDevices))
	assert.True(t, f.finalizers["Reservation/a"], "the Reservation keeps its finalizer")
	assert.NotContains(t, f.finalizerCalls, "-Reservation/a")
	assert.NotContains(t, f.signals, "telescope release", "and the telescope stays held")
}

// Between two steps the status is written once: the next step's
// Running carries the last one's end and its Event, so no write shows a step just ended and
// none running but for Ready and Released, and every step's Event is still posted, in order.
func TestBetweenTwoStepsTheStatusIsWrittenOnce(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	running := func(w obsv1.ReservationStatus) (names []string) {
		for _, s := range w.Steps {
			if s.State == obsv1.RunRunning {
				names = append(names, s.Name)
			}
		}
		return names
	}
	for i := 1; i < len(f.writes); i++ {
		w := f.writes[i]
		if w.Phase == obsv1.ReservationReady || w.Phase == obsv1.ReservationReleased || len(running(w)) > 0 {
			continue
		}
		for _, name := range running(f.writes[i-1]) {
			assert.NotEqual(t, obsv1.RunDone, stateOf(w, name), "write %d has %s just Done and no step running", i, name)
		}
	}
	assert.Len(t, f.events, 1+14+3, "every step's Event, Ready, Deactivating and Released")
}
