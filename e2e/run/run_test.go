// Package run drives `make run` as a person does, with its state in a temporary folder and on
// free ports so that it runs beside anyone's own `make run`: the local observatory it starts is
// usable (a Ready reservation's INDI server answers a plain TCP client at the address printed,
// the claim:// Person is Baked, every stand-in listens on 127.0.0.1 only, the Temporal UI's
// words are there) and nothing it started is left, however it is stopped: Ctrl-C through a
// pipe, Ctrl-C, or `kill` of make. Leftovers are found by their command lines and
// environments, which name the run's folder (its kubeconfig, its data, its indiservers').
package run

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/internal/localstack"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/test/testenv"
)

// localEndpoint is the line make run prints once the example reservation is Ready.
var localEndpoint = regexp.MustCompile(`Reservation observatory/tonight is Ready\. .* runs on this machine at (127\.0\.0\.1:\d+)`)

// makeRun is one `make run`, in its own session, as a terminal would run it.
type makeRun struct {
	t        *testing.T
	dir      string // the run's folder (-dir)
	log      string // what it printed
	temporal string // its Temporal frontend
	cmd      *exec.Cmd
	done     chan struct{}
}

// startMakeRun starts `make run` with a 30-minute example session; piped sends its output
// through `tee`, as `make run 2>&1 | tee run.log` does.
func startMakeRun(t *testing.T, piped bool) *makeRun {
	return startMakeRunFor(t, piped, 30*time.Minute)
}

// startMakeRunFor starts `make run` whose example reservation lasts session.
func startMakeRunFor(t *testing.T, piped bool, session time.Duration) *makeRun {
	t.Helper()
	root, err := localstack.Root(".")
	require.NoError(t, err)
	tmp := t.TempDir()
	ports := make([]int, 2)
	for i := range ports {
		ports[i], err = localstack.FreePort()
		require.NoError(t, err)
	}
	m := &makeRun{t: t, dir: filepath.Join(tmp, "run"), log: filepath.Join(tmp, "run.log"),
		temporal: "127.0.0.1:" + strconv.Itoa(ports[0]), done: make(chan struct{})}
	flags := fmt.Sprintf("RUN_FLAGS=-dir %s -temporal-port %d -ui-port %d -session %s", m.dir, ports[0], ports[1], session)
	if piped {
		m.cmd = exec.Command("bash", "-c", "make run '"+flags+"' 2>&1 | tee "+m.log)
	} else {
		out, err := os.Create(m.log)
		require.NoError(t, err)
		t.Cleanup(func() { out.Close() })
		m.cmd = exec.Command("make", "run", flags)
		m.cmd.Stdout, m.cmd.Stderr = out, out
	}
	m.cmd.Dir = root
	// A session and process group of its own, as a terminal gives a command line.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	require.NoError(t, m.cmd.Start())
	go func() { m.cmd.Wait(); close(m.done) }()
	t.Cleanup(m.sweep)
	return m
}

// await waits (bounded) until make run has printed a line that re matches, and returns the
// match's groups.
func (m *makeRun) await(re *regexp.Regexp, within time.Duration) []string {
	m.t.Helper()
	deadline := time.Now().Add(within)
	for {
		b, _ := os.ReadFile(m.log)
		if got := re.FindStringSubmatch(string(b)); got != nil {
			return got
		}
		select {
		case <-m.done:
			m.t.Fatalf("make run exited before printing %q; it printed:\n%s", re, tail(b))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("make run did not print %q within %s; it printed:\n%s", re, within, tail(b))
		}
	}
}

// stop signals make run as a person would and waits until make has exited.
func (m *makeRun) stop(sig syscall.Signal, group bool) {
	m.t.Helper()
	pid := m.cmd.Process.Pid
	if group {
		pid = -pid // a terminal's Ctrl-C reaches the whole foreground group
	}
	require.NoError(m.t, syscall.Kill(pid, sig))
	select {
	case <-m.done:
	case <-time.After(time.Minute):
		m.t.Fatal("make run did not exit within a minute")
	}
}

// leftovers are the processes that still name the run's folder.
func (m *makeRun) leftovers() []testenv.Proc { return testenv.Processes(testenv.Mentions(m.dir)) }

