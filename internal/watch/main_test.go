// The harness of the watcher's tests: one real stack (API server with RBAC, the CRDs, a
// Temporal dev server whose state survives a restart), and helpers that create Persons and
// read back, from each workflow's history, the signals the watcher sent (for a Person: the
// changes in its shard's signals). No worker polls the task queues these tests use, so every
// signal stays in the history to be read.
package watch_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/metadata"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/watch"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Run(m, testenv.Options{Kube: true, CRDs: true, Temporal: true, TemporalDB: true, SearchAttributes: contract.SearchAttributes}, &env)
}

const (
	leaseNamespace = "liken-system"
	leaseName      = "people-operator"
	// testLabel marks every Person a test creates, so the test can delete its own.
	testLabel = "test.liken.sh/test"
)

var (
	temporalOnce   sync.Once
	temporalClient client.Client
	temporalErr    error
)

// temporal is the tests' own client, used only to read histories.
func temporal(t *testing.T) client.Client {
	t.Helper()
	temporalOnce.Do(func() {
		temporalClient, temporalErr = client.NewLazyClient(client.Options{
			HostPort: env.TemporalAddress, Logger: quiet{}, Identity: "watch-tests",
		})
	})
	if temporalErr != nil {
		t.Fatal(temporalErr)
	}
	return temporalClient
}

type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}

// timeout bounds a whole test.
func timeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// unique returns a name no other test or run uses, so each test reads its own workflows.
func unique(prefix string) string {
	return fmt.Sprintf("%s-%06x", prefix, rand.Uint32()&0xffffff)
}

// taskQueue is one no worker polls: workflows stay as the signals left them.
func taskQueue(t *testing.T) string {
	return unique("watch-" + strings.ToLower(t.Name()[4:min(len(t.Name()), 24)]))
}

// eventually polls cond every 100 ms until it holds or d passes; cond says what it saw.
func eventually(t *testing.T, d time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", d, saw)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// newPerson creates a Person labelled for t and deletes the test's Persons at the end.
func newPerson(t *testing.T, ctx context.Context, name string) *unstructured.Unstructured {
	t.Helper()
	p, err := createPerson(t, ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// createPerson is newPerson for goroutines, which must not call t.Fatal.
func createPerson(t *testing.T, ctx context.Context, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": peoplev1.SchemeGroupVersion.String(),
		"kind":       "Person",
		"metadata":   map[string]any{"name": name, "labels": map[string]any{testLabel: testID(t)}},
		"spec":       map[string]any{"displayName": "Ada Lovelace"},
	}}
	out, err := env.Dynamic.Resource(peoplev1.PersonResource).Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create the Person %s: %w", name, err)
	}
	return out, nil
}

// testID is the label value of t's Persons.
func testID(t *testing.T) string {
	id := strings.ToLower(t.Name())
	if len(id) > 63 {
		id = id[:63]
	}
	return strings.TrimRight(id, "-_.")
}

// deletePeopleAtEnd deletes t's Persons when t ends. Register it before the watcher starts, so
// the watcher stops first (cleanups run last in, first out) and the deletes signal nothing.
func deletePeopleAtEnd(t *testing.T) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := env.Dynamic.Resource(peoplev1.PersonResource).DeleteCollection(ctx, metav1.DeleteOptions{},
			metav1.ListOptions{LabelSelector: testLabel + "=" + testID(t)})
		if err != nil {
			t.Errorf("delete the test's Persons: %v", err)
		}
	})
}

// signal is one Person's change in a people-changed signal to its shard.
type signal struct {
	Change   contract.PersonChange
	Identity string
}

// signals reads the changes of a Person the watcher sent to the Person's shard (its latest
// run); none if there is no shard workflow yet.
func signals(ctx context.Context, name string) ([]signal, error) {
	all, err := shardSignals(ctx, contract.ShardOf(name))
	return all[name], err
}

// allSignals reads every shard's changes, by Person.
func allSignals(ctx context.Context) (map[string][]signal, error) {
	all := map[string][]signal{}
	for shard := range contract.PeopleShards {
		got, err := shardSignals(ctx, shard)
		if err != nil {
			return nil, err
		}
		for name, s := range got {
			all[name] = s
		}
	}
	return all, nil
}

