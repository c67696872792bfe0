package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities"
	"liken.sh/runner/internal/testenv"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The start of every reservation test's clock.
var rt0 = time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)

// stepCall is one run of a step's activity.
type stepCall struct {
	Step string
	At   time.Time
	In   activities.StepInput
}

// fakeCluster stands in for the Kubernetes side of a reservation (the Reservation, its
// Telescope and Observatory, the finalizers, the status writes) and for the two locks, which
// answer at once: the tests here are about one reservation's lifecycle; the locks' own rules
// are tested in telescope_test.go, observatory_test.go and, with several workflows, on a real
// Temporal server in reservation_server_test.go.
type fakeCluster struct {
	mu  sync.Mutex
	env *testsuite.TestWorkflowEnvironment

	res activities.ReservationState
	// finalizers: "Kind/name" → held.
	finalizers map[string]bool
	// finalizerCalls: "+Kind/name" or "-Kind/name", in order.
	finalizerCalls []string
	writes         []obsv1.ReservationStatus
	events         []kube.Event
	retryRemoved   []string

	calls []stepCall
	// answer gives a step's outcome; nil means Done with "did <Step>".
	answer func(n int, in activities.StepInput) (activities.StepResult, error)

	// heldBy, when set, keeps the telescope from being granted: the lock says who holds it.
	heldBy string
	// siteUp: the observatory is up already (StartSite is Skipped, StopSite too).
	siteUp  bool
	signals []string

	// observeFor is how long ObserveDevices runs before it returns observeErr, on the
	// workflow's clock; by default longer than any test, so it runs until cancelled.
	observeFor time.Duration
	observeErr error
	// observations: "start" and "cancel" of ObserveDevices, with the steps' calls
	// ("step Abort"), in order, each at its time.
	observations []observation

	// triggerPasses are the times RunTriggers ran; triggerAnswer, when set, gives the n-th
	// pass's result (from 1).
	triggerPasses []time.Time
	triggerAnswer func(n int) activities.TriggersResult
	triggerTakes  time.Duration
	// reads counts ReadReservation; heals HealPods and LiveDevices, whose inputs are live.
	reads, heals int
	live         []activities.LiveInput
}

func (f *fakeCluster) runTriggers(context.Context, activities.StepInput) (activities.TriggersResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.triggerPasses = append(f.triggerPasses, f.env.Now().UTC())
	if f.triggerAnswer != nil {
		return f.triggerAnswer(len(f.triggerPasses)), nil
	}
	return activities.TriggersResult{}, nil
}

type observation struct {
	What string
	At   time.Time
	In   activities.StepInput
}

func (f *fakeCluster) observeDuration() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.observeFor
}

func (f *fakeCluster) observed(context.Context, activities.StepInput) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.observeErr
}

func (f *fakeCluster) observationLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, o := range f.observations {
		if !strings.HasPrefix(o.What, "step ") || o.What == "step "+kube.StepStartGuider || o.What == "step "+kube.StepAbort {
			out = append(out, o.What)
		}
	}
	return out
}

func newFakeCluster() *fakeCluster {
	return &fakeCluster{
		res: activities.ReservationState{
			UID: "uid-a", Generation: 1, Created: rt0.Add(-time.Hour),
			Spec:        obsv1.ReservationSpec{Telescope: "east", Holder: "ada"},
			Telescope:   activities.TargetState{Name: "east", Exists: true},
			Observatory: activities.TargetState{Name: "lab", Exists: true},
		},
		finalizers: map[string]bool{},
		observeFor: 366 * 24 * time.Hour,
	}
}

func (f *fakeCluster) read(_ context.Context, ref activities.ReservationRef) (activities.ReservationState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	st := f.res
	st.HasFinalizer = f.finalizers["Reservation/"+ref.Name]
	if len(f.writes) > 0 {
		st.Status = *f.writes[len(f.writes)-1].DeepCopy()
	}
	return st, nil
}

