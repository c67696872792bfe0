// Package observatory runs the observatory side as a user meets it: the watcher and worker
// binaries (the worker in dev mode, as make run starts it) against the real control plane and
// a real Temporal server, driven only through the Kubernetes API, and judged by what kubectl
// shows (statuses, columns, Events) and by the Temporal histories. Each test has a namespace of
// its own; the system is started once for the package.
package observatory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Run(m, testenv.Options{Kube: true, CRDs: true, Temporal: true, SearchAttributes: contract.SearchAttributes}, &env)
}

// system is the watcher (both sides, as make run runs it) and one dev-mode worker, started
// once for the package on a task queue of its own.
var system struct {
	once    sync.Once
	err     error
	queue   string
	watcher string // its health address, for /metrics
}

func startSystem(t *testing.T) {
	t.Helper()
	system.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		env.EnsureNamespace(t, "liken-system")
		system.queue = "obs-" + utilrand.String(6)
		base := append(env.TemporalEnv(),
			"KUBECONFIG="+env.Kubeconfig,
			"LIKEN_TASK_QUEUE="+system.queue, "LIKEN_LOG_FORMAT=text", "LIKEN_LOG_LEVEL=warn",
		)
		extra := map[string][]string{
			"watcher": {"LIKEN_WATCHER_SIDE=all"},
			// The local indiservers live beside the stack's logs, apart from any other run's.
			"worker": {"LIKEN_DEV_LOCAL_INDI=true", "LIKEN_DEV_LOCAL_INDI_DIR=" + filepath.Join(filepath.Dir(env.Stack.Logs("x")), "indi")},
		}
		for _, name := range []string{"watcher", "worker"} {
			bin := env.Build(t, "./cmd/"+name)
			// The binary must outlive this test: keep a copy beside the stack's logs.
			kept := filepath.Join(filepath.Dir(env.Stack.Logs(name)), name)
			b, err := os.ReadFile(bin)
			if err == nil {
				err = os.WriteFile(kept, b, 0o755)
			}
			port, perr := localstack.FreePort()
			if err == nil {
				err = perr
			}
			if err != nil {
				system.err = err
				return
			}
			addr := "127.0.0.1:" + strconv.Itoa(port)
			if name == "watcher" {
				system.watcher = addr
			}
			if err := env.Stack.Spawn(ctx, localstack.Process{
				Name: name, Path: kept, Env: append(append(base, extra[name]...), "LIKEN_HEALTH_ADDRESS="+addr),
				Ready: localstack.HTTPReady("http://" + addr + "/readyz"),
			}); err != nil {
				system.err = err
				return
			}
		}
	})
	require.NoError(t, system.err)
}

// namespace makes a namespace for one test.
func namespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := prefix + "-" + utilrand.String(5)
	env.EnsureNamespace(t, ns)
	return ns
}

func temporal(t *testing.T) client.Client { return env.Temporal(t) }

// endNightAtEnd terminates, when the test ends, the workflows a night of the example's east
// leaves running in ns: its reservation's, east's lock, the site's turns and the inventory.
func endNightAtEnd(t *testing.T, c client.Client, ns, reservation string) {
	t.Cleanup(func() {
		for _, id := range []string{contract.ReservationID(ns, reservation), contract.TelescopeLockID(ns, "east"),
			contract.SiteTurnsID(ns, "lab"), contract.InventoryID(ns)} {
			_ = c.TerminateWorkflow(context.Background(), id, "", "test over")
		}
	})
}

// eventually polls cond until it holds, failing with the last state it saw.
func eventually(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	testenv.Eventually(t, limit, what, cond)
}

// statusOf reads an object's status into st; false when the object is not there.
func statusOf(t *testing.T, ns string, kind obsv1.Kind, name string, st any) bool {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return false
	}
	if m, ok := u.Object["status"].(map[string]any); ok {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, st))
	}
	return true
}

// where is a device's or Guider's phase, and its conditions in words ("Ready=False/Idle: Not reserved").
func where(t *testing.T, ns string, kind obsv1.Kind, name string) (phase string, conds map[string]string) {
	t.Helper()
	var st struct {
		Phase      string            `json:"phase"`
		Conditions []obsv1.Condition `json:"conditions"`
	}
	statusOf(t, ns, kind, name, &st)
	conds = map[string]string{}
	for _, c := range st.Conditions {
		conds[c.Type] = fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
	}
	return st.Phase, conds
}

// awaitWhere waits until a resource's phase and the listed conditions are as wanted.
func awaitWhere(t *testing.T, ns string, kind obsv1.Kind, name, phase string, conds map[string]string) {
	t.Helper()
	eventually(t, 90*time.Second, fmt.Sprintf("%s %s says %s %v", kind, name, phase, conds), func() (bool, string) {
		p, got := where(t, ns, kind, name)
		ok := p == phase
		for typ, want := range conds {
			ok = ok && got[typ] == want
		}
		return ok, fmt.Sprintf("%s %v", p, got)
	})
}

// events are the Events about an object, as "Type Reason: Message".
func events(t *testing.T, ns string, kind obsv1.Kind, name string) []string {
	t.Helper()
	list, err := env.Kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.kind": string(kind), "involvedObject.name": name}.String()})
	require.NoError(t, err)
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Type+" "+e.Reason+": "+e.Message)
	}
	return out
}

// awaitWarning waits until the object has a Warning Event with that reason and, unless
// message is "", that message.
func awaitWarning(t *testing.T, ns string, kind obsv1.Kind, name, reason, message string) {
	t.Helper()
	want := corev1.EventTypeWarning + " " + reason + ": " + message
	eventually(t, 30*time.Second, "a Warning "+reason+" on "+string(kind)+" "+name, func() (bool, string) {
		got := events(t, ns, kind, name)
		for _, e := range got {
			if e == want || message == "" && strings.HasPrefix(e, want) {
				return true, ""
			}
		}
		return false, strings.Join(got, "\n")
	})
}

// managed are the runner's pods in ns.
func managed(t *testing.T, ns string) []corev1.Pod {
	t.Helper()
	pods, err := env.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=" + kube.ObservatoryComponent})
	require.NoError(t, err)
	return pods.Items
}
