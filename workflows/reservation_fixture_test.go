// The fake cluster the reservation's workflow tests run against: a Reservation, its
// Telescope and Observatory, their locks and the steps' activities, all mocked in a
// TestWorkflowEnvironment with skipped time, each call written down for the test to read.
package workflows

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

// The start of every reservation test's clock.
var rt0 = time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)

// stepCall is one run of a step's activity.
type stepCall struct {
	Step string
	At   time.Time
	In   observatory.StepInput
}

// fakeCluster stands in for the Kubernetes side of a reservation (the Reservation, its
// Telescope and Observatory, the finalizers, the status writes) and for the two locks, which
// answer at once: the tests here are about one reservation's lifecycle; the locks' own rules
// are tested in telescope_test.go, observatory_test.go and, with several workflows, on a real
// Temporal server in reservation_server_test.go.
type fakeCluster struct {
	mu  sync.Mutex
	env *testsuite.TestWorkflowEnvironment

	res observatory.ReservationState
	// finalizers: "Kind/name" → held.
	finalizers map[string]bool
	// finalizerCalls: "+Kind/name" or "-Kind/name", in order.
	finalizerCalls []string
	writes         []obsv1.ReservationStatus
	events         []kube.Event
	retryRemoved   []string

	calls []stepCall
	// answer gives a step's outcome; nil means Done with "did <Step>".
	answer func(n int, in observatory.StepInput) (observatory.StepResult, error)

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
	triggerAnswer func(n int) observatory.TriggersResult
	triggerTakes  time.Duration
	// reads counts ReadReservation; heals PlanLiveDevices, whose inputs are live.
	// PlanLiveDevices answers livePlan; StartLiveDevices answers liveStarted by server, and
	// RestartGuider liveStarted["guider"], or startFails; liveParts are the parts that ran, as
	// "LeaveDevice Rotator east-main".
	reads, heals int
	live         []observatory.LiveInput
	livePlan     observatory.LivePlan
	liveStarted  map[string]observatory.LiveStarted
	startFails   error
	liveParts    []string
}

func (f *fakeCluster) runTriggers(context.Context, observatory.StepInput) (observatory.TriggersResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.triggerPasses = append(f.triggerPasses, f.env.Now().UTC())
	if f.triggerAnswer != nil {
		return f.triggerAnswer(len(f.triggerPasses)), nil
	}
	return observatory.TriggersResult{}, nil
}

type observation struct {
	What string
	At   time.Time
	In   observatory.StepInput
}

func (f *fakeCluster) observeDuration() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.observeFor
}

func (f *fakeCluster) observed(context.Context, observatory.StepInput) error {
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
		res: observatory.ReservationState{
			UID: "uid-a", Generation: 1, Created: rt0.Add(-time.Hour),
			Spec:        obsv1.ReservationSpec{Telescope: "east", Holder: "ada"},
			Telescope:   observatory.TargetState{Name: "east", Exists: true},
			Observatory: observatory.TargetState{Name: "lab", Exists: true},
		},
		finalizers: map[string]bool{},
		observeFor: 366 * 24 * time.Hour,
	}
}