// assertNothingLeft waits (bounded) until no process of the run is left, and no indiserver
// is recorded.
func (m *makeRun) assertNothingLeft() {
	m.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(m.leftovers()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	assert.Empty(m.t, m.leftovers(), "processes make run left")
	recs, _ := observatory.ReadLocalINDIRecords(filepath.Join(m.dir, "indi"))
	assert.Empty(m.t, recs, "indiservers still recorded")
}

// sweep kills whatever a failed test left, so that the next test and the machine stay clean.
func (m *makeRun) sweep() {
	select {
	case <-m.done:
	default:
		syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
		<-m.done
	}
	for _, p := range m.leftovers() {
		syscall.Kill(p.Pid, syscall.SIGKILL)
	}
	if m.t.Failed() {
		b, _ := os.ReadFile(m.log)
		m.t.Logf("make run printed:\n%s", tail(b))
	}
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// dynamicClient reaches the run's API server with its admin kubeconfig.
func (m *makeRun) dynamicClient() dynamic.Interface {
	m.t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(m.dir, "kubeconfig"))
	require.NoError(m.t, err)
	return dynamic.NewForConfigOrDie(cfg)
}

func TestMakeRunThroughAPipeIsAnObservatoryToUseAndCtrlCLeavesNothing(t *testing.T) {
	m := startMakeRun(t, true)
	addr := m.await(localEndpoint, 3*time.Minute)[1]

	// A plain TCP client at the address printed is answered as KStars would be.
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte(`<getProperties version="1.7"/>` + "\n"))
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	var seen bytes.Buffer
	r := bufio.NewReader(conn)
	for !bytes.Contains(seen.Bytes(), []byte(`device="Telescope Simulator"`)) {
		line, err := r.ReadBytes('\n')
		seen.Write(line)
		require.NoError(t, err, "the INDI server at %s said: %.500s", addr, seen.String())
	}
	assert.Contains(t, seen.String(), "<def", "the answer defines properties")

	// Every stand-in of the run, and everything else it started, listens on 127.0.0.1 only.
	for _, p := range m.leftovers() {
		addrs, err := testenv.Listening(p.Pid)
		if err != nil {
			continue // it exited meanwhile
		}
		for _, a := range addrs {
			assert.True(t, testenv.Loopback(a), "%s listens on %s", p, a)
		}
	}

	// The claim:// Person is Baked under make run's own configuration.
	people := m.dynamicClient().Resource(peoplev1.PersonResource)
	var reason string
	require.Eventually(t, func() bool {
		u, err := people.Get(context.Background(), "grace", metav1.GetOptions{})
		if err != nil {
			return false
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if c, _ := c.(map[string]any); c["type"] == "AvatarReady" {
				reason, _ = c["reason"].(string)
			}
		}
		return reason == "Baked"
	}, 2*time.Minute, 200*time.Millisecond, "grace's picture, last %q", reason)

	assertTheTemporalUIsWords(t, m.temporal)

	// Ctrl-C reaches every process of the pipeline at once, in no set order. The order that
	// once left indiservers behind: tee is gone before make run has written its last words,
	// which then go to a pipe with no reader.
	tee := testenv.Processes(func(p testenv.Proc) bool { return p.Cmdline == "tee "+m.log })
	require.Len(t, tee, 1)
	require.NoError(t, syscall.Kill(tee[0].Pid, syscall.SIGINT))
	require.Eventually(t, func() bool { return syscall.Kill(tee[0].Pid, 0) != nil }, 10*time.Second, 20*time.Millisecond, "tee did not stop")
	m.stop(syscall.SIGINT, true)
	m.assertNothingLeft()
}

// assertTheTemporalUIsWords checks what the Temporal UI shows of make run's workflows, as it
// asks Temporal: the words each was started with by the watcher or the worker, and a summary
// on every activity of the reservation.
func assertTheTemporalUIsWords(t *testing.T, addr string) {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: addr, Logger: testenv.Quiet()})
	require.NoError(t, err)
	defer c.Close()
	ctx := context.Background()
	for id, prefix := range map[string]string{
		contract.ReservationID("observatory", "tonight"):  "Reservation tonight: Telescope east for ada, until ",
		contract.TelescopeLockID("observatory", "east"):   "Telescope east (observatory): one holder at a time",
		contract.PersonID("grace"):                        "Person grace: ",
		contract.PeopleShardID(contract.ShardOf("grace")): "People shard ",
		"probe": "Probe: ",
	} {
		d, err := c.DescribeWorkflow(ctx, id, "")
		require.NoError(t, err, id)
		summary, _ := d.GetStaticSummary()
		details, _ := d.GetStaticDetails()
		assert.True(t, strings.HasPrefix(summary, prefix), "%s: summary %q, want %q...", id, summary, prefix)
		assert.NotEmpty(t, details, id)
	}
	dc := converter.GetDefaultDataConverter()
	scheduled := 0
	it := c.GetWorkflowHistory(ctx, contract.ReservationID("observatory", "tonight"), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a == nil {
			continue
		}
		scheduled++
		var s string
		if p := ev.GetUserMetadata().GetSummary(); p != nil {
			require.NoError(t, dc.FromPayload(p, &s))
		}
		assert.NotEmpty(t, s, "activity %s has no summary", a.GetActivityType().GetName())
		if a.GetActivityType().GetName() == "StartDevices" {
			assert.Equal(t, "Mount east, Focuser east-main, FilterWheel east-main, FlatPanel east-main, Camera east-main", s)
		}
	}
	assert.Greater(t, scheduled, 7, "the activation steps ran")
}

