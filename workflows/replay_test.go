// Every recorded history in testdata replays against today's workflows; with -record (make
// histories, on purpose only) the same file records them on a real local localstack.
package workflows

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/internal/rollout"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/test/testenv"
)

// Recorded histories are the promise that a change to a workflow keeps old runs replaying.
// They live in testdata/histories/<folder>/: a release's folder (v0.1.0/) is recorded once,
// when the release is cut, and never again, so every later change must keep it replaying;
// `make histories` records what today's code does into unreleased/, on purpose only.
var (
	record     = flag.Bool("record", false, "record testdata/histories/<into> on a real local stack")
	recordOnly = flag.String("only", "", "with -record: record only this history (people, person, ...)")
	recordInto = flag.String("into", "unreleased", "with -record: the folder under testdata/histories; a release's only once")
)

// baseline is the first release: each lifecycle has a history recorded by it.
const baseline = "v0.1.0"

// historiesOf is where the histories of folder (a release, or unreleased) are.
func historiesOf(folder string) string { return filepath.Join("testdata", "histories", folder) }

// recorder is what a recording drives: Temporal, and the cluster the activities work on.
type recorder struct {
	c     client.Client
	queue string
	dyn   dynamic.Interface
	save  func(ctx context.Context, file, workflowID string) error
	// indi finds the local indiservers standing in for the server pods.
	indi *observatory.LocalINDI
}

