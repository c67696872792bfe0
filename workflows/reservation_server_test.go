// Tests of several reservations at once, on a real Temporal dev server (internal/testenv) with
// an in-process worker: the Reservation, Telescope and Observatory workflows signal each other
// through Temporal, which the test environment of one workflow cannot do. The Kubernetes side
// is a fake registered under the activities' own names (the activities are what is faked, not
// Temporal); SignalCoordinator is the real one, so its SignalWithStart and the messages'
// round trip through the data converter are proven here too.
package workflows

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities"
	"liken.sh/runner/internal/testenv"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, testenv.Options{Temporal: true}, &env) }

var (
	dialOnce   sync.Once
	dialed     client.Client
	dialFailed error
)

// temporalClient dials the dev server once and registers the search attributes the
// reservations upsert, as `make run` and deploy/temporal do.
func temporalClient(t *testing.T) client.Client {
	t.Helper()
	dialOnce.Do(func() {
		dialed, dialFailed = client.Dial(client.Options{HostPort: env.TemporalAddress, Logger: testenv.Quiet()})
		if dialFailed != nil {
			return
		}
		attrs := map[string]enumspb.IndexedValueType{}
		for name, typ := range SearchAttributes {
			attrs[name] = enumspb.IndexedValueType(enumspb.IndexedValueType_value["INDEXED_VALUE_TYPE_"+strings.ToUpper(typ)])
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, dialFailed = dialed.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
			Namespace: "default", SearchAttributes: attrs,
		})
	})
	require.NoError(t, dialFailed)
	return dialed
}

// serverCall is one run of a step on the fake.
type serverCall struct {
	Reservation, Step string
	In                activities.StepInput
	At                time.Time
}

// fakeSite is the Kubernetes side of one test: reservations, telescopes and observatories
// in one namespace, the finalizers, and every status written.
type fakeSite struct {
	// passes counts the passes over the triggers.
	passes atomic.Int64

	t  *testing.T
	ns string
	c  client.Client

	mu            sync.Mutex
	reservations  map[string]*activities.ReservationState
	telescopes    map[string]*activities.TargetState // with the observatory's name in observatoryOf
	observatoryOf map[string]string
	observatories map[string]*activities.TargetState
	finalizers    map[string]bool
	finalizerLog  []string
	writes        map[string][]obsv1.ReservationStatus
	calls         []serverCall
	// slow makes a step take a while, so that two reservations overlap in it.
	slow map[string]time.Duration
	// answer, when set, runs a step instead of the default "did <Step>".
	answer func(ctx context.Context, in activities.StepInput) (activities.StepResult, error)
}

var notDNS = regexp.MustCompile(`[^a-z0-9]+`)

