// A reservation at a site already up, its deadlines, search attributes and status query,
// and what it does while Ready: continue-as-new, the device observer, and the devices that
// join or leave.
package workflows

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestAReservationAtASiteAlreadyUpSkipsStartSiteAndStopSite(t *testing.T) {
	f := newFakeCluster()
	f.siteUp = true
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.NotContains(t, f.stepsCalled(), kube.StepStartSite)
	assert.NotContains(t, f.stepsCalled(), kube.StepStopSite)
	st := f.last()
	assert.Equal(t, obsv1.RunSkipped, stateOf(st, kube.StepStartSite))
	assert.Equal(t, "Observatory lab is already up for Telescope west", summaryOf(st, kube.StepStartSite))
	assert.Equal(t, obsv1.RunSkipped, stateOf(st, kube.StepStopSite))
	assert.Equal(t, "Observatory lab is still in use by Telescope west", summaryOf(st, kube.StepStopSite))
	for _, c := range f.calls {
		if c.Step == kube.StepActivation || c.Step == kube.StepDeactivation {
			assert.False(t, c.In.IncludesObservatory, "%s leaves the observatory's tiers to the others", c.Step)
		}
	}
	assert.NotContains(t, f.finalizerCalls, "+Observatory/lab")
	assert.NotContains(t, f.finalizerCalls, "-Observatory/lab")
}

func TestEachStepGetsItsDeadlineAndTheReservation(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)
	called := map[string]bool{}
	for _, c := range f.calls {
		called[c.Step] = true
	}
	for _, step := range append(slices.Clone(kube.ActivationSteps), kube.DeactivationSteps...) {
		// Wait is the workflow's own: no step activity runs for it.
		assert.True(t, called[step] || step == kube.StepWait, "the step %s ran", step)
	}
	for _, c := range f.calls {
		assert.Equal(t, kube.StepDeadline(c.Step), c.In.Deadline, c.Step)
		assert.Equal(t, c.At, c.In.Started, c.Step)
		assert.Equal(t, "observatory", c.In.Namespace)
		assert.Equal(t, "a", c.In.Reservation)
		assert.Equal(t, "uid-a", c.In.UID)
		assert.Equal(t, "east", c.In.Telescope)
		assert.Equal(t, "lab", c.In.Observatory)
		assert.Equal(t, "ada", c.In.Holder)
		if c.Step == kube.StepActivation || c.Step == kube.StepDeactivation {
			assert.True(t, c.In.IncludesObservatory, "%s runs the observatory's tiers too: no other telescope is there", c.Step)
		}
	}
}

func TestTheSearchAttributesFollowThePhaseAndTheStep(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	// Each upsert carries only what changed; now is what the UI shows after it.
	var seen []string
	now := map[string]string{}
	var upserts int
	var stepSetWhenReleased bool
	env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		upserts++
		sa := args.Get(0).(temporal.SearchAttributes)
		if v, _ := sa.GetKeyword(contract.SearchPhase); v == "Released" {
			// An unset value is invisible here; the server test reads it back from Temporal.
			stepSetWhenReleased = sa.ContainsKey(contract.SearchStep)
		}
		for _, k := range []temporal.SearchAttributeKeyKeyword{contract.SearchTelescope, contract.SearchHolder, contract.SearchPhase, contract.SearchStep} {
			if !sa.ContainsKey(k) {
				continue
			}
			v, _ := sa.GetKeyword(k)
			now[k.GetName()] = v
		}
		seen = append(seen, now["Phase"]+"/"+now["Step"])
	}).Return(nil)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, "east", now["Telescope"])
	assert.Equal(t, "ada", now["Holder"])
	assert.Len(t, seen, upserts)
	assert.Len(t, seen, 17, "one upsert per change of phase or step, no more")
	assert.Contains(t, seen, "Scheduled/Wait")
	assert.Contains(t, seen, "Activating/PowerOn")
	assert.Contains(t, seen, "Deactivating/StopSite")
	assert.Equal(t, "Released/StopSite", seen[len(seen)-1])
	assert.False(t, stepSetWhenReleased, "Released sets no step")
	var phases []string
	for _, v := range seen {
		if p := strings.Split(v, "/")[0]; len(phases) == 0 || phases[len(phases)-1] != p {
			phases = append(phases, p)
		}
	}
	assert.Equal(t, []string{"Scheduled", "Activating", "Ready", "Deactivating", "Released"}, phases)
}

