// Package stack runs a real local control plane (etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, kwok for a fake node) and a Temporal server (the dev server, or Temporal's own
// on a PostgreSQL of the stack's own), all on 127.0.0.1, from the binaries hack/tools.sh builds
// into the cache. `make run` and the integration tests share it, so what a developer sees
// locally is what the tests prove. With Options.Node a real node (node.go: containerd, the
// kubelet, kube-proxy, CoreDNS) stands in for kwok, and the API server listens on the node's
// bridge instead of loopback, where its pods reach it.
//
// Every process gets a free port and a folder of its own under Dir, logs into <name>.log there,
// and dies with the process that started it. Stop stops the API server before etcd: stopping
// both at once can hang for 30 s while the API server retries its storage.
package localstack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"liken.sh/runner/indi/indiserver"
	"liken.sh/runner/internal/app"
)

// Versions of the programs the stack runs; hack/tools.sh builds the same ones.
const (
	KubeVersion     = "v1.37.2"
	KwokVersion     = "v0.8.0"
	TemporalVersion = "v1.5.1"
	LoopbackVersion = "v1"
)

// Loopback is where hack/tools.sh puts loopback.so in the cache.
func Loopback(cache string) string {
	return filepath.Join(cache, "loopback-"+LoopbackVersion, "loopback.so")
}

// ExportLoopback points indiserver.LoopbackEnv at the tool cache, unless it is set: the
// tests' indiservers, and the programs they start, then listen on 127.0.0.1 only.
func ExportLoopback() {
	if os.Getenv(indiserver.LoopbackEnv) == "" {
		os.Setenv(indiserver.LoopbackEnv, Loopback(Cache()))
	}
}

// Options chooses what to start.
type Options struct {
	// Dir holds every process's data, certificates and logs. It must exist.
	Dir string
	// Cache is where hack/tools.sh put the binaries (see Cache()).
	Cache string
	// Kube starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok.
	Kube bool
	// Node runs a real node (node.go) in place of kwok's fake one; it implies Kube, needs
	// root, and only one can run on a machine at a time.
	Node bool
	// Registry runs the test world's image registry (registry.go); Node implies it.
	Registry bool
	// Temporal starts a Temporal dev server.
	Temporal Temporal
	// Log receives one line per process started or stopped; nil means slog.Default().
	Log *slog.Logger
}

// Temporal configures the dev server, or Temporal's own server on PostgreSQL.
type Temporal struct {
	Enabled bool
	// Postgres, when set, is the checkout's deploy/temporal/postgres: the stack then runs
	// Temporal's own server on a PostgreSQL cluster of its own, configured by that overlay,
	// instead of the dev server (see temporal_server.go). UI and DBFile are the dev server's.
	Postgres string
	// UI serves the Web UI on UIPort (0: a free port). Tests leave it off.
	UI     bool
	Port   int
	UIPort int
	// DBFile keeps the server's state in a SQLite file (WAL mode); empty keeps it in memory.
	DBFile string
	// SearchAttributes are registered at start, name to type (Keyword, Text, Int, ...).
	SearchAttributes map[string]string
	// TLS secures the server on PostgreSQL's frontend with mTLS (temporal_tls.go); a client
	// dials it with Stack.TemporalSecurity.
	TLS bool
	// APIKeys has that server require API keys too (temporal_jwt.go): the setup script gets
	// one that may administer the namespace default, Stack.TemporalSecurity one that may
	// write in it, as the runner needs.
	APIKeys bool
}

// Stack is a running set of processes.
type Stack struct {
	opts Options
	log  *slog.Logger

	// Kubeconfig is the path of an admin kubeconfig (system:masters).
	Kubeconfig string
	// APIServer is the https URL of kube-apiserver.
	APIServer string
	// AdminToken authenticates as the admin; Kubeconfig carries it too.
	AdminToken string
	// CertDir holds the API server's serving certificate and the service-account key pair.
	CertDir string
	// KubeletPort is the fake node's kubelet port on 127.0.0.1 (pod logs are fetched there).
	KubeletPort int
	// TemporalAddress is host:port of the Temporal frontend.
	TemporalAddress string
	// TemporalUI is the Web UI's URL, when started.
	TemporalUI string
	// TemporalSecurity is how a client dials a frontend started with Temporal.TLS (and
	// Temporal.APIKeys); nil for a bare one.
	TemporalSecurity *app.TemporalSecurity
	// Node is the real node, when Options.Node asked for one.
	Node *Node
	// Registry is host:port of the test world's image registry, when started.
	Registry string

	mu    sync.Mutex
	procs []*proc  // in start order
	stops []func() // what else Stop ends, after the processes
}

// onStop has Stop call stop after it has stopped the processes.
func (s *Stack) onStop(stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stops = append(s.stops, stop)
}

// Start starts what opts asks for and waits until each part is healthy. On error it stops
// whatever it had started. Ports are chosen free but released before the programs bind
// them, so a test package starting at the same moment can take one: a start that fails on
// "address already in use" is tried again, from an empty folder, with other ports.
func Start(ctx context.Context, opts Options) (*Stack, error) {
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	for attempt := 1; ; attempt++ {
		s, err := start(ctx, opts)
		if err == nil || attempt == 3 || !errors.Is(err, errPortTaken) {
			return s, err
		}
		opts.Log.Warn("a port was taken while the stack started; starting again with other ports", "attempt", attempt)
		if err := emptyDir(opts.Dir); err != nil {
			return nil, err
		}
	}
}

