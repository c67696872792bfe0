// The Temporal server on PostgreSQL: it is set up as the overlay's Job sets it up, not as root,
// serves mTLS and takes API keys as the overlay configures them, which the runner's client
// dials with its certificate and key and is refused without, and dies with the process that
// started it, shared memory and all.
package localstack

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"liken.sh/runner/internal/app"
)

// helperDir, set, makes the test binary the process that starts a stack and is killed.
const helperDir = "LIKEN_STACK_HELPER_DIR"

// started is what the helper process tells the test about its stack.
type started struct {
	Address string
	Pids    map[string]int
	TLS     *app.TemporalSecurity
}

// TestTheServerOnPostgresIsSetUpServesMTLSWithAPIKeysAndDiesWithTheProcessThatStartedIt starts
// Temporal's server on the stack's PostgreSQL, with mTLS and API keys, in a child process;
// checks that the runner's client (internal/app, as the watcher and the worker build it)
// connects with the client certificate and an API key and is refused without either, or with
// a key signed by another, saying why; that the namespace and the search
// attributes exist as the overlay's Job makes them; and that PostgreSQL does not run as root.
// Then it kills the child with SIGKILL, as a test binary that times out is killed: every
// process of the stack ends, PostgreSQL's backends with it, and PostgreSQL's shared memory goes.
func TestTheServerOnPostgresIsSetUpServesMTLSWithAPIKeysAndDiesWithTheProcessThatStartedIt(t *testing.T) {
	if dir := os.Getenv(helperDir); dir != "" {
		startAndWait(t, dir)
		return
	}
	// Not t.TempDir: PostgreSQL's user must be able to enter the folder's parent.
	dir, err := os.MkdirTemp("", "liken-stack-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	child := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.timeout=5m")
	child.Env = append(os.Environ(), helperDir+"="+dir)
	child.Stdout, child.Stderr = os.Stderr, os.Stderr
	require.NoError(t, child.Start())
	exited := make(chan struct{})
	go func() { child.Wait(); close(exited) }()
	t.Cleanup(func() { child.Process.Kill(); <-exited })

	var st started
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(dir, "started.json"))
		if err == nil && json.Unmarshal(b, &st) == nil {
			break
		}
		select {
		case <-exited:
			t.Fatalf("the child exited before its stack started; logs in %s", dir)
		default:
		}
		require.True(t, time.Now().Before(deadline), "the child's stack did not start in 3 minutes; logs in %s", dir)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dial := func(sec app.TemporalSecurity) (client.Client, error) {
		cfg := app.Config{TemporalAddress: st.Address, TemporalNamespace: "default", TemporalSecurity: sec}
		c, err := cfg.Temporal("test", slog.New(slog.DiscardHandler), nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(c.Close)
		return c, cfg.TemporalReady(c)(ctx)
	}
	// The server's TLS alert says why, or, when the connection broke before the client read
	// it, the runner's hint names the option to give.
	_, err = dial(app.TemporalSecurity{})
	require.ErrorContains(t, err, "TLS", "a client without TLS is refused, saying TLS may be missing")
	_, err = dial(app.TemporalSecurity{CAFile: st.TLS.CAFile, ServerName: st.TLS.ServerName})
	require.ErrorContains(t, err, "certificate", "a client without a certificate is refused, saying why")
	noKey := *st.TLS
	noKey.APIKeyFile = ""
	_, err = dial(noKey)
	require.ErrorContains(t, err, "Request unauthorized.", "a client without an API key is refused")
	require.ErrorContains(t, err, "--temporal-api-key-file", "and told which option to give")
	foreign, err := newJWTIssuer()
	require.NoError(t, err)
	noKey.APIKey, err = foreign.token("intruder", "default:admin")
	require.NoError(t, err)
	_, err = dial(noKey)
	require.ErrorContains(t, err, "Request unauthorized.", "a key the server's issuer did not sign is refused")
	c, err := dial(*st.TLS)
	require.NoError(t, err, "the client with its certificate and API key reaches the namespace default, which the setup created")
	attrs, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	require.NoError(t, err)
	require.Contains(t, attrs.CustomAttributes, "Telescope", "the setup registered the stack's search attributes")
	if os.Geteuid() == 0 {
		require.NotEqual(t, 0, uidOf(t, st.Pids["postgres"]), "PostgreSQL runs as another user than root")
	}

	// PostgreSQL's backends and helpers lead sessions of their own (they call setsid), so they
	// are found as the server's children, not in its process group.
	backends := childrenOf(t, st.Pids["postgres"])
	require.NotEmpty(t, backends, "Temporal's server holds connections to PostgreSQL")
	require.NoError(t, child.Process.Kill())
	<-exited
	for _, name := range []string{"postgres", "temporal"} {
		pgid := st.Pids[name] // each leads its process group
		require.Eventually(t, func() bool { return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) },
			30*time.Second, 100*time.Millisecond, "every process of %s ended with the process that started it", name)
	}
	for _, pid := range backends {
		require.Eventually(t, func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) },
			30*time.Second, 100*time.Millisecond, "PostgreSQL's process %d ended with its server", pid)
	}
	require.Empty(t, sharedMemoryOf(t, st.Pids["postgres"]), "PostgreSQL removed its shared memory")
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(t *testing.T, pid int) []int {
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

// startAndWait is the child: it starts the stack, says so in dir, and waits to be killed.
func startAndWait(t *testing.T, dir string) {
	root, err := Root(".")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Dir: dir, Cache: Cache(), Temporal: Temporal{
		Enabled: true, Postgres: filepath.Join(root, "deploy", "temporal", "postgres"),
		SearchAttributes: map[string]string{"Telescope": "Keyword"}, TLS: true, APIKeys: true,
	}})
	require.NoError(t, err)
	st := started{Address: s.TemporalAddress, Pids: map[string]int{"postgres": s.Pid("postgres"), "temporal": s.Pid("temporal")}, TLS: s.TemporalSecurity}
	b, err := json.Marshal(st)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "started.json.tmp"), b, 0o600))
	require.NoError(t, os.Rename(filepath.Join(dir, "started.json.tmp"), filepath.Join(dir, "started.json")))
	time.Sleep(3 * time.Minute)
	s.Stop()
	t.Fatal("the test did not kill this process")
}

// uidOf is the real user ID a process runs as.
func uidOf(t *testing.T, pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			uid, err := strconv.Atoi(f[1])
			require.NoError(t, err)
			return uid
		}
	}
	t.Fatalf("no Uid in /proc/%d/status", pid)
	return 0
}

// sharedMemoryOf lists the System V shared memory segments the process created.
func sharedMemoryOf(t *testing.T, pid int) []string {
	b, err := os.ReadFile("/proc/sysvipc/shm")
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		// key shmid perms size cpid lpid nattch ...
		if f := strings.Fields(line); len(f) > 4 && f[4] == strconv.Itoa(pid) {
			out = append(out, line)
		}
	}
	return out
}