func TestTheStatusQueryAnswersWithTheCurrentStep(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	var during obsv1.ReservationStatus
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(contract.ReservationStatusQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&during))
	}, 30*time.Minute)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)
	assert.Equal(t, obsv1.ReservationReady, during.Phase)
}

func TestAReservationAlreadyReleasedHasNothingToDo(t *testing.T) {
	f := newFakeCluster()
	f.res.Status = obsv1.ReservationStatus{Phase: obsv1.ReservationReleased}
	f.finalizers["Reservation/a"] = true
	env := newReservationEnv(t, f)
	env.OnActivity(observatoryActs.ReadReservation, mock.Anything, mock.Anything).Return(
		func(_ context.Context, ref observatory.ReservationRef) (observatory.ReservationState, error) {
			return f.res, nil
		})
	run(t, env)
	assert.Empty(t, f.calls)
	assert.Empty(t, f.writes)
	assert.Equal(t, []string{"-Reservation/a"}, f.finalizerCalls)
}

// continuedWhileReady runs a Ready reservation that hears 20 resyncs with a read limit of
// 10, and wants it to continue as new.
func continuedWhileReady(t *testing.T) (*fakeCluster, *workflow.ContinueAsNewError) {
	t.Helper()
	old := reservationReadLimit
	reservationReadLimit = 10
	t.Cleanup(func() { reservationReadLimit = old })

	f := newFakeCluster()
	env := newReservationEnv(t, f)
	for i := range 20 {
		f.change(time.Duration(i+1)*time.Minute, "resync", func(*observatory.ReservationState) {})
	}
	env.ExecuteWorkflow(Reservation, contract.ReservationInput{Namespace: "observatory", Name: "a"})
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	return f, can
}

// nextRunDeleted is the run that continues f's: it starts from the status and finalizers f
// left, and its reservation is deleted an hour in.
func nextRunDeleted(t *testing.T, f *fakeCluster) *fakeCluster {
	t.Helper()
	next := newFakeCluster()
	next.writes = []obsv1.ReservationStatus{f.last()}
	next.finalizers = f.finalizers
	env := newReservationEnv(t, next)
	next.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)
	return next
}

func TestALongHeldReservationContinuesAsNewAndTheNextRunResumesFromItsStatus(t *testing.T) {
	f, can := continuedWhileReady(t)
	assert.Equal(t, contract.ReservationWorkflow, can.WorkflowType.Name)
	assert.Equal(t, obsv1.ReservationReady, f.last().Phase, "it continued while Ready")

	// The next run reads the status the first one wrote and picks up from there.
	next := nextRunDeleted(t, f)
	assert.Equal(t, kube.DeactivationSteps, next.stepsCalled(), "no activation step ran again")
	assert.Equal(t, "telescope take", next.signals[0], "it asked its telescope's lock again, which grants its holder at once")
	st := next.last()
	assert.Equal(t, "Took Telescope east", summaryOf(st, kube.StepWait))
	assert.Equal(t, obsv1.ReservationReleased, st.Phase)
}

