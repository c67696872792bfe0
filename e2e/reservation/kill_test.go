// A worker process killed with SIGKILL in the middle of a step, as when its node dies or the
// OOM killer picks it: nothing tells Temporal, so the step's activity goes to the next worker
// only once its heartbeat lapses (the workflow's step heartbeat timeout, three heartbeats). The
// worker binary runs in dev mode, whose local indiservers stand in for the INDI server pods:
// like pods, they outlive the killed worker, and the next worker adopts them. One reservation
// is killed at several kinds of step in turn, and must still be Ready and then Released having
// created each object once and left nothing behind.
package reservation

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/indi/indiserver"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

// stepHandOver bounds how long a killed worker's step takes to run again on the next worker:
// the workflow's heartbeat timeout (3 × observatory.StepHeartbeatEvery, 30 s) from the last
// heartbeat, the retry's first backoff (1 s), and a busy machine's slack.
const stepHandOver = 3*observatory.StepHeartbeatEvery + 30*time.Second

func TestAWorkerKilledInTheMiddleOfStepsIsReplacedAndNothingIsDoneTwiceOrLeftBehind(t *testing.T) {
	bin := env.Build(t, "./cmd/worker")
	var created *uidLog
	ns, queue, c := startReservation(t, func(ns string) {
		created = watchCreated(t, ns)
		// A Job first in the site's activation, so the Activation step creates a Job before
		// the dome's unpark, during which the worker is killed.
		_, err := env.Dynamic.Resource(obsv1.KindDome.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "lab",
			types.MergePatchType, []byte(`{"spec":{"activation":[{"job":{"image":"busybox","command":["true"]}},{"state":"Unparked","timeout":"5m"}]}}`),
			metav1.PatchOptions{})
		require.NoError(t, err)
	})
	id := contract.ReservationID(ns, "tonight")
	k := &killer{t: t, c: c, bin: bin, queue: queue, ns: ns, dir: t.TempDir(), servers: map[string]map[int]observatory.LocalINDIRecord{}}
	t.Cleanup(k.sweep) // registered first, so it runs after the workers' own cleanups
	w := k.start()

	var killed []string
	kill := func(ready func() bool, steps ...string) {
		t.Helper()
		var step string
		w, step = k.killDuring(w, ready, steps...)
		killed = append(killed, step)
	}
	kill(nil, kube.StepStartDevices)
	// The INDI steps take half a second each: should Connect end before the kill, Configure
	// is the one killed.
	kill(nil, kube.StepConnect, kube.StepConfigure)
	kill(func() bool { return created.count("Job") > 0 }, kube.StepActivation)
	k.await("became Ready", 2*stepHandOver, func(r *obsv1.Reservation) bool {
		return r.Status.Phase == obsv1.ReservationReady
	})

	// Its end comes: the spec changes and the watcher's signal (sent here by hand) says so.
	end := time.Now().Add(time.Second).UTC().Format(time.RFC3339)
	_, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "tonight",
		types.MergePatchType, []byte(`{"spec":{"end":"`+end+`"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	require.NoError(t, c.SignalWorkflow(context.Background(), id, "", contract.ReservationChanged,
		contract.ReservationChange{Why: "updated"}))
	kill(nil, kube.StepDeactivation)
	k.await("was Released", 2*stepHandOver, func(r *obsv1.Reservation) bool {
		return r.Status.Phase == obsv1.ReservationReleased
	})

	r, _ := reservation(t, ns, "tonight")
	var took []string
	for _, s := range r.Status.Steps {
		if s.StartTime != nil && s.StopTime != nil {
			took = append(took, fmt.Sprintf("%s %s", s.Name, s.StopTime.Sub(s.StartTime.Time)))
		}
	}
	t.Logf("steps took: %s", strings.Join(took, ", "))
	for _, s := range r.Status.Steps {
		assert.Contains(t, []obsv1.RunState{obsv1.RunDone, obsv1.RunSkipped}, s.State, "%s: %s", s.Name, s.Summary)
	}
	// Each kill hit its step while it ran: the step's activity ran again on the next worker.
	attempts := stepAttempts(t, c, id)
	for _, step := range killed {
		assert.GreaterOrEqual(t, attempts[step], int32(2), "%s ran again after its worker was killed", step)
	}

	// Nothing was done twice: every object was created once, under one name, and the Job of
	// the dome's activation exactly once.
	for key, uids := range created.all() {
		assert.Len(t, uids, 1, "%s was created %d times", key, len(uids))
	}
	assert.Equal(t, 9, created.count("Pod"), "the observatory's 3 pods and the telescope's 6: %v", created.keys())
	assert.Equal(t, 1, created.count("Job"), "one Job for one job action: %v", created.keys())

	noObjectLeft(t, ns)

	k.serversWereAdoptedAndEndWithTheLastWorker(w)
}

// serversWereAdoptedAndEndWithTheLastWorker: the indiservers stood in for pods: each was
// started once, then adopted by every next worker; the last worker's (w's) graceful stop ends
// them all and leaves no record.
func (k *killer) serversWereAdoptedAndEndWithTheLastWorker(w *testenv.Program) {
	k.t.Helper()
	k.noteServers()
	for name, pids := range k.servers {
		assert.Len(k.t, pids, 1, "the indiserver %s was started %d times", name, len(pids))
	}
	require.NotEmpty(k.t, k.servers, "the workers recorded their indiservers in %s", k.dir)
	w.Stop()
	for name, pids := range k.servers {
		for pid, r := range pids {
			_, err := indiserver.Attach(r.Address, r.Home, r.Pid)
			assert.Error(k.t, err, "the indiserver %s (pid %d) outlived the last worker's SIGTERM", name, pid)
		}
	}
	recs, err := observatory.ReadLocalINDIRecords(k.dir)
	require.NoError(k.t, err)
	assert.Empty(k.t, recs, "the last worker's SIGTERM left no record")
}

// noObjectLeft checks that the deactivation removed every managed object but the Jobs: no
// pod, Service, ConfigMap or ResourceClaim.
func noObjectLeft(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	managed := metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=" + kube.ObservatoryComponent}
	assert.Empty(t, managedPods(t, ns), "no pod is left")
	svcs, err := env.Kube.CoreV1().Services(ns).List(ctx, managed)
	require.NoError(t, err)
	assert.Empty(t, svcs.Items, "no Service is left")
	cms, err := env.Kube.CoreV1().ConfigMaps(ns).List(ctx, managed)
	require.NoError(t, err)
	assert.Empty(t, cms.Items, "no ConfigMap is left")
	claims, err := env.Kube.ResourceV1().ResourceClaims(ns).List(ctx, managed)
	require.NoError(t, err)
	assert.Empty(t, claims.Items, "no ResourceClaim is left")
}

// killer runs the worker binary, one process at a time, on the reservation's task queue.
type killer struct {
	t         *testing.T
	c         client.Client
	bin       string
	queue, ns string
	dir       string                                         // the dev mode's state folder, shared by every worker
	servers   map[string]map[int]observatory.LocalINDIRecord // each indiserver by pid, as the workers recorded them
}

// start runs a worker in dev mode and waits until it is ready.
func (k *killer) start() *testenv.Program {
	k.t.Helper()
	p := env.StartProgram(k.t, k.bin, "LIKEN_TASK_QUEUE="+k.queue, "LIKEN_DEV_LOCAL_INDI=true",
		"LIKEN_DEV_LOCAL_INDI_DIR="+k.dir, "LIKEN_LOG_LEVEL=warn")
	p.WaitReady()
	return p
}

// sweep stops whatever indiserver is still recorded once the last worker has had its SIGTERM
// (testenv's), should that worker not have stopped them: a failed test leaves nothing running.
func (k *killer) sweep() {
	recs, _ := observatory.ReadLocalINDIRecords(k.dir)
	for _, r := range recs {
		if s, err := indiserver.Attach(r.Address, r.Home, r.Pid); err == nil {
			s.Stop()
		}
	}
}

// killDuring waits until the first of steps runs on w (and until ready, if given), kills w with
// SIGKILL and starts the next worker. A step that ends before it could be killed leaves the
// kill to the next of steps. It returns the new worker and the step killed.
func (k *killer) killDuring(w *testenv.Program, ready func() bool, steps ...string) (*testenv.Program, string) {
	k.t.Helper()
	id := contract.ReservationID(k.ns, "tonight")
	identity := strconv.Itoa(w.Cmd.Process.Pid) + "@"
	deadline := time.Now().Add(2 * stepHandOver)
	var last string
	var since time.Time
	for {
		step := steps[0]
		if time.Now().After(deadline) {
			k.t.Fatalf("%s never ran on the worker %s to be killed in it; last seen: %s", step, identity, last)
		}
		r, _ := reservation(k.t, k.ns, "tonight")
		if r == nil {
			k.t.Fatalf("the Reservation went before %s", step)
		}
		rec := kube.FindStep(&r.Status, step)
		if rec != nil && rec.State != obsv1.RunRunning && rec.State != obsv1.RunPending {
			if len(steps) == 1 {
				k.t.Fatalf("%s ended (%s: %s) before its worker could be killed in it: too quick for this test",
					step, rec.State, rec.Summary)
			}
			k.t.Logf("%s ended before its worker could be killed in it; trying %s", step, steps[1])
			steps = steps[1:]
			continue
		}
		last = fmt.Sprintf("phase %s, step %s", r.Status.Phase, r.Status.Step)
		if r.Status.Step == step && rec != nil && rec.State == obsv1.RunRunning && (ready == nil || ready()) {
			if since = activityStartedOn(k.t, k.c, id, step, identity); !since.IsZero() {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	k.noteServers()
	require.NoError(k.t, w.Cmd.Process.Kill())
	awaitExit(w.Cmd.Process, 10*time.Second)
	k.t.Logf("killed the worker %s %s into %s", identity, time.Since(since).Round(time.Millisecond), steps[0])
	return k.start(), steps[0]
}

// await waits until ok holds of the Reservation, at most within.
func (k *killer) await(what string, within time.Duration, ok func(*obsv1.Reservation) bool) {
	k.t.Helper()
	var last *obsv1.Reservation
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		r, _ := reservation(k.t, k.ns, "tonight")
		if r != nil && ok(r) {
			return
		}
		last = r
	}
	if last == nil {
		k.t.Fatalf("the Reservation never %s: it is gone", what)
	}
	var steps []string
	for _, s := range last.Status.Steps {
		steps = append(steps, s.Name+"="+string(s.State)+": "+s.Summary)
	}
	k.t.Fatalf("the Reservation never %s within %s after its worker was killed: phase %q, step %q; steps %q",
		what, within, last.Status.Phase, last.Status.Step, steps)
}

// noteServers reads which indiservers the workers have recorded.
func (k *killer) noteServers() {
	k.t.Helper()
	recs, err := observatory.ReadLocalINDIRecords(k.dir)
	require.NoError(k.t, err)
	for _, r := range recs {
		if k.servers[r.Name] == nil {
			k.servers[r.Name] = map[int]observatory.LocalINDIRecord{}
		}
		k.servers[r.Name][r.Pid] = r
	}
}

// activityStartedOn returns when the workflow's activity for step started on the worker
// whose identity begins with identity (the SDK's default: pid@host@); zero if it has not.
func activityStartedOn(t *testing.T, c client.Client, id, step, identity string) time.Time {
	t.Helper()
	d, err := c.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	for _, a := range d.GetPendingActivities() {
		if a.GetActivityType().GetName() == step && a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED &&
			strings.HasPrefix(a.GetLastWorkerIdentity(), identity) {
			return a.GetLastStartedTime().AsTime()
		}
	}
	return time.Time{}
}

// stepAttempts reads, from the workflow's history, the attempt on which each step's activity
// last started.
func stepAttempts(t *testing.T, c client.Client, id string) map[string]int32 {
	t.Helper()
	names := map[int64]string{}
	attempts := map[string]int32{}
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			names[e.GetEventId()] = a.GetActivityType().GetName()
		}
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
			step := names[a.GetScheduledEventId()]
			attempts[step] = max(attempts[step], a.GetAttempt())
		}
	}
	return attempts
}

// uidLog keeps the UIDs of every managed pod, Service and Job ever seen in a namespace, by
// kind and name: one name seen with two UIDs was created twice.
type uidLog struct {
	mu   sync.Mutex
	uids map[string]map[types.UID]bool // "Kind/name"
}

// watchCreated records the managed objects of ns from now until the test ends.
func watchCreated(t *testing.T, ns string) *uidLog {
	t.Helper()
	l := &uidLog{uids: map[string]map[types.UID]bool{}}
	f := informers.NewSharedInformerFactoryWithOptions(env.Kube, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = kube.LabelManagedBy + "=" + kube.ObservatoryComponent
		}))
	for kind, inf := range map[string]cache.SharedIndexInformer{
		"Pod": f.Core().V1().Pods().Informer(), "Service": f.Core().V1().Services().Informer(),
		"Job": f.Batch().V1().Jobs().Informer(),
	} {
		note := func(obj any) {
			if m, err := metaOf(obj); err == nil {
				l.add(kind+"/"+m.GetName(), m.GetUID())
			}
		}
		_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: note, UpdateFunc: func(_, obj any) { note(obj) }})
		require.NoError(t, err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); f.Shutdown() })
	f.Start(stop)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		require.True(t, ok, "the watch of %v started", typ)
	}
	return l
}

func metaOf(obj any) (metav1.Object, error) {
	if m, ok := obj.(metav1.Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("not an object: %T", obj)
}

func (l *uidLog) add(key string, uid types.UID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.uids[key] == nil {
		l.uids[key] = map[types.UID]bool{}
	}
	l.uids[key][uid] = true
}

func (l *uidLog) count(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for key := range l.uids {
		if strings.HasPrefix(key, kind+"/") {
			n++
		}
	}
	return n
}

func (l *uidLog) keys() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for key := range l.uids {
		out = append(out, key)
	}
	return out
}

func (l *uidLog) all() map[string]map[types.UID]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]map[types.UID]bool{}
	for key, uids := range l.uids {
		out[key] = uids
	}
	return out
}

// awaitExit waits until p has exited and been reaped (testenv waits for it), at most within.
// The os.Process, not its pid, which another program may get once it is reaped.
func awaitExit(p *os.Process, within time.Duration) {
	for deadline := time.Now().Add(within); p.Signal(syscall.Signal(0)) == nil && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}
