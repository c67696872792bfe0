// Leader election with real watcher processes, as a rollout or a crash runs them: only the
// Lease holder signals (each signal's identity names its sender), a SIGTERM hands the Lease
// over within about 11 s, a SIGKILLed leader is replaced once its Lease expires, a leader
// whose signals hang exits without releasing, and one that cannot renew stops acting 10 s
// after its last renewal and exits.
package watch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/internal/localstack"
)

var (
	buildOnce  sync.Once
	watcherBin string
)

// watcherBinary builds cmd/watcher once for the package, into the stack's folder (a
// temporary folder of its own was left behind, 100 MB at each run).
func watcherBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		watcherBin = filepath.Join(env.Dir, "watcher")
		cmd := exec.Command("go", "build", "-o", watcherBin, "./cmd/watcher")
		cmd.Dir = env.Root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build ./cmd/watcher: %v\n%s", err, out)
		}
	})
	if watcherBin == "" {
		t.Fatal("the watcher did not build")
	}
	return watcherBin
}

// proc is a watcher process.
type proc struct {
	name    string
	cmd     *exec.Cmd
	log     *bytes.Buffer
	metrics string
	exited  chan struct{}
	err     error // the exit, once exited is closed
}

type procOptions struct {
	temporal   string // default: the stack's
	kubeconfig string // default: the admin's
	args       []string
}

// startProc starts a watcher process named name (its POD_NAME, so its identity) and kills it
// when the test ends.
func startProc(t *testing.T, name, queue string, o procOptions) *proc {
	t.Helper()
	leaseNamespaceExists(t)
	if o.temporal == "" {
		o.temporal = env.TemporalAddress
	}
	if o.kubeconfig == "" {
		o.kubeconfig = env.Kubeconfig
	}
	health, err := localstack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(watcherBinary(t),
		"--kubeconfig="+o.kubeconfig, "--temporal-address="+o.temporal, "--task-queue="+queue,
		"--health-address=127.0.0.1:"+strconv.Itoa(health),
		"--log-format=text", "--log-level=debug")
	cmd.Args = append(cmd.Args, o.args...)
	cmd.Env = append(os.Environ(), "POD_NAME="+name, "POD_NAMESPACE="+leaseNamespace)
	p := &proc{name: name, cmd: cmd, log: &bytes.Buffer{}, exited: make(chan struct{}),
		metrics: "http://127.0.0.1:" + strconv.Itoa(health) + "/metrics"}
	cmd.Stdout, cmd.Stderr = &lockedWriter{w: p.log}, &lockedWriter{w: p.log}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("the log of %s:\n%s", name, p.logText())
		}
	})
	return p
}

var logMu sync.Mutex

type lockedWriter struct{ w *bytes.Buffer }

func (l *lockedWriter) Write(b []byte) (int, error) {
	logMu.Lock()
	defer logMu.Unlock()
	return l.w.Write(b)
}

func (p *proc) logText() string {
	logMu.Lock()
	defer logMu.Unlock()
	return p.log.String()
}

// stats reads the people side's counters from /metrics.
func (p *proc) stats() (map[string]int64, error) {
	return p.sideStats("people")
}

// sideStats reads one side's counters ("people" or "observatory") from the liken_watcher_*
// metrics: leading, signalled, inFlight. A side the process does not run has none (nil).
func (p *proc) sideStats(side string) (map[string]int64, error) {
	resp, err := http.Get(p.metrics)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	names := map[string]string{"leading": "leading", "signals_total": "signalled", "signals_in_flight": "inFlight"}
	var out map[string]int64
	for _, line := range strings.Split(string(body), "\n") {
		for metric, key := range names {
			prefix := "liken_watcher_" + metric + `{side="` + side + `"} `
			if v, ok := strings.CutPrefix(line, prefix); ok {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return nil, err
				}
				if out == nil {
					out = map[string]int64{}
				}
				out[key] = int64(n)
			}
		}
	}
	return out, nil
}

// metricsText is the process's whole /metrics ("" when it does not answer).
func (p *proc) metricsText() string {
	resp, err := http.Get(p.metrics)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// waitExit waits for the process to exit and returns its exit code and when it exited.
func (p *proc) waitExit(t *testing.T, within time.Duration) (int, time.Time) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(within):
		t.Fatalf("%s did not exit within %s", p.name, within)
	}
	at := time.Now()
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0, at
	case errors.As(p.err, &ee):
		return ee.ExitCode(), at
	default:
		t.Fatalf("%s: %v", p.name, p.err)
		return -1, at
	}
}

// hangingFrontend is a Temporal frontend that answers the client's handshake and then holds
// every SignalWithStart until the caller gives up, as an overloaded one would.
type hangingFrontend struct {
	workflowservice.UnimplementedWorkflowServiceServer
}

