package workflows

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/activities"
	"liken.sh/runner/internal/stack"
)

// Recorded histories are the promise that a change to a workflow keeps old runs replaying.
// They are re-recorded only on purpose: `make histories` runs this file with -record.
var record = flag.Bool("record", false, "re-record testdata/histories on a real local stack")

// recordings names each history file and the run that produces it.
var recordings = map[string]func(ctx context.Context, c client.Client, queue string) (client.WorkflowRun, error){
	"probe": func(ctx context.Context, c client.Client, queue string) (client.WorkflowRun, error) {
		return c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "probe", TaskQueue: queue}, ProbeWorkflow)
	},
}

func TestEveryRecordedHistoryReplays(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded histories; run `make histories`")
	for name := range recordings {
		require.Contains(t, files, filepath.Join("testdata", "histories", name+".json"), "a lifecycle has no recorded history")
	}
	r := worker.NewWorkflowReplayer()
	RegisterWorkflows(r)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(sdklog.NewStructuredLogger(slog.Default()), f))
		})
	}
}

func TestRecordHistories(t *testing.T) {
	if !*record {
		t.Skip("re-recording is on purpose only: make histories")
	}
	root, err := stack.Root(".")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := stack.Start(ctx, stack.Options{Dir: t.TempDir(), Cache: stack.Cache(root), Kube: true, Temporal: stack.Temporal{Enabled: true}})
	require.NoError(t, err)
	defer s.Stop()

	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	require.NoError(t, err)
	kube := kubernetes.NewForConfigOrDie(cfg)
	c, err := client.Dial(client.Options{HostPort: s.TemporalAddress})
	require.NoError(t, err)
	defer c.Close()
	const queue = "record"
	w := worker.New(c, queue, worker.Options{})
	Register(w, &activities.Activities{Kube: kube, Now: time.Now})
	require.NoError(t, w.Start())
	defer w.Stop()

	for name, start := range recordings {
		run, err := start(ctx, c, queue)
		require.NoError(t, err)
		require.NoError(t, run.Get(ctx, nil))
		h := &historypb.History{}
		it := c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, 0)
		for it.HasNext() {
			e, err := it.Next()
			require.NoError(t, err)
			h.Events = append(h.Events, e)
		}
		b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
		require.NoError(t, err)
		path := filepath.Join("testdata", "histories", name+".json")
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
		fmt.Printf("recorded %s (%d events)\n", path, len(h.Events))
	}
}