func newFakeSite(t *testing.T) *fakeSite {
	ns := strings.Trim(notDNS.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(ns) > 40 {
		ns = ns[:40]
	}
	return &fakeSite{
		t: t, ns: ns, c: temporalClient(t),
		reservations: map[string]*activities.ReservationState{}, telescopes: map[string]*activities.TargetState{},
		observatoryOf: map[string]string{}, observatories: map[string]*activities.TargetState{},
		finalizers: map[string]bool{}, writes: map[string][]obsv1.ReservationStatus{}, slow: map[string]time.Duration{},
	}
}

func (f *fakeSite) telescope(name, observatory string) {
	f.t.Cleanup(func() {
		_ = f.c.TerminateWorkflow(context.Background(), TelescopeWorkflowID(f.ns, name), "", "test over")
		_ = f.c.TerminateWorkflow(context.Background(), ObservatoryWorkflowID(f.ns, observatory), "", "test over")
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.telescopes[name] = &activities.TargetState{Name: name, Exists: true}
	f.observatoryOf[name] = observatory
	f.observatories[observatory] = &activities.TargetState{Name: observatory, Exists: true}
}

// startWorker runs a worker for this test on its own task queue.
func (f *fakeSite) startWorker() string {
	queue := f.ns
	// The SDK sends heartbeats, and so hears of a cancel, at most this often; the worker's
	// default (up to 80% of the heartbeat timeout) would make a cut-short step take 24 s.
	w := worker.New(f.c, queue, worker.Options{MaxHeartbeatThrottleInterval: 500 * time.Millisecond})
	RegisterWorkflows(w)
	reg := func(fn any, name string) { w.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name}) }
	reg(f.read, "ReadReservation")
	reg(f.addFinalizer, "AddDeactivateFinalizer")
	reg(f.removeFinalizer, "RemoveDeactivateFinalizer")
	reg(f.write, "WriteReservationStatus")
	reg(func(context.Context, activities.RetryRemoval) error { return nil }, "RemoveRetryAnnotation")
	reg((&activities.Activities{Temporal: f.c}).SignalCoordinator, "SignalCoordinator")
	for step := range steps {
		reg(f.step, step)
	}
	reg(f.observe, "ObserveDevices")
	// A reservation without triggers: each pass finds nothing to run.
	reg(func(context.Context, activities.StepInput) (activities.TriggersResult, error) {
		f.passes.Add(1)
		return activities.TriggersResult{}, nil
	}, "RunTriggers")
	require.NoError(f.t, w.Start())
	f.t.Cleanup(w.Stop)
	return queue
}

// reserve creates a Reservation and starts its workflow, as the watcher would.
func (f *fakeSite) reserve(queue, name, telescope string, created time.Time, start *time.Time) {
	f.mu.Lock()
	st := &activities.ReservationState{
		UID: "uid-" + name, Generation: 1, Created: created,
		Spec: obsv1.ReservationSpec{Telescope: telescope, Holder: "holder-of-" + name},
	}
	if start != nil {
		st.Spec.Start = &metav1.Time{Time: *start}
	}
	f.reservations[name] = st
	f.mu.Unlock()
	id := ReservationWorkflowID(f.ns, name)
	_, err := f.c.ExecuteWorkflow(context.Background(), ReservationStartOptions(queue, f.ns, name, st.Spec),
		ReservationWorkflow, ReservationInput{Namespace: f.ns, Name: name})
	require.NoError(f.t, err)
	f.t.Cleanup(func() {
		// A test that failed half-way leaves nothing running for the next.
		_ = f.c.TerminateWorkflow(context.Background(), id, "", "test over")
	})
}

// remove deletes a Reservation (it waits on its finalizer) and tells its workflow.
func (f *fakeSite) remove(name string) {
	f.mu.Lock()
	f.reservations[name].Deleting = true
	f.mu.Unlock()
	require.NoError(f.t, f.c.SignalWorkflow(context.Background(), ReservationWorkflowID(f.ns, name), "", ReservationChanged,
		ReservationChange{Deleted: true, Why: "deleted"}))
}

func (f *fakeSite) status(name string) obsv1.ReservationStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.writes[name]
	if len(w) == 0 {
		return obsv1.ReservationStatus{}
	}
	return *w[len(w)-1].DeepCopy()
}

// await waits (bounded) until the reservation's status satisfies ok.
func (f *fakeSite) await(name, what string, ok func(obsv1.ReservationStatus) bool) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ok(f.status(name)) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.t.Fatalf("%s never %s; its status: phase %q step %q, Wait %q", name, what, f.status(name).Phase, f.status(name).Step,
		summaryOf(f.status(name), kube.StepWait))
}

func phaseIs(p obsv1.ReservationPhase) func(obsv1.ReservationStatus) bool {
	return func(s obsv1.ReservationStatus) bool { return s.Phase == p }
}

func (f *fakeSite) read(_ context.Context, ref activities.ReservationRef) (activities.ReservationState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.reservations[ref.Name]
	if !ok {
		return activities.ReservationState{Gone: true}, nil
	}
	st := *r
	st.HasFinalizer = f.finalizers["Reservation/"+ref.Name]
	if w := f.writes[ref.Name]; len(w) > 0 {
		st.Status = *w[len(w)-1].DeepCopy()
	}
	if tel, ok := f.telescopes[r.Spec.Telescope]; ok {
		st.Telescope = *tel
		st.Observatory = *f.observatories[f.observatoryOf[tel.Name]]
	} else {
		st.Telescope = activities.TargetState{Name: r.Spec.Telescope}
	}
	return st, nil
}