func (f *fakeCluster) addFinalizer(_ context.Context, ref activities.FinalizerRef) (activities.FinalizerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := string(ref.Kind) + "/" + ref.Name
	if ref.Kind == obsv1.KindTelescope && f.res.Telescope.Deleting {
		return activities.FinalizerResult{Deleting: true}, nil
	}
	f.finalizerCalls = append(f.finalizerCalls, "+"+key)
	f.finalizers[key] = true
	return activities.FinalizerResult{Has: true, Changed: true}, nil
}

func (f *fakeCluster) removeFinalizer(_ context.Context, ref activities.FinalizerRef) (activities.FinalizerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := string(ref.Kind) + "/" + ref.Name
	f.finalizerCalls = append(f.finalizerCalls, "-"+key)
	delete(f.finalizers, key)
	return activities.FinalizerResult{Changed: true}, nil
}

func (f *fakeCluster) write(_ context.Context, w activities.ReservationStatusWrite) (activities.StatusWritten, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, *w.Status.DeepCopy())
	f.events = append(f.events, w.Events...)
	return activities.StatusWritten{Wrote: true}, nil
}

func (f *fakeCluster) removeRetry(_ context.Context, in activities.RetryRemoval) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retryRemoved = append(f.retryRemoved, in.Value)
	if f.res.Retry == in.Value {
		f.res.Retry = ""
	}
	return nil
}

// decode turns a message that went through the data converter back into its type.
func decode(t *testing.T, v, into any) {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, into))
}

func (f *fakeCluster) coordinate(t *testing.T) func(context.Context, activities.WorkflowSignal) error {
	return func(_ context.Context, s activities.WorkflowSignal) error {
		f.mu.Lock()
		defer f.mu.Unlock()
		switch s.Signal {
		case TelescopeRequests:
			var r TelescopeRequest
			decode(t, s.Message, &r)
			f.signals = append(f.signals, "telescope "+r.Op)
			if r.Op == TelescopeTake {
				ans := TelescopeAnswer{Token: r.Ticket.Token, Granted: f.heldBy == "", Holder: f.heldBy}
				f.env.RegisterDelayedCallback(func() { f.env.SignalWorkflow(TelescopeAnswers, ans) }, 0)
			}
		case SiteRequests:
			var r SiteRequest
			decode(t, s.Message, &r)
			f.signals = append(f.signals, "site "+string(r.Op))
			switch r.Op {
			case SiteStart, SiteStop:
				ans := SiteAnswer{Token: r.Token, Op: r.Op, Run: !f.siteUp}
				if f.siteUp {
					ans.Others = []string{"west"}
				}
				f.env.RegisterDelayedCallback(func() { f.env.SignalWorkflow(SiteAnswers, ans) }, 0)
			case SiteActivate, SiteDeactivate:
				ans := SiteAnswer{Token: r.Token, Op: r.Op, Run: !f.siteUp}
				f.env.RegisterDelayedCallback(func() { f.env.SignalWorkflow(SiteAnswers, ans) }, 0)
			}
		default:
			t.Errorf("a signal to an unknown coordinator: %s", s.Signal)
		}
		return nil
	}
}

func (f *fakeCluster) step(ctx context.Context, in activities.StepInput) (activities.StepResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, stepCall{Step: in.Step, At: f.env.Now().UTC(), In: in})
	f.observations = append(f.observations, observation{What: "step " + in.Step, At: f.env.Now().UTC()})
	n := 0
	for _, c := range f.calls {
		if c.Step == in.Step {
			n++
		}
	}
	answer := f.answer
	f.mu.Unlock()
	if answer != nil {
		return answer(n, in)
	}
	return activities.StepResult{Summary: "did " + in.Step}, nil
}

// change edits the fake cluster at after and signals the workflow, as the watcher would.
func (f *fakeCluster) change(after time.Duration, why string, edit func(*activities.ReservationState)) {
	f.env.RegisterDelayedCallback(func() {
		f.mu.Lock()
		edit(&f.res)
		f.mu.Unlock()
		f.env.SignalWorkflow(ReservationChanged, ReservationChange{Why: why})
	}, after)
}

func (f *fakeCluster) stepsCalled() []string {
	var out []string
	for _, c := range f.calls {
		out = append(out, c.Step)
	}
	return out
}