func TestAFailedStepKeepsItsActionRecordsAndHandsThemToTheRetry(t *testing.T) {
	done := obsv1.ActionRecord{Kind: obsv1.KindDome, Name: "lab", Action: "state: Unparked", RunRecord: obsv1.RunRecord{State: obsv1.RunDone}}
	broken := obsv1.ActionRecord{Kind: obsv1.KindTelescope, Name: "east", Action: "job", RunRecord: obsv1.RunRecord{State: obsv1.RunFailed, Summary: "Job x failed: exit code 3"}}
	f := newFakeCluster()
	f.answer = func(n int, in observatory.StepInput) (observatory.StepResult, error) {
		if in.Step == kube.StepActivation && n == 1 {
			return observatory.StepResult{}, temporal.NewNonRetryableApplicationError("Failed: Job x failed: exit code 3",
				observatory.ErrStepFailed, nil, observatory.StepResult{Actions: []obsv1.ActionRecord{done, broken}})
		}
		return observatory.StepResult{Summary: "did " + in.Step}, nil
	}
	failed := failRetryAndDelete(t, f)

	var recorded []obsv1.ActionRecord
	for _, s := range failed.Steps {
		if s.Name == kube.StepActivation {
			recorded = s.Actions
		}
	}
	require.Len(t, recorded, 2, "status.steps[].actions shows the failed step's actions")
	assert.Equal(t, obsv1.RunDone, recorded[0].State)
	assert.Equal(t, obsv1.RunFailed, recorded[1].State)

	var retried []observatory.StepInput
	for _, c := range f.calls {
		if c.Step == kube.StepActivation {
			retried = append(retried, c.In)
		}
	}
	require.Len(t, retried, 2)
	require.Len(t, retried[1].Actions, 2, "the retry is told which actions are already Done")
	assert.Equal(t, obsv1.RunDone, retried[1].Actions[0].State)
}

func TestAReadyReservationObservesItsDevicesUntilItsEnd(t *testing.T) {
	f := newFakeCluster()
	end := rt0.Add(3 * time.Hour)
	f.res.Spec.End = &metav1.Time{Time: end}
	env := newReservationEnv(t, f)
	run(t, env)

	assert.Equal(t, []string{"step " + kube.StepStartGuider, "start", "cancel", "step " + kube.StepAbort}, f.observationLog(),
		"the observer starts once Ready and stops before deactivation begins")
	var start, cancel observation
	for _, o := range f.observations {
		switch o.What {
		case "start":
			start = o
		case "cancel":
			cancel = o
		}
	}
	assert.Equal(t, rt0, start.At)
	assert.Equal(t, end, cancel.At)
	assert.Equal(t, "observatory", start.In.Namespace)
	assert.Equal(t, "a", start.In.Reservation)
	assert.Equal(t, "east", start.In.Telescope)
	assert.Equal(t, "lab", start.In.Observatory)
}

func TestAnObserverThatFailsLeavesTheReservationAsItIs(t *testing.T) {
	f := newFakeCluster()
	f.observeFor = time.Minute
	f.observeErr = temporal.NewNonRetryableApplicationError("Telescope east is missing", observatory.ErrStepFailed, nil)
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *observatory.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, []string{"step " + kube.StepStartGuider, "start", "step " + kube.StepAbort}, f.observationLog())
	assert.Equal(t, allWorkingSteps, f.stepsCalled())
	assert.Equal(t, obsv1.ReservationReleased, f.last().Phase)
	assert.True(t, f.wrote(func(s obsv1.ReservationStatus) bool { return s.Phase == obsv1.ReservationReady }))
}

func TestAReservationThatContinuesAsNewStopsItsObserverAndTheNextRunStartsOne(t *testing.T) {
	f, _ := continuedWhileReady(t)
	assert.Equal(t, []string{"step " + kube.StepStartGuider, "start", "cancel"}, f.observationLog())

	next := nextRunDeleted(t, f)
	assert.Equal(t, []string{"start", "cancel", "step " + kube.StepAbort}, next.observationLog())
}