func (f *fakeSite) addFinalizer(_ context.Context, ref activities.FinalizerRef) (activities.FinalizerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := string(ref.Kind) + "/" + ref.Name
	if !f.finalizers[key] {
		f.finalizerLog = append(f.finalizerLog, "+"+key)
	}
	f.finalizers[key] = true
	return activities.FinalizerResult{Has: true, Changed: true}, nil
}

// holds tells whether the finalizer of key (Kind/name) is on; the workflows run on while a
// test reads it.
func (f *fakeSite) holds(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finalizers[key]
}

func (f *fakeSite) removeFinalizer(_ context.Context, ref activities.FinalizerRef) (activities.FinalizerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := string(ref.Kind) + "/" + ref.Name
	if f.finalizers[key] {
		f.finalizerLog = append(f.finalizerLog, "-"+key)
	}
	delete(f.finalizers, key)
	return activities.FinalizerResult{Changed: true}, nil
}

func (f *fakeSite) write(_ context.Context, w activities.ReservationStatusWrite) (activities.StatusWritten, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes[w.Ref.Name] = append(f.writes[w.Ref.Name], *w.Status.DeepCopy())
	return activities.StatusWritten{Wrote: true}, nil
}

func (f *fakeSite) step(ctx context.Context, in activities.StepInput) (activities.StepResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, serverCall{Reservation: in.Reservation, Step: in.Step, In: in, At: time.Now()})
	slow, answer := f.slow[in.Step], f.answer
	f.mu.Unlock()
	if answer != nil {
		return answer(ctx, in)
	}
	if slow > 0 {
		select {
		case <-time.After(slow):
		case <-ctx.Done():
			return activities.StepResult{}, ctx.Err()
		}
	}
	res := activities.StepResult{Summary: "did " + in.Step + " for " + in.Telescope}
	if in.Step == kube.StepPowerOn {
		res.Devices = []string{"Mount " + in.Telescope, "Camera " + in.Telescope + "-main"}
	}
	return res, nil
}

// observe stands in for ObserveDevices: it runs until cancelled, heartbeating, as the
// real one does, since a cancel reaches an activity with a heartbeat's answer.
func (f *fakeSite) observe(ctx context.Context, in activities.StepInput) error {
	f.mu.Lock()
	f.calls = append(f.calls, serverCall{Reservation: in.Reservation, Step: "Observe", In: in, At: time.Now()})
	f.mu.Unlock()
	for {
		activity.RecordHeartbeat(ctx, "observing")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// callsOf is the steps that ran for a reservation, or for anyone when name is empty.
func (f *fakeSite) callsOf(name, step string) []serverCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []serverCall
	for _, c := range f.calls {
		if (name == "" || c.Reservation == name) && (step == "" || c.Step == step) {
			out = append(out, c)
		}
	}
	return out
}

// ended waits until a coordinating workflow has ended by itself.
func (f *fakeSite) ended(id string) {
	f.t.Helper()
	require.Eventually(f.t, func() bool {
		d, err := f.c.DescribeWorkflow(context.Background(), id, "")
		return err == nil && d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}, 30*time.Second, 50*time.Millisecond, "%s did not end by itself", id)
}

func TestASecondReservationOfATelescopeWaitsForTheFirstToBeReleased(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	q := f.startWorker()
	now := time.Now().UTC().Truncate(time.Second)

	f.reserve(q, "first", "east", now.Add(-2*time.Minute), nil)
	f.await("first", "became Ready", phaseIs(obsv1.ReservationReady))
	f.reserve(q, "second", "east", now.Add(-time.Minute), nil)
	f.await("second", "named the holder in its Wait", func(s obsv1.ReservationStatus) bool {
		return summaryOf(s, kube.StepWait) == "Telescope east is held by Reservation first"
	})
	assert.Equal(t, obsv1.ReservationScheduled, f.status("second").Phase)
	assert.Empty(t, f.callsOf("second", ""), "the second ran no step while the first held the telescope")

	f.remove("first")
	f.await("first", "was Released", phaseIs(obsv1.ReservationReleased))
	f.await("second", "became Ready", phaseIs(obsv1.ReservationReady))
	firstStop := f.callsOf("first", kube.StepStopSite)
	secondStart := f.callsOf("second", kube.StepStartSite)
	require.Len(t, firstStop, 1)
	require.Len(t, secondStart, 1)
	assert.True(t, firstStop[0].At.Before(secondStart[0].At), "the second started after the first was down")
	assert.Equal(t, "Took Telescope east", summaryOf(f.status("second"), kube.StepWait))

	f.remove("second")
	f.await("second", "was Released", phaseIs(obsv1.ReservationReleased))
	f.ended(TelescopeWorkflowID(f.ns, "east"))
	f.ended(ObservatoryWorkflowID(f.ns, "lab"))
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Empty(t, f.finalizers, "every finalizer was given back")
	assert.Equal(t, []string{
		"+Reservation/first", "+Telescope/east", "+Observatory/lab", "+Reservation/second",
		"-Observatory/lab", "-Telescope/east", "-Reservation/first",
		"+Telescope/east", "+Observatory/lab", "-Observatory/lab", "-Telescope/east", "-Reservation/second",
	}, f.finalizerLog)

	// What the Temporal UI shows of a released reservation.
	d, err := f.c.DescribeWorkflow(context.Background(), ReservationWorkflowID(f.ns, "first"), "")
	require.NoError(t, err)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, d.Status)
	sa := d.TypedSearchAttributes
	tel, _ := sa.GetKeyword(SearchTelescope)
	holder, _ := sa.GetKeyword(SearchHolder)
	phase, _ := sa.GetKeyword(SearchPhase)
	assert.Equal(t, "east", tel)
	assert.Equal(t, "holder-of-first", holder)
	assert.Equal(t, "Released", phase)
	assert.False(t, sa.ContainsKey(SearchStep), "a released reservation has no step")
}

