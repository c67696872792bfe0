// Package faults runs the watcher and worker binaries against the real control plane and a
// real Temporal server, and does to them what production does: kills, pauses and restarts
// processes, the Temporal server and the API server. Each test is bounded and judged by what
// users see (every Person painted, every change applied) and by the Temporal histories
// (nothing started twice). It has a stack of its own, as its faults would disturb other tests.
package faults

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/contract"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Run(m, testenv.Options{Kube: true, CRDs: true, TemporalDB: true, SearchAttributes: contract.SearchAttributes,
		AlsoOnPostgres: []func(*testing.T){
			TestAWorkerKilledAndTemporalAwayForAMinuteDuringABurstLoseNoPerson,
			TestTemporalAwayForAMinuteDuringAReservationLosesNoChange,
		}}, &env)
}

// system is one copy of the watcher and the workers of a test, on a task queue and a Lease
// of their own so that tests do not see each other's work.
type system struct {
	t       *testing.T
	queue   string
	lease   string
	watcher string // binary
	worker  string // binary
}

func newSystem(t *testing.T) *system {
	t.Helper()
	env.EnsureNamespace(t, "liken-system")
	id := utilrand.String(6)
	// The people shards have the same IDs for every system: a shard left running on an
	// earlier test's queue would take this test's signals to a queue nobody polls.
	t.Cleanup(func() {
		c, err := env.DialTemporal()
		if err != nil {
			return
		}
		defer c.Close()
		for i := range contract.PeopleShards {
			_ = c.TerminateWorkflow(context.Background(), contract.PeopleShardID(i), "", "test over")
		}
	})
	return &system{
		t: t, queue: "faults-" + id, lease: "faults-" + id,
		watcher: env.Build(t, "./cmd/watcher"), worker: env.Build(t, "./cmd/worker"),
	}
}

// startWatcher runs one copy of the watcher of side (people or observatory); it does not
// wait until it is ready, as a copy started while the API server is away cannot be.
func (s *system) startWatcher(side string) *testenv.Program {
	s.t.Helper()
	return env.StartProgram(s.t, s.watcher, "LIKEN_TASK_QUEUE="+s.queue, "LIKEN_WATCHER_SIDE="+side,
		"LIKEN_LEASE_NAME="+s.lease, "LIKEN_OBSERVATORY_LEASE_NAME="+s.lease, "LIKEN_LOG_LEVEL=warn")
}

// startWorker runs one worker; extra adds environment variables (dev mode).
func (s *system) startWorker(extra ...string) *testenv.Program {
	s.t.Helper()
	p := env.StartProgram(s.t, s.worker, append([]string{"LIKEN_TASK_QUEUE=" + s.queue, "LIKEN_LOG_LEVEL=warn"}, extra...)...)
	p.WaitReady()
	return p
}

// deployment keeps one copy of a program running, started again a second after it exits,
// as a Deployment's ReplicaSet does; it returns how many copies it started so far.
func deployment(t *testing.T, start func() *testenv.Program) (starts func() int) {
	t.Helper()
	var mu sync.Mutex
	cur, n := start(), 1
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			mu.Lock()
			p := cur
			mu.Unlock()
			select {
			case <-done:
				return
			case <-p.Done():
			}
			select {
			case <-done:
				return
			case <-time.After(time.Second):
			}
			next := start()
			mu.Lock()
			cur, n = next, n+1
			mu.Unlock()
		}
	}()
	t.Cleanup(func() { close(done); <-stopped })
	return func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// stopProcess stops one of the stack's processes (the Temporal server, kube-apiserver);
// bringBack starts it again, and the test's end does if bringBack was never called.
func stopProcess(t *testing.T, name string) (bringBack func(ctx context.Context)) {
	t.Helper()
	restart, err := env.Stack.StopProcess(name)
	require.NoError(t, err)
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			restart(context.Background())
		}
	})
	return func(ctx context.Context) {
		t.Helper()
		require.NoError(t, restart(ctx))
		restarted = true
	}
}

// timeout bounds a test's calls; the bound is lifted when the test ends.
func timeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func temporal(t *testing.T) client.Client { return env.Temporal(t) }

// eventually polls cond until it holds, failing with the last state it saw.
func eventually(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	testenv.Eventually(t, limit, what, cond)
}

// runs counts the executions of each workflow ID of one type that ids holds: a change
// delivered twice must signal the running workflow, never start a second one.
func runs(t *testing.T, ctx context.Context, c client.Client, workflowType string, ids map[string]bool) map[string]int {
	t.Helper()
	n := map[string]int{}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowType = '%s'", workflowType), NextPageToken: token, PageSize: 1000,
		})
		require.NoError(t, err)
		for _, e := range resp.Executions {
			if id := e.GetExecution().GetWorkflowId(); ids[id] {
				n[id]++
			}
		}
		if token = resp.NextPageToken; len(token) == 0 {
			return n
		}
	}
}

func person(name, displayName string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": peoplev1.SchemeGroupVersion.String(), "kind": "Person",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"displayName": displayName},
	}}
}

func getPerson(ctx context.Context, name string) (*peoplev1.Person, error) {
	u, err := env.Dynamic.Resource(peoplev1.PersonResource).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var p peoplev1.Person
	return &p, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p)
}

// onceEach waits until each workflow ID of ids has run, and fails at once if one has run
// twice. The shards paint first and hand each Person on to its own workflow after them.
func onceEach(t *testing.T, ctx context.Context, c client.Client, ids map[string]bool) {
	t.Helper()
	eventually(t, time.Minute, "every Person's own workflow was started", func() (bool, string) {
		n := runs(t, ctx, c, contract.PersonWorkflow, ids)
		missing := ""
		for id := range ids {
			require.LessOrEqual(t, n[id], 1, "%s was started twice", id)
			if n[id] == 0 {
				missing = id
			}
		}
		return missing == "", missing + " has not run"
	})
}
