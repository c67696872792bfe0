// Workers and Temporal failing under a reservation: a worker stopped in StartDevices is replaced
// with nothing created twice, and a reservation completes across a Temporal server restart.
package reservation

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/workflows"
)

// startReservation creates the example observatory in a fresh namespace and starts its
// reservation's workflow as the watcher would; prepare runs between the two.
func startReservation(t *testing.T, prepare ...func(ns string)) (ns, queue string, c client.Client) {
	t.Helper()
	ns = "rsv-" + utilrand.String(6)
	_, err := env.Kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	c, err = env.DialTemporal()
	require.NoError(t, err)
	t.Cleanup(c.Close)
	applyExample(t, ns)
	for _, p := range prepare {
		p(ns)
	}
	id := contract.ReservationID(ns, "tonight")
	_, err = c.SignalWithStartWorkflow(context.Background(), id, contract.ReservationChanged, contract.ReservationChange{Why: "added"},
		client.StartWorkflowOptions{ID: id, TaskQueue: ns}, contract.ReservationWorkflow, contract.ReservationInput{Namespace: ns, Name: "tonight"})
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, wid := range []string{id, contract.TelescopeLockID(ns, "east"), contract.SiteTurnsID(ns, "lab")} {
			_ = c.TerminateWorkflow(context.Background(), wid, "", "test over")
		}
	})
	return ns, ns, c
}

// readyReservation is startReservation with one in-process worker (startWorker), once the
// reservation is Ready.
func readyReservation(t *testing.T, prepare ...func(ns string)) (ns string, c client.Client, local *observatory.LocalINDI) {
	t.Helper()
	ns, queue, c := startReservation(t, prepare...)
	local = startWorker(t, c, queue)
	awaitReady(t, ns, "tonight")
	return ns, c, local
}

// newWorker starts an in-process worker on queue with the real activities; local resolves
// the INDI servers, shared by every worker of a test as pods outlive the workers.
func newWorker(t *testing.T, c client.Client, queue string, local observatory.INDIResolver) worker.Worker {
	t.Helper()
	w := worker.New(c, queue, worker.Options{MaxHeartbeatThrottleInterval: 500 * time.Millisecond})
	acts := workflows.ActivitiesOn(activities.Clients{Kube: env.Kube, Dynamic: env.Dynamic, Temporal: c, Now: time.Now})
	acts.Observatory.INDI = local
	workflows.Register(w, acts)
	require.NoError(t, w.Start())
	return w
}

// startWorker starts one worker and its local indiservers, stopped when the test ends.
func startWorker(t *testing.T, c client.Client, queue string) *observatory.LocalINDI {
	t.Helper()
	local := &observatory.LocalINDI{}
	t.Cleanup(func() { local.Close() })
	t.Cleanup(newWorker(t, c, queue, local).Stop)
	return local
}

func managedPods(t *testing.T, ns string) []corev1.Pod {
	t.Helper()
	pods, err := env.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=" + kube.ObservatoryComponent})
	require.NoError(t, err)
	return pods.Items
}

// TestAWorkerStoppedDuringStartDevicesIsReplacedAndNothingIsCreatedTwice stops a worker in the
// middle of StartDevices; another worker takes the step over once its heartbeat lapses. The
// INDI servers are shared by both workers, as pods outlive the workers that started them (each
// worker here is in-process, with one resolver standing in for the pods; kill_test.go kills
// worker processes, whose indiservers the next one adopts).
func TestAWorkerStoppedDuringStartDevicesIsReplacedAndNothingIsCreatedTwice(t *testing.T) {
	ns, queue, c := startReservation(t)
	local := &observatory.LocalINDI{}
	t.Cleanup(func() { local.Close() })
	first := newWorker(t, c, queue, local)
	awaitReservation(t, ns, "tonight", "reached StartDevices", func(r *obsv1.Reservation) bool {
		return r != nil && (r.Status.Step == kube.StepStartDevices || r.Status.Phase == obsv1.ReservationReady)
	})
	r, _ := reservation(t, ns, "tonight")
	require.Equal(t, kube.StepStartDevices, r.Status.Step, "the worker was to stop in the middle of StartDevices")
	// The status names the step before a worker picks its activity up: stop the first worker
	// only once it runs it.
	require.Eventually(t, func() bool {
		return !activityStartedOn(t, c, contract.ReservationID(ns, "tonight"), kube.StepStartDevices, "").IsZero()
	}, 30*time.Second, 20*time.Millisecond, "StartDevices started on the first worker")
	first.Stop()

	second := newWorker(t, c, queue, local)
	t.Cleanup(second.Stop)
	awaitReservation(t, ns, "tonight", "became Ready on the second worker", func(r *obsv1.Reservation) bool {
		return r != nil && (r.Status.Phase == obsv1.ReservationReady || r.Status.Phase == obsv1.ReservationFailed)
	})
	r, _ = reservation(t, ns, "tonight")
	require.Equal(t, obsv1.ReservationReady, r.Status.Phase, "steps: %+v", r.Status.Steps)

	// The step really changed hands: its activity started more than once.
	var scheduled int64
	attempt := int32(0)
	it := c.GetWorkflowHistory(context.Background(), contract.ReservationID(ns, "tonight"), "", false, 0)
	for it.HasNext() {
		e, err := it.Next()
		require.NoError(t, err)
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == kube.StepStartDevices {
			scheduled = e.GetEventId()
		}
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil && a.GetScheduledEventId() == scheduled {
			attempt = a.GetAttempt()
		}
	}
	require.GreaterOrEqual(t, attempt, int32(2), "StartDevices ran again on the second worker")

	// Every object has one stable name: a pod created before the stop was adopted, not
	// created again, so each name appears once and none is replaced after Ready.
	pods := managedPods(t, ns)
	uids := map[string]string{}
	for _, p := range pods {
		require.NotContains(t, uids, p.Name, "pod %s twice", p.Name)
		uids[p.Name] = string(p.UID)
	}
	require.Len(t, pods, 9, "the observatory's 3 pods and the telescope's 6")
	for _, p := range managedPods(t, ns) {
		require.Equal(t, uids[p.Name], string(p.UID), "pod %s was replaced after Ready", p.Name)
	}
}

func TestTheReservationCompletesAcrossARestartOfTheTemporalServer(t *testing.T) {
	bin := env.Build(t, "./cmd/worker")
	ns, queue, c := startReservation(t)
	// The worker binary in dev mode, as make run starts it.
	env.StartProgram(t, bin, "LIKEN_TASK_QUEUE="+queue, "LIKEN_DEV_LOCAL_INDI=true", "LIKEN_LOG_LEVEL=warn").WaitReady()

	awaitReady(t, ns, "tonight")
	// Temporal goes away mid-session and comes back on its SQLite file.
	restart, err := env.Stack.StopProcess("temporal")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, restart(ctx))

	require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).
		Delete(context.Background(), "tonight", metav1.DeleteOptions{}))
	require.NoError(t, c.SignalWorkflow(ctx, contract.ReservationID(ns, "tonight"), "", contract.ReservationChanged,
		contract.ReservationChange{Deleted: true, Why: "deleted"}))
	awaitReservation(t, ns, "tonight", "was released and went", func(r *obsv1.Reservation) bool { return r == nil })
	require.Empty(t, managedPods(t, ns), "no pod is left")
}