func TestWaitingReservationsTakeTheTelescopeByStartThenCreationThenName(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	q := f.startWorker()
	now := time.Now().UTC().Truncate(time.Second)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }

	f.reserve(q, "holder", "east", now.Add(-time.Hour), nil)
	f.await("holder", "became Ready", phaseIs(obsv1.ReservationReady))
	// Asked in the opposite of the order they are served in.
	f.reserve(q, "zz", "east", now.Add(-5*time.Minute), at(-10*time.Minute))
	f.reserve(q, "aa", "east", now.Add(-5*time.Minute), at(-10*time.Minute))
	f.reserve(q, "early", "east", now.Add(-time.Minute), at(-20*time.Minute))
	for _, n := range []string{"zz", "aa", "early"} {
		f.await(n, "waited for the holder", func(s obsv1.ReservationStatus) bool {
			return summaryOf(s, kube.StepWait) == "Telescope east is held by Reservation holder"
		})
	}

	var order []string
	last := "holder"
	for range 3 {
		f.remove(last)
		f.await(last, "was Released", phaseIs(obsv1.ReservationReleased))
		require.Eventually(t, func() bool {
			for _, n := range []string{"zz", "aa", "early"} {
				if f.status(n).Phase != obsv1.ReservationScheduled && f.status(n).Phase != obsv1.ReservationReleased && n != last {
					last = n
					return true
				}
			}
			return false
		}, 30*time.Second, 20*time.Millisecond, "nobody took the telescope after %s", last)
		f.await(last, "became Ready", phaseIs(obsv1.ReservationReady))
		order = append(order, last)
	}
	assert.Equal(t, []string{"early", "aa", "zz"}, order)
	f.remove(last)
	f.await(last, "was Released", phaseIs(obsv1.ReservationReleased))
	f.ended(TelescopeWorkflowID(f.ns, "east"))
}