func (f *fakeCluster) last() obsv1.ReservationStatus { return f.writes[len(f.writes)-1] }

// phases is the sequence of phases written, without repeats.
func (f *fakeCluster) phases() []obsv1.ReservationPhase {
	var out []obsv1.ReservationPhase
	for _, w := range f.writes {
		if len(out) == 0 || out[len(out)-1] != w.Phase {
			out = append(out, w.Phase)
		}
	}
	return out
}

// wrote says whether some write satisfied ok.
func (f *fakeCluster) wrote(ok func(obsv1.ReservationStatus) bool) bool {
	for _, w := range f.writes {
		if ok(w) {
			return true
		}
	}
	return false
}

func stateOf(st obsv1.ReservationStatus, step string) obsv1.RunState {
	if r := kube.FindStep(&st, step); r != nil {
		return r.State
	}
	return ""
}

func summaryOf(st obsv1.ReservationStatus, step string) string {
	if r := kube.FindStep(&st, step); r != nil {
		return r.Summary
	}
	return ""
}

func ready(st obsv1.ReservationStatus) *obsv1.Condition {
	return kube.ReservationCondition(&st, obsv1.ConditionReady)
}

func newReservationEnv(t *testing.T, f *fakeCluster) *testsuite.TestWorkflowEnvironment {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	env.SetStartTime(rt0)
	f.env = env
	env.RegisterWorkflowWithOptions(Reservation, workflow.RegisterOptions{Name: ReservationWorkflow})
	env.OnActivity(a.ReadReservation, mock.Anything, mock.Anything).Return(f.read).Maybe()
	env.OnActivity(a.AddDeactivateFinalizer, mock.Anything, mock.Anything).Return(f.addFinalizer).Maybe()
	env.OnActivity(a.RemoveDeactivateFinalizer, mock.Anything, mock.Anything).Return(f.removeFinalizer).Maybe()
	env.OnActivity(a.WriteReservationStatus, mock.Anything, mock.Anything).Return(f.write).Maybe()
	env.OnActivity(a.RemoveRetryAnnotation, mock.Anything, mock.Anything).Return(f.removeRetry).Maybe()
	env.OnActivity(a.SignalCoordinator, mock.Anything, mock.Anything).Return(f.coordinate(t)).Maybe()
	for _, s := range steps {
		env.OnActivity(s.activity, mock.Anything, mock.Anything).Return(f.step).Maybe()
	}
	// The observer runs until it is cancelled. It waits on the workflow's clock (AfterFn),
	// not on its context: a running activity would keep the test clock from skipping ahead.
	env.OnActivity(a.ObserveDevices, mock.Anything, mock.Anything).AfterFn(f.observeDuration).Return(f.observed).Maybe()
	env.OnActivity(a.RunTriggers, mock.Anything, mock.Anything).AfterFn(func() time.Duration { return f.triggerTakes }).Return(f.runTriggers).Maybe()
	env.OnActivity(a.HealPods, mock.Anything, mock.Anything).Return(func(context.Context, activities.StepInput) (activities.HealResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.heals++
		return activities.HealResult{}, nil
	}).Maybe()
	env.OnActivity(a.LiveDevices, mock.Anything, mock.Anything).Return(func(_ context.Context, in activities.LiveInput) (activities.LiveResult, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.heals++
		f.live = append(f.live, in)
		return activities.LiveResult{}, nil
	}).Maybe()
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		if info.ActivityType.Name != "ObserveDevices" {
			return
		}
		var in activities.StepInput
		_ = args.Get(&in)
		f.mu.Lock()
		f.observations = append(f.observations, observation{What: "start", At: env.Now().UTC(), In: in})
		f.mu.Unlock()
	})
	env.SetOnActivityCanceledListener(func(info *activity.Info) {
		if info.ActivityType.Name == "ObserveDevices" {
			f.mu.Lock()
			f.observations = append(f.observations, observation{What: "cancel", At: env.Now().UTC()})
			f.mu.Unlock()
		}
	})
	return env
}