// shardSignals reads the changes in a shard's signals (its latest run), by Person.
func shardSignals(ctx context.Context, shard int) (map[string][]signal, error) {
	iter := temporalClient.GetWorkflowHistory(ctx, contract.PeopleShardID(shard), "", false,
		enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	out := map[string][]signal{}
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			if isNotFound(err) {
				return out, nil
			}
			return nil, err
		}
		a := ev.GetWorkflowExecutionSignaledEventAttributes()
		if a == nil || a.GetSignalName() != contract.PeopleChanged {
			continue
		}
		var batch []contract.PersonChange
		if err := converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &batch); err != nil {
			return nil, err
		}
		for _, c := range batch {
			out[c.Name] = append(out[c.Name], signal{Change: c, Identity: a.GetIdentity()})
		}
	}
	return out, nil
}

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

// waitSignals waits until the Person's workflow holds n signals and returns them.
func waitSignals(t *testing.T, ctx context.Context, name string, n int, within time.Duration) []signal {
	t.Helper()
	temporal(t)
	var got []signal
	eventually(t, within, func() (bool, string) {
		var err error
		got, err = signals(ctx, name)
		if err != nil {
			return false, err.Error()
		}
		return len(got) >= n, fmt.Sprintf("%s has %d signals, want %d: %+v", name, len(got), n, got)
	})
	return got
}

// running is a watcher started by a test; stop ends it (and the test's end does too).
type running struct {
	*watch.People
	stop func()
}

// startWatcher runs the people watcher in the test process, without a Lease, on its own
// task queue, and stops it when the test ends.
func startWatcher(t *testing.T, queue string) running {
	t.Helper()
	var p *watch.People
	stop := runInProcess(t, func(tc client.Client) (func(context.Context) error, func() bool) {
		p = watch.NewPeople(watch.PeopleConfig{
			Dynamic: env.Dynamic, Metadata: metadata.NewForConfigOrDie(env.Config), Kube: env.Kube,
			Temporal: tc, TaskQueue: queue, Log: warnings(t),
		})
		return p.Run, p.Watching
	})
	return running{p, stop}
}

// runInProcess runs one side of the watcher, made by start with its own Temporal client, in
// the test process. Changes made once it returns are changes, not part of the first list: it
// waits until watching says the caches are full. stop (which the test's end calls too) ends
// Run, wants it to return nil within 20 s, and closes the client.
func runInProcess(t *testing.T, start func(client.Client) (run func(context.Context) error, watching func() bool)) (stop func()) {
	t.Helper()
	tc, err := client.NewLazyClient(client.Options{HostPort: env.TemporalAddress, Logger: quiet{}, Identity: "in-process"})
	if err != nil {
		t.Fatal(err)
	}
	run, watching := start(tc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("the watcher stopped with %v", err)
				}
			case <-time.After(20 * time.Second):
				t.Error("the watcher did not stop within 20s")
			}
			tc.Close()
		})
	}
	t.Cleanup(stop)
	eventually(t, 30*time.Second, func() (bool, string) { return watching(), "the watcher's caches never filled" })
	return stop
}

// warnings is the watcher's log for a test: its warnings and errors, in the test log.
func warnings(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// awaitIgnored waits (bounded) until the watcher's ignored count has grown by n since it was
// since: it has seen the n updates of what, and sent nothing for them.
func awaitIgnored(t *testing.T, within time.Duration, ignored *atomic.Int64, since, n int64, what string) {
	t.Helper()
	eventually(t, within, func() (bool, string) {
		seen := ignored.Load() - since
		return seen >= n, fmt.Sprintf("the watcher has seen %d of %s", seen, what)
	})
}

// waitIdle waits until every change the watcher has seen reached Temporal.
func waitIdle(t *testing.T, p running) {
	t.Helper()
	eventually(t, 30*time.Second, func() (bool, string) { return p.Idle(), "the watcher still has work queued" })
}

// testWriter sends the watcher's warnings to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// leaseNamespaceExists creates liken-system, which deploy/people creates in a cluster.
func leaseNamespaceExists(t *testing.T) { env.EnsureNamespace(t, leaseNamespace) }