func TestTwoTelescopesOfOneObservatoryStartTheSiteOnceAndTheLastStopsIt(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	f.telescope("west", "lab")
	f.slow[kube.StepStartSite] = 300 * time.Millisecond
	q := f.startWorker()
	now := time.Now().UTC().Truncate(time.Second)

	f.reserve(q, "e", "east", now.Add(-time.Minute), nil)
	f.reserve(q, "w", "west", now.Add(-time.Minute), nil)
	f.await("e", "became Ready", phaseIs(obsv1.ReservationReady))
	f.await("w", "became Ready", phaseIs(obsv1.ReservationReady))

	starts := f.callsOf("", kube.StepStartSite)
	require.Len(t, starts, 1, "StartSite ran once for the two telescopes")
	other := map[string]string{"e": "w", "w": "e"}[starts[0].Reservation]
	st := f.status(other)
	assert.Equal(t, obsv1.RunSkipped, stateOf(st, kube.StepStartSite))
	assert.Equal(t, "Observatory lab is already up for Telescope "+map[string]string{"e": "east", "w": "west"}[starts[0].Reservation],
		summaryOf(st, kube.StepStartSite))
	tiers := 0
	for _, c := range f.callsOf("", kube.StepActivation) {
		if c.In.SiteTiers {
			tiers++
		}
	}
	assert.Equal(t, 1, tiers, "the observatory's activation tiers ran once")

	f.remove("e")
	f.await("e", "was Released", phaseIs(obsv1.ReservationReleased))
	assert.Empty(t, f.callsOf("e", kube.StepStopSite), "the first to end does not stop the site")
	assert.Equal(t, "Observatory lab is still in use by Telescope west", summaryOf(f.status("e"), kube.StepStopSite))
	require.Len(t, f.callsOf("e", kube.StepDeactivation), 1)
	assert.False(t, f.callsOf("e", kube.StepDeactivation)[0].In.SiteTiers, "nor deactivate its tiers")
	assert.True(t, f.holds("Observatory/lab"), "the observatory stays held while west is")

	f.remove("w")
	f.await("w", "was Released", phaseIs(obsv1.ReservationReleased))
	require.Len(t, f.callsOf("w", kube.StepStopSite), 1, "the last to end stops the site")
	assert.True(t, f.callsOf("w", kube.StepDeactivation)[0].In.SiteTiers)
	assert.False(t, f.holds("Observatory/lab"))
	f.ended(ObservatoryWorkflowID(f.ns, "lab"))
}