// TestAChangeWhileReadyLooksForDevicesThatJoinedOrLeft: the watcher's signal about a device
// makes the Ready reservation plan what joined or left (PlanLiveDevices), told when its Activation began (a leaver that
// activated since then deactivates); a changed condition alone does not.
func TestAChangeWhileReadyLooksForDevicesThatJoinedOrLeft(t *testing.T) {
	f := newFakeCluster()
	end := rt0.Add(3 * time.Hour)
	f.res.Spec.End = &metav1.Time{Time: end}
	env := newReservationEnv(t, f)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: contract.WhyCondition})
	}, 30*time.Minute)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: "device"})
	}, time.Hour)
	run(t, env)

	require.Len(t, f.live, 1, "one plan, for the device's signal")
	in := f.live[0]
	assert.Equal(t, "a", in.Reservation)
	assert.Equal(t, f.res.Spec.Telescope, in.Telescope)
	assert.Equal(t, rt0.Add(time.Hour), in.Started.UTC())
	var activation time.Time
	for _, c := range f.calls {
		if c.Step == kube.StepActivation {
			activation = c.In.Started
		}
	}
	assert.False(t, activation.IsZero())
	assert.Equal(t, activation.UTC(), in.Activated.UTC(), "told when its Activation began")
}

// TestAJoinAndALeaveShowEachStepInTheHistory: a live plan's parts run as activities of
// their own, in the plan's order: the leaver, the refusal, the server's bring-up, the
// Guider's pod, connect and configure where the drivers changed, then the activations.
func TestAJoinAndALeaveShowEachStepInTheHistory(t *testing.T) {
	f := newFakeCluster()
	f.res.Spec.End = &metav1.Time{Time: rt0.Add(3 * time.Hour)}
	tel := kube.ResourceID{Kind: obsv1.KindTelescope, Namespace: "observatory", Name: "east"}
	dev := func(k obsv1.Kind, name string) kube.ResourceID {
		return kube.ResourceID{Kind: k, Namespace: "observatory", Name: name}
	}
	f.livePlan = observatory.LivePlan{Guider: true, Devices: []string{"Mount east", "Focuser east"}, Servers: []observatory.LiveServer{
		{Owner: kube.ResourceID{Kind: obsv1.KindObservatory, Namespace: "observatory", Name: "lab"}, Server: "lab-observatory"},
		{
			Owner: tel, Server: "east-telescope", Run: true, Active: true,
			Leave:    []kube.ResourceID{dev(obsv1.KindRotator, "east-main")},
			Join:     []kube.ResourceID{dev(obsv1.KindFocuser, "east")},
			Refuse:   []kube.Refusal{{Device: kube.LiveDevice{Kind: obsv1.KindCamera, Name: "east-side"}, Message: "held"}},
			Activate: []kube.ResourceID{dev(obsv1.KindMount, "east")},
		},
	}}
	env := newReservationEnv(t, f)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: "device"})
	}, time.Hour)
	run(t, env)

	require.Len(t, f.live, 1, "one plan, for the device's signal")
	assert.Equal(t, []string{
		"LeaveDevice Rotator east-main",
		"RefuseDevices Telescope east",
		"StartLiveDevices Telescope east",
		"RestartGuider",
		"ConnectLiveDevices Telescope east",
		"Configure",
		"ActivateDevice Focuser east",
		"ActivateDevice Mount east",
	}, f.liveParts)
}

// TestTheHoldersWayInIsWrittenAgainAtEachChangeButAConditions: the way in is written as the
// reservation becomes Ready, and again when the watcher signals a change (the holder's Person
// naming another user, say); a condition's change, which reads nothing, writes nothing.
func TestTheHoldersWayInIsWrittenAgainAtEachChangeButAConditions(t *testing.T) {
	f := newFakeCluster()
	f.res.Spec.End = &metav1.Time{Time: rt0.Add(3 * time.Hour)}
	env := newReservationEnv(t, f)
	var grants []time.Time
	env.SetOnLocalActivityStartedListener(func(info *activity.Info, _ context.Context, _ []any) {
		if info.ActivityType.Name == "GrantAccess" {
			grants = append(grants, env.Now().UTC())
		}
	})
	for at, why := range map[time.Duration]string{30 * time.Minute: contract.WhyCondition, time.Hour: "holder"} {
		env.RegisterDelayedCallback(func() {
			env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: why})
		}, at)
	}
	run(t, env)

	require.Len(t, grants, 2, "as it became Ready, and for the holder's change: %v", grants)
	assert.Equal(t, rt0.Add(time.Hour), grants[1])
}