func TestAReleasedReservationLeavesNoIndiserverAndCtrlCLeavesNothing(t *testing.T) {
	m := startMakeRun(t, false)
	m.await(localEndpoint, 3*time.Minute)
	indiservers := func() []testenv.Proc {
		var out []testenv.Proc
		for _, p := range m.leftovers() {
			if strings.HasPrefix(p.Cmdline, "indiserver ") || strings.HasPrefix(p.Cmdline, "indi_") {
				out = append(out, p)
			}
		}
		return out
	}
	require.NotEmpty(t, indiservers(), "the Ready reservation's stand-ins run")

	// Deleting the Reservation releases it: its pods go, and their stand-ins with them.
	rsv := m.dynamicClient().Resource(obsv1.KindReservation.GroupVersionResource()).Namespace("observatory")
	require.NoError(t, rsv.Delete(context.Background(), "tonight", metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		_, err := rsv.Get(context.Background(), "tonight", metav1.GetOptions{})
		return err != nil
	}, 2*time.Minute, 200*time.Millisecond, "the Reservation was not released")
	require.Eventually(t, func() bool { return len(indiservers()) == 0 }, 30*time.Second, 100*time.Millisecond,
		"indiservers and drivers run after the release: %v", indiservers())

	m.stop(syscall.SIGINT, true)
	m.assertNothingLeft()
}

func TestKillOfMakeRunLeavesNothing(t *testing.T) {
	// `kill <make's pid>`, and make killed outright (its children then hear of it from the
	// kernel: make run asks for SIGTERM when its parent dies).
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			m := startMakeRun(t, false)
			m.await(localEndpoint, 3*time.Minute)
			require.NotEmpty(t, m.leftovers())
			m.stop(sig, false)
			m.assertNothingLeft()
		})
	}
}

func TestMakeRunStartsAKilledWorkerOrTemporalAgainAndTheNightStillEnds(t *testing.T) {
	m := startMakeRunFor(t, false, 90*time.Second)
	m.await(localEndpoint, 3*time.Minute)

	// As the OOM killer or a panic ends a process: at once, unasked.
	programs := map[string]func(testenv.Proc) bool{
		"worker": func(p testenv.Proc) bool { return strings.HasSuffix(p.Cmdline, "/bin/worker") },
		"temporal": func(p testenv.Proc) bool {
			return strings.Contains(p.Cmdline, "temporal server start-dev")
		},
	}
	for _, name := range []string{"worker", "temporal"} {
		var procs []testenv.Proc
		for _, p := range m.leftovers() {
			if programs[name](p) {
				procs = append(procs, p)
			}
		}
		require.Len(t, procs, 1, "the run's %s", name)
		require.NoError(t, syscall.Kill(procs[0].Pid, syscall.SIGKILL))
		exited := m.await(regexp.MustCompile(`.*`+name+` exited \(signal: killed\).*log=(\S+)`), 10*time.Second)
		assert.Equal(t, filepath.Join(m.dir, name+".log"), exited[1], "the line names the log")
		back := m.await(regexp.MustCompile(`.*`+name+` is back.*`), 30*time.Second)
		t.Logf("make run said:\n%s\n%s", exited[0], back[0])
	}

	// The example night, run by the new worker on the restarted Temporal, still ends.
	rsv := m.dynamicClient().Resource(obsv1.KindReservation.GroupVersionResource()).Namespace("observatory")
	var phase string
	require.Eventually(t, func() bool {
		u, err := rsv.Get(context.Background(), "tonight", metav1.GetOptions{})
		if err == nil {
			phase, _, _ = unstructured.NestedString(u.Object, "status", "phase")
		}
		return phase == string(obsv1.ReservationReleased)
	}, 3*time.Minute, time.Second, "the example reservation's phase, last %q", phase)

	m.stop(syscall.SIGINT, true)
	m.assertNothingLeft()
}