func run(t *testing.T, env *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	env.ExecuteWorkflow(Reservation, ReservationInput{Namespace: "observatory", Name: "a"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
}

var allWorkingSteps = append(append([]string{}, kube.ActivationSteps[1:]...), kube.DeactivationSteps...)

func TestAReservationRunsEveryStepFromWaitToReleased(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, allWorkingSteps, f.stepsCalled(), "each working step ran once, in the spec's order")
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
	f.change(3*time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
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
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
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

func TestADeleteBeforeTheReservationTookTheTelescopeReleasesItAtOnce(t *testing.T) {
	f := newFakeCluster()
	f.heldBy = "first"
	env := newReservationEnv(t, f)
	var waiting obsv1.ReservationStatus
	env.RegisterDelayedCallback(func() {
		f.mu.Lock()
		waiting = f.last()
		f.mu.Unlock()
	}, 30*time.Minute)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, "Telescope east is held by Reservation first", summaryOf(waiting, kube.StepWait), "the Wait names the holder")
	assert.Equal(t, "Telescope east is held by Reservation first", ready(waiting).Message)
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
	f.res.Telescope = activities.TargetState{Name: "east"}
	f.res.Observatory = activities.TargetState{}
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
	f.change(10*time.Minute, "telescope", func(s *activities.ReservationState) {
		s.Telescope = activities.TargetState{Name: "east", Exists: true, Deleting: true}
		s.Observatory = activities.TargetState{Name: "lab", Exists: true}
	})
	see(11 * time.Minute)
	f.change(20*time.Minute, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, []string{"Missing Telescope east", "Telescope east is being deleted"}, summaries)
	assert.Empty(t, f.calls)
	assert.NotContains(t, f.signals, "telescope take", "a telescope that is missing or being deleted is not asked for")
}

func TestADeletedTelescopeEndsTheSessionAndAbortSaysSo(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	f.change(time.Hour, "telescope", func(s *activities.ReservationState) { s.Telescope.Deleting = true })
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
	var failed obsv1.ReservationStatus
	env.RegisterDelayedCallback(func() {
		f.mu.Lock()
		failed = f.last()
		f.mu.Unlock()
	}, 30*time.Minute)
	f.change(time.Hour, "updated", func(s *activities.ReservationState) { s.Retry = "please" })
	f.change(2*time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)
	return failed
}

func TestAFailedStepLeavesTheReservationFailedUntilARetryRunsItAgain(t *testing.T) {
	f := newFakeCluster()
	f.answer = func(n int, in activities.StepInput) (activities.StepResult, error) {
		if in.Step == kube.StepConnect && n == 1 {
			return activities.StepResult{}, temporal.NewNonRetryableApplicationError("Failed: Mount east is in Alert", activities.ErrStepFailed, nil)
		}
		return activities.StepResult{Summary: "did " + in.Step}, nil
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
	f.answer = func(n int, in activities.StepInput) (activities.StepResult, error) {
		if in.Step == kube.StepStartDevices {
			return activities.StepResult{}, temporal.NewNonRetryableApplicationError("Failed: no node for Camera east-main", activities.ErrStepFailed, nil)
		}
		return activities.StepResult{Summary: "did " + in.Step}, nil
	}
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
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
	f.answer = func(n int, in activities.StepInput) (activities.StepResult, error) {
		if in.Step == kube.StepPowerOn && n == 1 {
			return activities.StepResult{}, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, errors.New("pod east-switch is not Ready"))
		}
		return activities.StepResult{}, nil
	}
	env := newReservationEnv(t, f)
	var failed obsv1.ReservationStatus
	env.RegisterDelayedCallback(func() {
		f.mu.Lock()
		failed = f.last()
		f.mu.Unlock()
	}, 30*time.Minute)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, obsv1.ReservationFailed, failed.Phase)
	assert.Equal(t, kube.StepPowerOn, failed.Step)
	c := ready(failed)
	assert.Equal(t, "StepTimedOut", c.Reason)
	assert.True(t, strings.HasPrefix(c.Message, "timed out after 10m: "), c.Message)
}

func TestAStepThatReportsItsOwnDeadlineTimesOut(t *testing.T) {
	f := newFakeCluster()
	f.answer = func(n int, in activities.StepInput) (activities.StepResult, error) {
		if in.Step == kube.StepActivation {
			return activities.StepResult{}, temporal.NewNonRetryableApplicationError("timed out after 5m: Dome lab did not open", activities.ErrStepTimedOut, nil)
		}
		return activities.StepResult{}, nil
	}
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)
	assert.True(t, f.wrote(func(s obsv1.ReservationStatus) bool {
		c := ready(s)
		return s.Phase == obsv1.ReservationFailed && c.Reason == "StepTimedOut" && c.Message == "timed out after 5m: Dome lab did not open"
	}))
}