func (hangingFrontend) GetSystemInfo(context.Context, *workflowservice.GetSystemInfoRequest) (*workflowservice.GetSystemInfoResponse, error) {
	return &workflowservice.GetSystemInfoResponse{Capabilities: &workflowservice.GetSystemInfoResponse_Capabilities{}}, nil
}

func (hangingFrontend) SignalWithStartWorkflowExecution(ctx context.Context, _ *workflowservice.SignalWithStartWorkflowExecutionRequest) (*workflowservice.SignalWithStartWorkflowExecutionResponse, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// startHangingFrontend serves a hangingFrontend on a free port until the test ends.
func startHangingFrontend(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	workflowservice.RegisterWorkflowServiceServer(s, hangingFrontend{})
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return l.Addr().String()
}

func getLease(ctx context.Context) (*coordinationv1.Lease, error) {
	return env.Kube.CoordinationV1().Leases(leaseNamespace).Get(ctx, leaseName, metav1.GetOptions{})
}

func holderOf(l *coordinationv1.Lease) string {
	if l == nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// waitHolder polls the Lease every 100 ms until who holds it and returns when that was seen.
func waitHolder(t *testing.T, ctx context.Context, who string, within time.Duration) time.Time {
	t.Helper()
	eventually(t, within, func() (bool, string) {
		l, err := getLease(ctx)
		if err != nil {
			return false, err.Error()
		}
		return holderOf(l) == who, fmt.Sprintf("the lease is held by %q, want %q", holderOf(l), who)
	})
	return time.Now()
}

// freshLease deletes the Lease before and after the test, so each test starts with nobody
// holding it and no expiry to wait for.
func freshLease(t *testing.T) {
	t.Helper()
	del := func() {
		err := env.Kube.CoordinationV1().Leases(leaseNamespace).Delete(context.Background(), leaseName, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete the lease: %v", err)
		}
	}
	leaseNamespaceExists(t)
	del()
	t.Cleanup(del)
}

// identities returns the senders of a Person's signals.
func identities(ss []signal) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Identity)
	}
	return out
}

// aLeaderAndAWaitingCopy runs watcher-a, holding a fresh Lease, and watcher-b, waiting for
// it, on the test's own task queue; the test's Persons are deleted when it ends.
func aLeaderAndAWaitingCopy(t *testing.T, ctx context.Context) (a, b *proc) {
	t.Helper()
	deletePeopleAtEnd(t)
	freshLease(t)
	queue := taskQueue(t)
	a = startProc(t, "watcher-a", queue, procOptions{})
	waitHolder(t, ctx, "watcher-a", 20*time.Second)
	b = startProc(t, "watcher-b", queue, procOptions{})
	eventually(t, 20*time.Second, func() (bool, string) {
		return strings.Contains(b.logText(), "waiting for the lease"), "watcher-b has not started competing"
	})
	return a, b
}

func TestOnlyTheLeaseHolderSignalsAndKubectlNamesIt(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	a, b := aLeaderAndAWaitingCopy(t, ctx)

	names := []string{unique("ada"), unique("grace")}
	for _, n := range names {
		newPerson(t, ctx, n)
	}
	for _, n := range names {
		got := waitSignals(t, ctx, n, 1, 20*time.Second)
		for _, id := range identities(got) {
			if id != "watcher-a" {
				t.Errorf("%s was signalled by %s; only the holder, watcher-a, may signal", n, id)
			}
		}
	}
	if st, err := b.stats(); err != nil || st["leading"] != 0 || st["signalled"] != 0 {
		t.Errorf("watcher-b's counters: %v (%v); want it neither leading nor signalling", st, err)
	}
	if st, err := a.stats(); err != nil || st["leading"] != 1 || st["signalled"] < 2 {
		t.Errorf("watcher-a's counters: %v (%v); want it leading and signalling", st, err)
	}
	if m := a.metricsText(); !strings.Contains(m, `workqueue_adds_total{name="people"}`) ||
		!strings.Contains(m, `workqueue_queue_duration_seconds_bucket{name="people"`) {
		t.Errorf("watcher-a's /metrics has no work queue figures:\n%s", m)
	}

	out, err := env.Kubectl(ctx, "-n", leaseNamespace, "get", "lease", leaseName)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "watcher-a") {
		t.Fatalf("kubectl get lease does not name the holder:\n%s", out)
	}
	t.Logf("kubectl -n %s get lease %s:\n%s", leaseNamespace, leaseName, out)
}