func (f *fakeCluster) read(_ context.Context, ref observatory.ReservationRef) (observatory.ReservationState, error) {
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

func (f *fakeCluster) addFinalizer(_ context.Context, ref observatory.FinalizerRef) (observatory.FinalizerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := string(ref.Kind) + "/" + ref.Name
	if ref.Kind == obsv1.KindTelescope && f.res.Telescope.Deleting {
		return observatory.FinalizerResult{Deleting: true}, nil
	}
	f.finalizerCalls = append(f.finalizerCalls, "+"+key)
	f.finalizers[key] = true
	return observatory.FinalizerResult{Has: true, Changed: true}, nil
}

func (f *fakeCluster) removeFinalizer(_ context.Context, ref observatory.FinalizerRef) (observatory.FinalizerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := string(ref.Kind) + "/" + ref.Name
	f.finalizerCalls = append(f.finalizerCalls, "-"+key)
	delete(f.finalizers, key)
	return observatory.FinalizerResult{Changed: true}, nil
}

func (f *fakeCluster) write(_ context.Context, w observatory.ReservationStatusWrite) (observatory.StatusWritten, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes = append(f.writes, *w.Status.DeepCopy())
	f.events = append(f.events, w.Events...)
	return observatory.StatusWritten{Wrote: true}, nil
}

func (f *fakeCluster) removeRetry(_ context.Context, in observatory.RetryRemoval) error {
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

func (f *fakeCluster) step(ctx context.Context, in observatory.StepInput) (observatory.StepResult, error) {
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
	return observatory.StepResult{Summary: "did " + in.Step}, nil
}

// change edits the fake cluster at after and signals the workflow, as the watcher would.
func (f *fakeCluster) change(after time.Duration, why string, edit func(*observatory.ReservationState)) {
	f.env.RegisterDelayedCallback(func() {
		f.mu.Lock()
		edit(&f.res)
		f.mu.Unlock()
		f.env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: why})
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
	env.RegisterWorkflowWithOptions(Reservation, workflow.RegisterOptions{Name: contract.ReservationWorkflow})
	env.OnActivity(observatoryActs.ReadReservation, mock.Anything, mock.Anything).Return(f.read).Maybe()
	env.OnActivity(observatoryActs.AddDeactivateFinalizer, mock.Anything, mock.Anything).Return(f.addFinalizer).Maybe()
	env.OnActivity(observatoryActs.RemoveDeactivateFinalizer, mock.Anything, mock.Anything).Return(f.removeFinalizer).Maybe()
	env.OnActivity(observatoryActs.WriteReservationStatus, mock.Anything, mock.Anything).Return(f.write).Maybe()
	env.OnActivity(observatoryActs.RemoveRetryAnnotation, mock.Anything, mock.Anything).Return(f.removeRetry).Maybe()
	env.OnActivity(observatoryActs.GrantAccess, mock.Anything, mock.Anything).Return(observatory.AccessGranted{}, nil).Maybe()
	env.OnActivity(observatoryActs.RevokeAccess, mock.Anything, mock.Anything).Return(nil).Maybe()
	env.OnActivity(observatoryActs.SignalCoordinator, mock.Anything, mock.Anything).Return(f.coordinate(t)).Maybe()
	// The workflow schedules a step's activity by its name, which a mock by name needs
	// registered first.
	env.RegisterActivity(observatoryActs)
	for _, step := range workingSteps {
		env.OnActivity(step, mock.Anything, mock.Anything).Return(f.step).Maybe()
	}
	// The observer runs until it is cancelled. It waits on the workflow's clock (AfterFn),
	// not on its context: a running activity would keep the test clock from skipping ahead.
	env.OnActivity(observatoryActs.ObserveDevices, mock.Anything, mock.Anything).AfterFn(f.observeDuration).Return(f.observed).Maybe()
	env.OnActivity(observatoryActs.RunTriggers, mock.Anything, mock.Anything).AfterFn(func() time.Duration { return f.triggerTakes }).Return(f.runTriggers).Maybe()
	f.mockLivePlan(env)
	env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, args converter.EncodedValues) {
		f.noteLivePart(info.ActivityType.Name, args)
		if info.ActivityType.Name != "ObserveDevices" {
			return
		}
		var in observatory.StepInput
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

// workingSteps are the steps with an activity of their name: all but Wait.
var workingSteps = slices.Concat(kube.ActivationSteps[1:], kube.DeactivationSteps)

func run(t *testing.T, env *testsuite.TestWorkflowEnvironment) {
	t.Helper()
	env.ExecuteWorkflow(Reservation, contract.ReservationInput{Namespace: "observatory", Name: "a"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
}

// mockLivePlan answers PlanLiveDevices with f.livePlan, and writes down each part that runs.
func (f *fakeCluster) mockLivePlan(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(observatoryActs.PlanLiveDevices, mock.Anything, mock.Anything).Return(func(_ context.Context, in observatory.LiveInput) (observatory.LivePlan, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.heals++
		f.live = append(f.live, in)
		return f.livePlan, nil
	}).Maybe()
	for _, fn := range []any{observatoryActs.LeaveDevice, observatoryActs.RefuseDevices, observatoryActs.ConnectLiveDevices, observatoryActs.ActivateDevice} {
		env.OnActivity(fn, mock.Anything, mock.Anything).Return(nil).Maybe()
	}
	env.OnActivity(observatoryActs.StartLiveDevices, mock.Anything, mock.Anything).Return(func(_ context.Context, in observatory.LiveServerInput) (observatory.LiveStarted, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.liveStarted[in.Server.Server], f.startFails
	}).Maybe()
	env.OnActivity(observatoryActs.RestartGuider, mock.Anything, mock.Anything).Return(func(context.Context, observatory.LiveInput) (observatory.LiveStarted, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.liveStarted["guider"], nil
	}).Maybe()
}

// noteLivePart writes down a part of a live plan as it starts: "LeaveDevice Rotator
// east-main", "StartLiveDevices Telescope east", "Configure".
func (f *fakeCluster) noteLivePart(name string, args converter.EncodedValues) {
	var in observatory.LiveServerInput
	switch name {
	case "LeaveDevice", "ActivateDevice":
		_ = args.Get(&in)
		name += " " + string(in.Device.Kind) + " " + in.Device.Name
	case "RefuseDevices", "StartLiveDevices", "ConnectLiveDevices":
		_ = args.Get(&in)
		name += " " + string(in.Server.Owner.Kind) + " " + in.Server.Owner.Name
	case "Configure":
		_ = args.Get(&in.StepInput)
		if in.Step != "LiveDevices" {
			return
		}
	case "RestartGuider":
	default:
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.liveParts = append(f.liveParts, name)
}