func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func start(ctx context.Context, opts Options) (*Stack, error) {
	s := &Stack{opts: opts, log: opts.Log}
	if opts.Registry || opts.Node {
		// First: the real node's containerd pulls the pod sandbox from it.
		if err := s.startRegistry(ctx); err != nil {
			s.Stop()
			return nil, err
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	if opts.Temporal.Enabled {
		wg.Add(1)
		go func() { defer wg.Done(); errs[0] = s.startTemporal(ctx) }()
	}
	if opts.Kube || opts.Node {
		wg.Add(1)
		go func() { defer wg.Done(); errs[1] = s.startKube(ctx) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Stop stops every process, newest first, so the API server goes before etcd, and then
// removes what a real node left on the machine.
func (s *Stack) Stop() {
	s.mu.Lock()
	procs, stops := s.procs, s.stops
	s.procs, s.stops = nil, nil
	s.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop(10 * time.Second)
	}
	for _, stop := range stops {
		stop()
	}
	if s.Node != nil {
		if err := s.Node.stop(); err != nil {
			s.log.Error("the real node left something on the machine; the next real node's start removes it", "error", err)
		}
		s.Node = nil
	}
}

// StopProcess stops one process by name ("temporal", "kube-apiserver", ...) and returns a
// function that starts it again with the same flags, for fault tests.
func (s *Stack) StopProcess(name string) (restart func(context.Context) error, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		if p.name == name {
			p.stop(10 * time.Second)
			return func(ctx context.Context) error { return p.restart(ctx) }, nil
		}
	}
	return nil, fmt.Errorf("no process named %s", name)
}

// Logs returns the path of a process's log file.
func (s *Stack) Logs(name string) string { return filepath.Join(s.opts.Dir, name+".log") }

func (s *Stack) bin(tool, name string) (string, error) {
	p := filepath.Join(s.opts.Cache, tool, name)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%s is not built (%s missing): run `make tools` (hack/tools.sh) first", name, p)
	}
	return p, nil
}

func (s *Stack) add(p *proc) {
	s.mu.Lock()
	s.procs = append(s.procs, p)
	s.mu.Unlock()
}

// Ports are drawn at random below Linux's ephemeral range (32768-60999 by default), where
// no outgoing connection takes one behind our back: a port from ":0" is an ephemeral port,
// and the many client connections of parallel test packages reuse those quickly.
const (
	portLow  = 10000
	portHigh = 32000
)

// FreePort returns a TCP port that was free on 127.0.0.1 a moment ago.
func FreePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

func freePorts(n int) ([]int, error) {
	// Hold every listener until all are chosen so one call cannot return a port twice.
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			return nil, fmt.Errorf("no free port on 127.0.0.1 between %d and %d", portLow, portHigh)
		}
		port := portLow + mrand.IntN(portHigh-portLow)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue
		}
		ls = append(ls, l)
		ports = append(ports, port)
	}
	return ports, nil
}

// Cache returns the tool cache that hack/tools.sh builds into: $LIKEN_CACHE, else liken in
// the user's cache folder ($XDG_CACHE_HOME, else ~/.cache), shared by every checkout. With
// neither HOME nor XDG_CACHE_HOME set, hack/tools.sh builds nothing, and the missing
// programs under the temporary folder this returns then say so.
func Cache() string {
	if c := os.Getenv("LIKEN_CACHE"); c != "" {
		return c
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "liken")
}

// Root finds the repository root: the nearest folder above dir whose go.mod is this module's.
func Root(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module liken.sh/runner\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no liken.sh/runner go.mod above %s", dir)
		}
	}
}

// Process describes one more program to run beside the stack (the watcher, a worker).
type Process struct {
	Name string
	Path string
	Args []string
	Env  []string // added to this process's environment
	// Ready answers nil once the program serves; nil means ready once started.
	Ready func(context.Context) error
}

// Spawn starts p with its log in the stack's folder and waits until it is ready. Stop stops it
// before the stack, because it was started after.
func (s *Stack) Spawn(ctx context.Context, p Process) error {
	ready := p.Ready
	if ready == nil {
		ready = func(context.Context) error { return nil }
	}
	// A worker in dev mode starts indiservers, which listen on 127.0.0.1 only with loopback.so;
	// every program of the stack finds it where the tools put it (make run, the bench, tests).
	env := append([]string{indiserver.LoopbackEnv + "=" + Loopback(s.opts.Cache)}, p.Env...)
	return s.run(ctx, &proc{name: p.Name, path: p.Path, args: p.Args, env: env, dir: s.opts.Dir, ready: ready})
}

// HTTPReady is a readiness check for a program's health endpoint.
func HTTPReady(url string) func(context.Context) error { return httpOK(url, "") }

// Pid returns the process ID of a running process of the stack, or 0.
func (s *Stack) Pid(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		if p.name == name {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.cmd != nil && p.cmd.Process != nil {
				return p.cmd.Process.Pid
			}
		}
	}
	return 0
}