// recordings names each history file and the run that produces it, driven as the watcher
// and a user would drive it.
var recordings = map[string]func(ctx context.Context, r recorder) (client.WorkflowRun, error){
	"probe": func(ctx context.Context, r recorder) (client.WorkflowRun, error) {
		return r.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "probe", TaskQueue: r.queue}, contract.ProbeWorkflow)
	},
	// A Person created (initials), renamed (initials drawn again) and deleted (the workflow ends).
	"person": func(ctx context.Context, r recorder) (client.WorkflowRun, error) {
		people := r.dyn.Resource(peoplev1.PersonResource)
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": peoplev1.SchemeGroupVersion.String(), "kind": "Person",
			"metadata": map[string]any{"name": "ada"},
			"spec":     map[string]any{"displayName": "Ada Lovelace"},
		}}
		if _, err := people.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		id := contract.PersonID("ada")
		run, err := r.c.SignalWithStartWorkflow(ctx, id, contract.PersonChanged, contract.PersonChange{Why: "added"},
			client.StartWorkflowOptions{ID: id, TaskQueue: r.queue}, contract.PersonWorkflow, contract.PersonInput{Name: "ada"})
		if err != nil {
			return nil, err
		}
		thumbnail := func() string {
			got, err := people.Get(ctx, "ada", metav1.GetOptions{})
			if err != nil {
				return ""
			}
			s, _, _ := unstructured.NestedString(got.Object, "status", "thumbnail")
			return s
		}
		first, err := poll(ctx, func() (string, bool) { s := thumbnail(); return s, s != "" })
		if err != nil {
			return nil, err
		}
		if _, err := people.Patch(ctx, "ada", types.MergePatchType, []byte(`{"spec":{"displayName":"Augusta Ada King"}}`), metav1.PatchOptions{}); err != nil {
			return nil, err
		}
		if err := r.c.SignalWorkflow(ctx, id, "", contract.PersonChanged, contract.PersonChange{Generation: 2, Why: "updated"}); err != nil {
			return nil, err
		}
		if _, err := poll(ctx, func() (string, bool) { s := thumbnail(); return s, s != first }); err != nil {
			return nil, err
		}
		if err := people.Delete(ctx, "ada", metav1.DeleteOptions{}); err != nil {
			return nil, err
		}
		return run, r.c.SignalWorkflow(ctx, id, "", contract.PersonChanged, contract.PersonChange{Deleted: true, Why: "deleted"})
	},
	// A shard given a batch: ada (initials) is painted and handed on once the shard is quiet;
	// nobody (no such Person) is handed on at once, and its workflow ends. Then the shard is
	// cancelled, which is how a shard ends.
	"people": func(ctx context.Context, r recorder) (client.WorkflowRun, error) {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": peoplev1.SchemeGroupVersion.String(), "kind": "Person",
			"metadata": map[string]any{"name": "ada"},
			"spec":     map[string]any{"displayName": "Ada Lovelace"},
		}}
		if _, err := r.dyn.Resource(peoplev1.PersonResource).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		// The watcher signals what the API server's watch cache shows, where the paint reads.
		if _, err := poll(ctx, func() (string, bool) {
			_, err := r.dyn.Resource(peoplev1.PersonResource).Get(ctx, "ada", metav1.GetOptions{ResourceVersion: "0"})
			return fmt.Sprint(err), err == nil
		}); err != nil {
			return nil, err
		}
		id := contract.PeopleShardID(0)
		run, err := r.c.SignalWithStartWorkflow(ctx, id, contract.PeopleChanged,
			[]contract.PersonChange{{Name: "ada", Why: "added"}, {Name: "nobody", Deleted: true, Why: "deleted"}},
			client.StartWorkflowOptions{ID: id, TaskQueue: r.queue}, contract.PeopleShardWorkflow, contract.PeopleInput{Shard: 0})
		if err != nil {
			return nil, err
		}
		// nobody's delete goes at once, and only to a workflow that runs (none does); ada's
		// change once the shard is quiet, starting her workflow.
		if _, err := poll(ctx, func() (string, bool) {
			_, err := r.c.DescribeWorkflowExecution(ctx, contract.PersonID("ada"), "")
			return fmt.Sprint(err), err == nil
		}); err != nil {
			return nil, fmt.Errorf("the shard did not start ada's workflow: %w", err)
		}
		if err := r.c.CancelWorkflow(ctx, id, ""); err != nil {
			return nil, err
		}
		return cancelledRun{run}, nil
	},
	// A reservation of the example telescope whose mount's pod is deleted while Ready: the
	// watcher's "pod" signal makes it create the pod again (a live plan); then it is deleted.
	"heal": func(ctx context.Context, r recorder) (client.WorkflowRun, error) {
		const ns, name = "observatory", "healed"
		run, id, err := startReady(ctx, r, ns, name, "grace")
		if err != nil {
			return nil, err
		}
		pods := r.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace(ns)
		old, err := pods.Get(ctx, "east-mount", metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if err := pods.Delete(ctx, "east-mount", *metav1.NewDeleteOptions(0)); err != nil {
			return nil, err
		}
		if err := r.c.SignalWorkflow(ctx, id, "", contract.ReservationChanged, contract.ReservationChange{Why: "pod"}); err != nil {
			return nil, err
		}
		if _, err := poll(ctx, func() (string, bool) {
			p, err := pods.Get(ctx, "east-mount", metav1.GetOptions{})
			return fmt.Sprint(err), err == nil && p.GetUID() != old.GetUID() && p.GetDeletionTimestamp() == nil
		}); err != nil {
			return nil, fmt.Errorf("the pod was not created again: %w", err)
		}
		return run, endReservation(ctx, r, ns, name)
	},
	// A Rotator joins the example telescope's train while Ready and then leaves it (its
	// parent edited away): each part of the plan (PlanLiveDevices, StartLiveDevices,
	// LeaveDevice, ConnectLiveDevices, Configure, ...) is an activity of its own.
	"live": recordLive("joined"),
	// A reservation of the example telescope that ends at its spec.end and stays Released;
	// the watcher's resync then starts its workflow again, and that run ends at once, having
	// first said where the reservation stands. The first run is saved
	// as "released".
	"again": func(ctx context.Context, r recorder) (client.WorkflowRun, error) {
		const ns, name = "observatory", "again"
		run, id, err := startReady(ctx, r, ns, name, "joan")
		if err != nil {
			return nil, err
		}
		end := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339)
		reservations := r.dyn.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
		if _, err := reservations.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"end":"`+end+`"}}`), metav1.PatchOptions{}); err != nil {
			return nil, err
		}
		if err := r.c.SignalWorkflow(ctx, id, "", contract.ReservationChanged, contract.ReservationChange{Generation: 2, Why: "updated"}); err != nil {
			return nil, err
		}
		if err := run.Get(ctx, nil); err != nil {
			return nil, err
		}
		if err := r.save(ctx, "released", id); err != nil {
			return nil, err
		}
		spec := obsv1.ReservationSpec{Telescope: "east", Holder: "joan"}
		return r.c.SignalWithStartWorkflow(ctx, id, contract.ReservationChanged, contract.ReservationChange{Generation: 2, Why: "resync"},
			contract.ReservationStartOptions(r.queue, ns, name, spec), contract.ReservationWorkflow, contract.ReservationInput{Namespace: ns, Name: name})
	},
	// A stormy session of the example telescope with triggers: the mount parks when the
	// weather turns unsafe, the dome after it, and the dome opens after 5 s of calm. The wind
	// rises, falls, and flaps within the 5 s; each change is a condition signal and a pass.
	"triggers": recordStorm,
	// A namespace's inventory: a small site appears (each resource gets its status), its Mount
	// goes to the shelf (Inventory), and everything is deleted (the pass finds the namespace
	// empty and the workflow ends). As the watcher would, each change is a signal.
	"inventory": recordInventory,
	// The example reservation (examples/observatory.yaml) from Wait to Ready, then deleted and
	// Released; its telescope's and its observatory's lock workflows are saved beside it.
	"reservation": func(ctx context.Context, r recorder) (client.WorkflowRun, error) {
		const ns, name = "observatory", "tonight"
		id := contract.ReservationID(ns, name)
		run, err := r.c.SignalWithStartWorkflow(ctx, id, contract.ReservationChanged, contract.ReservationChange{Why: "added"},
			client.StartWorkflowOptions{ID: id, TaskQueue: r.queue}, contract.ReservationWorkflow, contract.ReservationInput{Namespace: ns, Name: name})
		if err != nil {
			return nil, err
		}
		reservations := r.dyn.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
		if err := awaitReady(ctx, reservations, name); err != nil {
			return nil, err
		}
		if err := reservations.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return nil, err
		}
		if err := r.c.SignalWorkflow(ctx, id, "", contract.ReservationChanged, contract.ReservationChange{Deleted: true, Why: "deleted"}); err != nil {
			return nil, err
		}
		if err := run.Get(ctx, nil); err != nil {
			return nil, err
		}
		// The locks end themselves once idle.
		for file, lock := range map[string]string{"telescope": contract.TelescopeLockID(ns, "east"), "observatory": contract.SiteTurnsID(ns, "lab")} {
			if err := r.c.GetWorkflow(ctx, lock, "").Get(ctx, nil); err != nil {
				return nil, fmt.Errorf("the lock %s: %w", lock, err)
			}
			if err := r.save(ctx, file, lock); err != nil {
				return nil, err
			}
		}
		return run, nil
	},
}

// cancelledRun is a run that ends by a cancel: its end is what the recording waits for.
type cancelledRun struct{ client.WorkflowRun }

func (r cancelledRun) Get(ctx context.Context, v any) error {
	if err := r.WorkflowRun.Get(ctx, v); !temporal.IsCanceledError(err) {
		return fmt.Errorf("the run did not end cancelled: %v", err)
	}
	return nil
}

// startReady creates a Reservation of the example telescope, starts its workflow as the
// watcher would, and waits until it is Ready.
func startReady(ctx context.Context, r recorder, ns, name, holder string) (client.WorkflowRun, string, error) {
	reservations := r.dyn.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": "Reservation",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"telescope": "east", "holder": holder},
	}}
	if _, err := reservations.Create(ctx, u, metav1.CreateOptions{}); err != nil {
		return nil, "", err
	}
	id := contract.ReservationID(ns, name)
	run, err := r.c.SignalWithStartWorkflow(ctx, id, contract.ReservationChanged, contract.ReservationChange{Why: "added"},
		client.StartWorkflowOptions{ID: id, TaskQueue: r.queue}, contract.ReservationWorkflow, contract.ReservationInput{Namespace: ns, Name: name})
	if err != nil {
		return nil, "", err
	}
	return run, id, awaitReady(ctx, reservations, name)
}

// endReservation deletes the Reservation and tells its workflow, as the watcher would.
func endReservation(ctx context.Context, r recorder, ns, name string) error {
	err := r.dyn.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil {
		return err
	}
	return r.c.SignalWorkflow(ctx, contract.ReservationID(ns, name), "", contract.ReservationChanged, contract.ReservationChange{Deleted: true, Why: "deleted"})
}

// awaitReady waits until the Reservation name is Ready, bounded by ctx.
func awaitReady(ctx context.Context, reservations dynamic.ResourceInterface, name string) error {
	_, err := poll(ctx, func() (string, bool) {
		got, err := reservations.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", false
		}
		phase, _, _ := unstructured.NestedString(got.Object, "status", "phase")
		return phase, phase == string(obsv1.ReservationReady)
	})
	if err != nil {
		return fmt.Errorf("the reservation %s did not become Ready: %w", name, err)
	}
	return nil
}

// poll waits until f reports done, bounded by ctx.
func poll(ctx context.Context, f func() (string, bool)) (string, error) {
	for {
		if v, done := f(); done {
			return v, nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func TestEveryRecordedHistoryReplays(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(historiesOf("*"), "*.json"))
	require.NoError(t, err)
	for name := range recordings {
		require.Contains(t, files, filepath.Join(historiesOf(baseline), name+".json"), "a lifecycle has no history of %s", baseline)
	}
	r := worker.NewWorkflowReplayer()
	RegisterWorkflows(r)
	for _, f := range files {
		folder := filepath.Base(filepath.Dir(f))
		t.Run(folder+"/"+strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			h := readHistory(t, f)
			if pinned(h) && folder != "unreleased" {
				t.Skipf("pinned to the build that recorded it (%s): such a run ends on that build, never on this one", folder)
			}
			require.NoError(t, r.ReplayWorkflowHistory(testenv.Quiet(), h))
		})
	}
}

// pinned says the run was Pinned to its build (Worker Versioning): no later build runs its
// tasks, so only the build that records it must replay it. A run recorded without versioning
// (v0.1.0's) moves to the current build like any unpinned run, so every build replays it.
func pinned(h *historypb.History) bool {
	for _, e := range h.Events {
		if e.GetWorkflowTaskCompletedEventAttributes().GetVersioningBehavior() == enumspb.VERSIONING_BEHAVIOR_PINNED {
			return true
		}
	}
	return false
}

func TestARunPinnedToItsBuildIsToldApartFromAnUnversionedOne(t *testing.T) {
	require.False(t, pinned(readHistory(t, filepath.Join(historiesOf(baseline), "reservation.json"))), "v0.1.0 ran unversioned")
	completed := &historypb.HistoryEvent{Attributes: &historypb.HistoryEvent_WorkflowTaskCompletedEventAttributes{
		WorkflowTaskCompletedEventAttributes: &historypb.WorkflowTaskCompletedEventAttributes{VersioningBehavior: enumspb.VERSIONING_BEHAVIOR_PINNED}}}
	require.True(t, pinned(&historypb.History{Events: []*historypb.HistoryEvent{completed}}))
}

func readHistory(t *testing.T, file string) *historypb.History {
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	return h
}

func TestRecordHistories(t *testing.T) {
	if !*record {
		t.Skip("recording is on purpose only: make histories")
	}
	dir := historiesOf(*recordInto)
	if old, _ := filepath.Glob(filepath.Join(dir, "*.json")); *recordInto != "unreleased" && len(old) > 0 {
		t.Fatalf("%s holds a release's histories, which are never recorded again", dir)
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	root, err := localstack.Root(".")
	require.NoError(t, err)
	// A bound for the whole recording, stack and all, with room for a machine whose cores
	// other work shares.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	s, err := localstack.Start(ctx, localstack.Options{Dir: t.TempDir(), Cache: localstack.Cache(), Kube: true,
		Temporal: localstack.Temporal{Enabled: true, SearchAttributes: contract.SearchAttributes}})
	require.NoError(t, err)
	defer s.Stop()

	kubectl := filepath.Join(localstack.Cache(), "kube-"+localstack.KubeVersion, "kubectl")
	for _, args := range [][]string{
		{"apply", "--server-side", "-k", filepath.Join(root, "deploy", "crds")},
		{"wait", "--for=condition=Established", "crd", "--all"},
		{"apply", "--server-side", "-f", filepath.Join(root, "examples", "observatory.yaml")},
	} {
		out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig=" + s.Kubeconfig}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	require.NoError(t, err)
	// The worker's own limits (internal/app): client-go's default of 5 a second made the
	// activities wait on client-side throttling for most of a recording.
	cfg.QPS, cfg.Burst = 500, 1000
	kube := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	c, err := client.Dial(client.Options{HostPort: s.TemporalAddress, Logger: testenv.Quiet()})
	require.NoError(t, err)
	defer c.Close()
	const queue = "record"
	// Versioned as the worker binary is, so a recorded Reservation says it was Pinned.
	version := rollout.Version(queue, "record")
	w := worker.New(c, queue, worker.Options{MaxHeartbeatThrottleInterval: time.Second,
		DeploymentOptions: worker.DeploymentOptions{UseVersioning: true, Version: version}})
	local := &observatory.LocalINDI{}
	defer local.Close()
	acts := ActivitiesOn(activities.Clients{Kube: kube, Dynamic: dyn, Temporal: c, Now: time.Now})
	acts.Observatory.INDI = local
	Register(w, acts)
	require.NoError(t, w.Start())
	defer w.Stop()
	go rollout.ClaimIfNone(ctx, c, version, slog.New(slog.DiscardHandler))

	save := func(ctx context.Context, file, workflowID string) error {
		h := &historypb.History{}
		it := c.GetWorkflowHistory(ctx, workflowID, "", false, 0)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return err
			}
			h.Events = append(h.Events, e)
		}
		b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, file+".json")
		fmt.Printf("recorded %s (%d events)\n", path, len(h.Events))
		return os.WriteFile(path, append(b, '\n'), 0o644)
	}
	for name, start := range recordings {
		if *recordOnly != "" && name != *recordOnly {
			continue
		}
		run, err := start(ctx, recorder{c: c, queue: queue, dyn: dyn, save: save, indi: local})
		require.NoError(t, err, name)
		require.NoError(t, run.Get(ctx, nil), name)
		require.NoError(t, save(ctx, name, run.GetID()), name)
	}
}