func TestAFailedDeactivationStepKeepsTheFinalizer(t *testing.T) {
	f := newFakeCluster()
	f.answer = func(n int, in activities.StepInput) (activities.StepResult, error) {
		if in.Step == kube.StepDisconnect {
			return activities.StepResult{}, temporal.NewNonRetryableApplicationError("Failed: Mount east did not disconnect", activities.ErrStepFailed, nil)
		}
		return activities.StepResult{}, nil
	}
	env := newReservationEnv(t, f)
	// The run waits for a retry that never comes; its timeout ends the test.
	env.SetWorkflowRunTimeout(24 * time.Hour)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	env.ExecuteWorkflow(Reservation, ReservationInput{Namespace: "observatory", Name: "a"})
	require.Error(t, env.GetWorkflowError())

	st := f.last()
	assert.Equal(t, obsv1.ReservationFailed, st.Phase)
	assert.Equal(t, kube.StepDisconnect, st.Step)
	assert.Equal(t, obsv1.RunPending, stateOf(st, kube.StepStopDevices))
	assert.True(t, f.finalizers["Reservation/a"], "the Reservation keeps its finalizer")
	assert.NotContains(t, f.finalizerCalls, "-Reservation/a")
	assert.NotContains(t, f.signals, "telescope release", "and the telescope stays held")
}

func TestAReservationAtASiteAlreadyUpSkipsStartSiteAndStopSite(t *testing.T) {
	f := newFakeCluster()
	f.siteUp = true
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
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
			assert.False(t, c.In.SiteTiers, "%s leaves the observatory's tiers to the others", c.Step)
		}
	}
	assert.NotContains(t, f.finalizerCalls, "+Observatory/lab")
	assert.NotContains(t, f.finalizerCalls, "-Observatory/lab")
}

func TestEachStepGetsItsDeadlineAndTheReservation(t *testing.T) {
	f := newFakeCluster()
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)
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
			assert.True(t, c.In.SiteTiers, "%s runs the observatory's tiers too: no other telescope is there", c.Step)
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
		if v, _ := sa.GetKeyword(SearchPhase); v == "Released" {
			// An unset value is invisible here; the server test reads it back from Temporal.
			stepSetWhenReleased = sa.ContainsKey(SearchStep)
		}
		for _, k := range []temporal.SearchAttributeKeyKeyword{SearchTelescope, SearchHolder, SearchPhase, SearchStep} {
			if !sa.ContainsKey(k) {
				continue
			}
			v, _ := sa.GetKeyword(k)
			now[k.GetName()] = v
		}
		seen = append(seen, now["Phase"]+"/"+now["Step"])
	}).Return(nil)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
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
		v, err := env.QueryWorkflow(ReservationStatusQuery)
		require.NoError(t, err)
		require.NoError(t, v.Get(&during))
	}, 30*time.Minute)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)
	assert.Equal(t, obsv1.ReservationReady, during.Phase)
}

func TestAReservationAlreadyReleasedHasNothingToDo(t *testing.T) {
	f := newFakeCluster()
	f.res.Status = obsv1.ReservationStatus{Phase: obsv1.ReservationReleased}
	f.finalizers["Reservation/a"] = true
	env := newReservationEnv(t, f)
	env.OnActivity(a.ReadReservation, mock.Anything, mock.Anything).Return(
		func(_ context.Context, ref activities.ReservationRef) (activities.ReservationState, error) {
			return f.res, nil
		})
	run(t, env)
	assert.Empty(t, f.calls)
	assert.Empty(t, f.writes)
	assert.Equal(t, []string{"-Reservation/a"}, f.finalizerCalls)
}