func TestAStepPastItsDeadlineOnARealServerTimesOutWithItsLastHeartbeat(t *testing.T) {
	old := stepDeadline
	stepDeadline = func(step string) time.Duration {
		if step == kube.StepPowerOn {
			return 2 * time.Second
		}
		return kube.StepDeadline(step)
	}
	t.Cleanup(func() { stepDeadline = old })
	f := newFakeSite(t)
	f.telescope("east", "lab")
	f.answer = func(ctx context.Context, in activities.StepInput) (activities.StepResult, error) {
		if in.Step != kube.StepPowerOn {
			return activities.StepResult{}, nil
		}
		for {
			activity.RecordHeartbeat(ctx, "waiting for pod east-switch to be Ready")
			select {
			case <-ctx.Done():
				return activities.StepResult{}, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	q := f.startWorker()
	f.reserve(q, "a", "east", time.Now().Add(-time.Minute), nil)
	f.await("a", "failed", phaseIs(obsv1.ReservationFailed))
	st := f.status("a")
	c := kube.ReservationCondition(&st, obsv1.ConditionReady)
	assert.Equal(t, "StepTimedOut", c.Reason)
	assert.Equal(t, "timed out after 2s: waiting for pod east-switch to be Ready", c.Message)
	assert.Equal(t, kube.StepPowerOn, st.Step)

	// Deleting it now deactivates from Abort; nothing is undone before.
	f.remove("a")
	f.await("a", "was Released", phaseIs(obsv1.ReservationReleased))
	assert.Equal(t, obsv1.RunFailed, stateOf(f.status("a"), kube.StepPowerOn))
}

func TestAReservationWhoseStepsAllFailKeepsItsFinalizers(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	f.answer = func(ctx context.Context, in activities.StepInput) (activities.StepResult, error) {
		// A cluster where nothing works: every step refuses, as a user-fixable failure.
		return activities.StepResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("Failed: the %s step cannot reach the cluster", in.Step), activities.ErrStepFailed, nil)
	}
	q := f.startWorker()
	f.reserve(q, "a", "east", time.Now().Add(-time.Minute), nil)
	f.await("a", "failed", phaseIs(obsv1.ReservationFailed))
	st := f.status("a")
	assert.Equal(t, kube.StepStartSite, st.Step)
	assert.Equal(t, "Failed: the StartSite step cannot reach the cluster", kube.ReservationCondition(&st, obsv1.ConditionReady).Message)

	// Deleted, it deactivates from Abort, which fails too: the finalizer stays, and so does
	// the telescope's, until a retry gets the deactivation through.
	f.remove("a")
	f.await("a", "failed at Abort", func(s obsv1.ReservationStatus) bool {
		return s.Phase == obsv1.ReservationFailed && s.Step == kube.StepAbort
	})
	assert.True(t, f.holds("Reservation/a"))
	assert.True(t, f.holds("Telescope/east"))
}

func TestADeleteDuringAStepCancelsItAndDeactivates(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	started, cancelled := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.answer = func(ctx context.Context, in activities.StepInput) (activities.StepResult, error) {
		if in.Step != kube.StepStartDevices {
			return activities.StepResult{Summary: "did " + in.Step}, nil
		}
		once.Do(func() { close(started) })
		for {
			// A step heartbeats, which is how it hears of a cancel.
			activity.RecordHeartbeat(ctx, "waiting for pod east-mount to be Ready")
			select {
			case <-ctx.Done():
				close(cancelled)
				return activities.StepResult{}, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	q := f.startWorker()
	f.reserve(q, "a", "east", time.Now().Add(-time.Minute), nil)
	// The status names the step before its activity runs; a delete in between would cancel
	// an activity no worker has started, which is a different path.
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("StartDevices did not start")
	}
	f.remove("a")
	f.await("a", "was Released", phaseIs(obsv1.ReservationReleased))
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("StartDevices was not cancelled")
	}
	st := f.status("a")
	assert.Equal(t, obsv1.RunSkipped, stateOf(st, kube.StepStartDevices))
	assert.Equal(t, "reservation ended", summaryOf(st, kube.StepStartDevices))
	assert.True(t, strings.HasPrefix(summaryOf(st, kube.StepAbort), "Reservation a was deleted"))
	abort := f.callsOf("a", kube.StepAbort)
	require.Len(t, abort, 1)
	assert.Equal(t, "Reservation a was deleted", abort[0].In.Why)
}

func TestTheHistoriesOfReservationsAndTheirLocksReplay(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	f.telescope("west", "lab")
	q := f.startWorker()
	now := time.Now().UTC().Truncate(time.Second)
	f.reserve(q, "first", "east", now.Add(-2*time.Minute), nil)
	f.reserve(q, "second", "east", now.Add(-time.Minute), nil)
	f.reserve(q, "third", "west", now.Add(-time.Minute), nil)
	f.await("first", "became Ready", phaseIs(obsv1.ReservationReady))
	f.await("third", "became Ready", phaseIs(obsv1.ReservationReady))
	f.await("second", "waited", func(s obsv1.ReservationStatus) bool {
		return summaryOf(s, kube.StepWait) == "Telescope east is held by Reservation first"
	})
	for _, n := range []string{"first", "second", "third"} {
		if n == "second" {
			f.await(n, "became Ready", phaseIs(obsv1.ReservationReady))
		}
		f.remove(n)
		f.await(n, "was Released", phaseIs(obsv1.ReservationReleased))
	}
	f.ended(TelescopeWorkflowID(f.ns, "east"))
	f.ended(TelescopeWorkflowID(f.ns, "west"))
	f.ended(ObservatoryWorkflowID(f.ns, "lab"))

	// Every decision the three workflows made replays from their histories: none depends on
	// anything but the history (map order, wall clock).
	r := worker.NewWorkflowReplayer()
	RegisterWorkflows(r)
	for _, id := range []string{
		ReservationWorkflowID(f.ns, "first"), ReservationWorkflowID(f.ns, "second"), ReservationWorkflowID(f.ns, "third"),
		TelescopeWorkflowID(f.ns, "east"), TelescopeWorkflowID(f.ns, "west"), ObservatoryWorkflowID(f.ns, "lab"),
	} {
		t.Run(id, func(t *testing.T) {
			h := &historypb.History{}
			it := f.c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				require.NoError(t, err)
				h.Events = append(h.Events, e)
			}
			require.NotEmpty(t, h.Events)
			require.NoError(t, r.ReplayWorkflowHistory(nil, h))
		})
	}
}