func TestSIGTERMOnTheLeaderHandsTheLeaseOver(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	deletePeopleAtEnd(t)
	freshLease(t)
	queue := taskQueue(t)
	a := startProc(t, "watcher-a", queue, procOptions{})
	waitHolder(t, ctx, "watcher-a", 20*time.Second)
	before := unique("ada")
	newPerson(t, ctx, before)
	waitSignals(t, ctx, before, 1, 20*time.Second)
	b := startProc(t, "watcher-b", queue, procOptions{})
	eventually(t, 20*time.Second, func() (bool, string) {
		return strings.Contains(b.logText(), "waiting for the lease"), "watcher-b has not started competing"
	})

	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	term := time.Now()
	code, exited := a.waitExit(t, 15*time.Second)
	if code != 0 {
		t.Fatalf("watcher-a exited %d after SIGTERM, want 0 (a clean release)", code)
	}
	if !strings.Contains(a.logText(), "released the lease") {
		t.Errorf("watcher-a did not say it released the lease")
	}
	took := waitHolder(t, ctx, "watcher-b", 20*time.Second).Sub(term)
	t.Logf("watcher-a exited %s after SIGTERM; watcher-b held the lease %s after it",
		exited.Sub(term).Round(time.Millisecond), took.Round(time.Millisecond))
	// Without the release watcher-b would wait for the 30 s lease to expire.
	if took > 15*time.Second {
		t.Errorf("the hand-over took %s, want about 11 s", took)
	}

	// The new leader signals every Person once, and the changes from now on.
	after := unique("grace")
	newPerson(t, ctx, after)
	got := waitSignals(t, ctx, after, 1, 20*time.Second)
	if got[0].Identity != "watcher-b" {
		t.Errorf("the Person created after the hand-over was signalled by %s", got[0].Identity)
	}
	got = waitSignals(t, ctx, before, 2, 20*time.Second)
	if got[1].Identity != "watcher-b" || got[1].Change.Why != "resync" {
		t.Errorf("the new leader's first list: %+v", got[1])
	}
}

func TestAKilledLeaderIsReplacedOnceItsLeaseExpires(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	a, _ := aLeaderAndAWaitingCopy(t, ctx)

	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	a.waitExit(t, 5*time.Second)
	l, err := getLease(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lastRenewal := l.Spec.RenewTime.Time
	took := waitHolder(t, ctx, "watcher-b", 50*time.Second)
	t.Logf("watcher-b took the lease %s after watcher-a was killed, %s after its last renewal",
		took.Sub(killed).Round(time.Millisecond), took.Sub(lastRenewal).Round(time.Millisecond))
	// The install guide: 30 to 41 s after the last renewal (plus our 100 ms polling).
	if d := took.Sub(lastRenewal); d < 30*time.Second || d > 42*time.Second {
		t.Errorf("watcher-b took the lease %s after the last renewal, want 30 to 41 s", d)
	}

	p := unique("mary")
	newPerson(t, ctx, p)
	if got := waitSignals(t, ctx, p, 1, 20*time.Second); got[0].Identity != "watcher-b" {
		t.Errorf("signalled by %s after the take-over, want watcher-b", got[0].Identity)
	}
}

func TestALeaderWhoseSignalsDoNotReturnExitsWithoutReleasingTheLease(t *testing.T) {
	ctx := timeout(t, time.Minute)
	deletePeopleAtEnd(t)
	freshLease(t)
	// A Person, so the new leader has a signal to send, to a frontend that never answers it:
	// the call hangs until its own 10 s deadline.
	newPerson(t, ctx, unique("ada"))
	a := startProc(t, "watcher-a", taskQueue(t), procOptions{temporal: startHangingFrontend(t)})
	waitHolder(t, ctx, "watcher-a", 20*time.Second)
	eventually(t, 20*time.Second, func() (bool, string) {
		st, err := a.stats()
		return err == nil && st["inFlight"] > 0, fmt.Sprintf("no signal in flight yet: %v %v", st, err)
	})

	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	term := time.Now()
	code, exited := a.waitExit(t, 15*time.Second)
	t.Logf("watcher-a exited %d, %s after SIGTERM", code, exited.Sub(term).Round(time.Millisecond))
	if code == 0 {
		t.Error("watcher-a exited 0, want non-zero: its signals did not finish")
	}
	if d := exited.Sub(term); d < 5*time.Second || d > 7*time.Second {
		t.Errorf("watcher-a exited %s after SIGTERM, want just after the 5 s grace", d)
	}
	l, err := getLease(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if holderOf(l) != "watcher-a" || *l.Spec.LeaseDurationSeconds != 30 {
		t.Fatalf("the lease was released (holder %q, duration %d); want it left to expire", holderOf(l), *l.Spec.LeaseDurationSeconds)
	}
}