func TestALongHeldReservationContinuesAsNewAndTheNextRunResumesFromItsStatus(t *testing.T) {
	old := reservationReadLimit
	reservationReadLimit = 10
	t.Cleanup(func() { reservationReadLimit = old })

	f := newFakeCluster()
	env := newReservationEnv(t, f)
	for i := range 20 {
		f.change(time.Duration(i+1)*time.Minute, "resync", func(*activities.ReservationState) {})
	}
	env.ExecuteWorkflow(Reservation, ReservationInput{Namespace: "observatory", Name: "a"})
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	assert.Equal(t, ReservationWorkflow, can.WorkflowType.Name)
	assert.Equal(t, obsv1.ReservationReady, f.last().Phase, "it continued while Ready")

	// The next run reads the status the first one wrote and picks up from there.
	next := newFakeCluster()
	next.writes = []obsv1.ReservationStatus{f.last()}
	next.finalizers = f.finalizers
	env2 := newReservationEnv(t, next)
	next.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env2)
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
	f.answer = func(n int, in activities.StepInput) (activities.StepResult, error) {
		if in.Step == kube.StepActivation && n == 1 {
			return activities.StepResult{}, temporal.NewNonRetryableApplicationError("Failed: Job x failed: exit code 3",
				activities.ErrStepFailed, nil, activities.StepResult{Actions: []obsv1.ActionRecord{done, broken}})
		}
		return activities.StepResult{Summary: "did " + in.Step}, nil
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

	var retried []activities.StepInput
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
	f.observeErr = temporal.NewNonRetryableApplicationError("Telescope east is missing", activities.ErrStepFailed, nil)
	env := newReservationEnv(t, f)
	f.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env)

	assert.Equal(t, []string{"step " + kube.StepStartGuider, "start", "step " + kube.StepAbort}, f.observationLog())
	assert.Equal(t, allWorkingSteps, f.stepsCalled())
	assert.Equal(t, obsv1.ReservationReleased, f.last().Phase)
	assert.True(t, f.wrote(func(s obsv1.ReservationStatus) bool { return s.Phase == obsv1.ReservationReady }))
}

func TestAReservationThatContinuesAsNewStopsItsObserverAndTheNextRunStartsOne(t *testing.T) {
	old := reservationReadLimit
	reservationReadLimit = 10
	t.Cleanup(func() { reservationReadLimit = old })

	f := newFakeCluster()
	env := newReservationEnv(t, f)
	for i := range 20 {
		f.change(time.Duration(i+1)*time.Minute, "resync", func(*activities.ReservationState) {})
	}
	env.ExecuteWorkflow(Reservation, ReservationInput{Namespace: "observatory", Name: "a"})
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	assert.Equal(t, []string{"step " + kube.StepStartGuider, "start", "cancel"}, f.observationLog())

	next := newFakeCluster()
	next.writes = []obsv1.ReservationStatus{f.last()}
	next.finalizers = f.finalizers
	env2 := newReservationEnv(t, next)
	next.change(time.Hour, "deleted", func(s *activities.ReservationState) { s.Deleting = true })
	run(t, env2)
	assert.Equal(t, []string{"start", "cancel", "step " + kube.StepAbort}, next.observationLog())
}

// TestAChangeWhileReadyLooksForDevicesThatJoinedOrLeft: the watcher's signal about a device
// makes the Ready reservation run LiveDevices, told when its Activation began (a leaver that
// activated since then deactivates); a changed condition alone does not.
func TestAChangeWhileReadyLooksForDevicesThatJoinedOrLeft(t *testing.T) {
	f := newFakeCluster()
	end := rt0.Add(3 * time.Hour)
	f.res.Spec.End = &metav1.Time{Time: end}
	env := newReservationEnv(t, f)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(ReservationChanged, ReservationChange{Why: WhyCondition})
	}, 30*time.Minute)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(ReservationChanged, ReservationChange{Why: "device"})
	}, time.Hour)
	run(t, env)

	require.Len(t, f.live, 1, "one LiveDevices, for the device's signal")
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
