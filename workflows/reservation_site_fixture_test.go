// The fake site the reservation tests on a real Temporal dev server run against: telescopes
// and an observatory in memory, a worker whose activities are the fake's, and the calls it
// saw, for several reservations at once.
package workflows

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

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
		for name, typ := range contract.SearchAttributes {
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
	In                observatory.StepInput
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
	reservations  map[string]*observatory.ReservationState
	telescopes    map[string]*observatory.TargetState // with the observatory's name in observatoryOf
	observatoryOf map[string]string
	observatories map[string]*observatory.TargetState
	finalizers    map[string]bool
	finalizerLog  []string
	writes        map[string][]obsv1.ReservationStatus
	calls         []serverCall
	// slow makes a step take a while, so that two reservations overlap in it.
	slow map[string]time.Duration
	// answer, when set, runs a step instead of the default "did <Step>".
	answer func(ctx context.Context, in observatory.StepInput) (observatory.StepResult, error)
}

var notDNS = regexp.MustCompile(`[^a-z0-9]+`)

func newFakeSite(t *testing.T) *fakeSite {
	ns := strings.Trim(notDNS.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(ns) > 40 {
		ns = ns[:40]
	}
	return &fakeSite{
		t: t, ns: ns, c: temporalClient(t),
		reservations: map[string]*observatory.ReservationState{}, telescopes: map[string]*observatory.TargetState{},
		observatoryOf: map[string]string{}, observatories: map[string]*observatory.TargetState{},
		finalizers: map[string]bool{}, writes: map[string][]obsv1.ReservationStatus{}, slow: map[string]time.Duration{},
	}
}

func (f *fakeSite) telescope(name, obs string) {
	f.t.Cleanup(func() {
		_ = f.c.TerminateWorkflow(context.Background(), contract.TelescopeLockID(f.ns, name), "", "test over")
		_ = f.c.TerminateWorkflow(context.Background(), contract.SiteTurnsID(f.ns, obs), "", "test over")
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.telescopes[name] = &observatory.TargetState{Name: name, Exists: true}
	f.observatoryOf[name] = obs
	f.observatories[obs] = &observatory.TargetState{Name: obs, Exists: true}
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
	reg(func(context.Context, observatory.RetryRemoval) error { return nil }, "RemoveRetryAnnotation")
	reg(func(context.Context, observatory.AccessGrant) (observatory.AccessGranted, error) {
		return observatory.AccessGranted{}, nil
	}, "GrantAccess")
	reg(func(context.Context, observatory.ReservationRef) error { return nil }, "RevokeAccess")
	reg((&observatory.Activities{Clients: activities.Clients{Temporal: f.c}}).SignalCoordinator, "SignalCoordinator")
	for _, step := range workingSteps {
		reg(f.step, step)
	}
	reg(f.observe, "ObserveDevices")
	// A reservation without triggers: each pass finds nothing to run.
	reg(func(context.Context, observatory.StepInput) (observatory.TriggersResult, error) {
		f.passes.Add(1)
		return observatory.TriggersResult{}, nil
	}, "RunTriggers")
	require.NoError(f.t, w.Start())
	f.t.Cleanup(w.Stop)
	return queue
}

// reserve creates a Reservation and starts its workflow, as the watcher would.
func (f *fakeSite) reserve(queue, name, telescope string, created time.Time, start *time.Time) {
	f.mu.Lock()
	st := &observatory.ReservationState{
		UID: "uid-" + name, Generation: 1, Created: created,
		Spec: obsv1.ReservationSpec{Telescope: telescope, Holder: "holder-of-" + name},
	}
	if start != nil {
		st.Spec.Start = &metav1.Time{Time: *start}
	}
	f.reservations[name] = st
	f.mu.Unlock()
	id := contract.ReservationID(f.ns, name)
	_, err := f.c.ExecuteWorkflow(context.Background(), contract.ReservationStartOptions(queue, f.ns, name, st.Spec),
		contract.ReservationWorkflow, contract.ReservationInput{Namespace: f.ns, Name: name})
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
	require.NoError(f.t, f.c.SignalWorkflow(context.Background(), contract.ReservationID(f.ns, name), "", contract.ReservationChanged,
		contract.ReservationChange{Deleted: true, Why: "deleted"}))
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

func (f *fakeSite) read(_ context.Context, ref observatory.ReservationRef) (observatory.ReservationState, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.reservations[ref.Name]
	if !ok {
		return observatory.ReservationState{Gone: true}, nil
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
		st.Telescope = observatory.TargetState{Name: r.Spec.Telescope}
	}
	return st, nil
}

func (f *fakeSite) addFinalizer(_ context.Context, ref observatory.FinalizerRef) (observatory.FinalizerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := string(ref.Kind) + "/" + ref.Name
	if !f.finalizers[key] {
		f.finalizerLog = append(f.finalizerLog, "+"+key)
	}
	f.finalizers[key] = true
	return observatory.FinalizerResult{Has: true, Changed: true}, nil
}

// holds tells whether the finalizer of key (Kind/name) is on; the workflows run on while a
// test reads it.
func (f *fakeSite) holds(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.finalizers[key]
}

func (f *fakeSite) removeFinalizer(_ context.Context, ref observatory.FinalizerRef) (observatory.FinalizerResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := string(ref.Kind) + "/" + ref.Name
	if f.finalizers[key] {
		f.finalizerLog = append(f.finalizerLog, "-"+key)
	}
	delete(f.finalizers, key)
	return observatory.FinalizerResult{Changed: true}, nil
}

func (f *fakeSite) write(_ context.Context, w observatory.ReservationStatusWrite) (observatory.StatusWritten, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes[w.Ref.Name] = append(f.writes[w.Ref.Name], *w.Status.DeepCopy())
	return observatory.StatusWritten{Wrote: true}, nil
}

func (f *fakeSite) step(ctx context.Context, in observatory.StepInput) (observatory.StepResult, error) {
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
			return observatory.StepResult{}, ctx.Err()
		}
	}
	res := observatory.StepResult{Summary: "did " + in.Step + " for " + in.Telescope}
	if in.Step == kube.StepPowerOn {
		res.Devices = []string{"Mount " + in.Telescope, "Camera " + in.Telescope + "-main"}
	}
	return res, nil
}

// observe stands in for ObserveDevices: it runs until cancelled, heartbeating, as the
// real one does, since a cancel reaches an activity with a heartbeat's answer.
func (f *fakeSite) observe(ctx context.Context, in observatory.StepInput) error {
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
