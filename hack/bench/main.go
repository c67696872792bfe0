// Command bench measures the project on the real local stack, each workload on a fresh localstack.
// People: in one run and side by side, the bare limit of the API server (6 KB status PUTs, 8
// workers, no operator), a plain client-go reconciler doing the same job one Person at a time,
// and this project (the watcher and worker binaries over Temporal). Reservations: 1 and then
// 20 telescopes reserved at once (reservations.go). Then this project again on Temporal's own
// server with PostgreSQL (deploy/temporal/postgres), with one worker process and with two,
// counting what each worker did and that no side effect happened twice (scale.go). With
// -scale, only the ten-thousand-Persons scenario runs (people_scale.go). Numbers are printed,
// never asserted: these machines are noisy; counts (counts.go) are not.
//
// `make bench` runs it after the Go micro-benchmarks.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/localstack"
)

type config struct {
	burst        int // Persons created at once
	singles      int // Persons created one after another, for the one-Person latency
	people       bool
	reservations string // telescope counts, comma-separated
	postgres     bool   // run this project again on the server with PostgreSQL, 1 and 2 workers
	scale        string // Person counts of the scale scenario, comma-separated; only it runs
	profiles     string // with scale: where to write heap profiles at each step
	keep         bool
}

// setup is the Temporal a workload runs on, and how many worker processes share its work.
type setup struct {
	postgres bool
	workers  int
}

func (s setup) String() string {
	if !s.postgres {
		return "dev server"
	}
	if s.workers == 1 {
		return "PostgreSQL, 1 worker"
	}
	return fmt.Sprintf("PostgreSQL, %d workers", s.workers)
}

// onPostgres are the setups of the runs on the server with PostgreSQL.
var onPostgres = []setup{{postgres: true, workers: 1}, {postgres: true, workers: 2}}

func main() {
	var c config
	flag.IntVar(&c.burst, "burst", 500, "Persons created at once")
	flag.IntVar(&c.singles, "singles", 40, "Persons created one at a time for the latency figures")
	flag.BoolVar(&c.people, "people", true, "run the people bench")
	flag.StringVar(&c.reservations, "reservations", "1,20", "run the reservation bench with this many telescopes at once, each in turn (empty: none)")
	flag.BoolVar(&c.postgres, "postgres", true, "run this project's people and largest reservation run again on Temporal's server with PostgreSQL, with 1 and 2 workers")
	flag.StringVar(&c.scale, "scale", "", "run only the people-at-scale scenario, growing to each of these Person counts in turn (make bench-scale: 1000,5000,10000)")
	flag.StringVar(&c.profiles, "profiles", "", "with -scale: write the watcher's and the worker's heap profiles at each step into this folder (for go tool pprof)")
	flag.BoolVar(&c.keep, "keep", false, "keep the stacks' folders (logs) after the run")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench holds a stack and the clients every scenario uses.
type bench struct {
	config
	setup
	root   string
	s      *localstack.Stack
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	out    *report
	binDir string
	log    *slog.Logger
	own    *ownRequests      // the bench's own requests to the API server
	health map[string]string // each spawned process's health and metrics address
}

// run runs every workload; one that fails is said at once, the others still run, and the run
// ends with all the failures.
func run(c config) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
	defer cancel()
	if c.scale != "" {
		sizes, err := scaleSizes(c.scale)
		if err != nil {
			return err
		}
		return withBench(ctx, c, setup{workers: 1}, "people", nil, peopleScale(sizes))
	}
	counts, err := telescopeCounts(c.reservations)
	if err != nil {
		return err
	}
	var failed []error
	note := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			failed = append(failed, err)
		}
	}
	if c.people {
		fmt.Printf("people bench: burst of %d, %d single Persons; 2 cores shared by every process\n\n", c.burst, c.singles)
		out := &report{}
		note(withBench(ctx, c, setup{workers: 1}, "people", out, runPeople))
		for _, su := range onPostgres {
			note(withBench(ctx, c, su, "people", out, step("this project", (*bench).project)))
		}
		out.print(os.Stdout)
	}
	if len(counts) > 0 {
		printReservationBench()
		note(withBench(ctx, c, setup{workers: 1}, "", nil, runReservations(counts)))
		for _, su := range onPostgres {
			// The largest run only: two cores cannot show a speed-up, but two workers share it.
			note(withBench(ctx, c, su, "", nil, runReservations(counts[len(counts)-1:])))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of the runs failed (each is said above): %w", len(failed), errors.Join(failed...))
	}
	return nil
}

// withBench starts a fresh stack with the Temporal of su (the dev server as `make run` runs it,
// SQLite in a file with WAL and synchronous=normal; or Temporal's own server with PostgreSQL,
// configured by deploy/temporal/postgres), applies the CRDs (all, or one group's folder under
// deploy/crds), runs f, and stops the localstack. Rows go to out.
func withBench(ctx context.Context, c config, su setup, crds string, out *report, f func(context.Context, *bench) error) error {
	if su.postgres && !c.postgres {
		return nil
	}
	wd, _ := os.Getwd()
	root, err := localstack.Root(wd)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "liken-bench-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintln(os.Stderr, "bench: the stack's folder is", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	temporal := localstack.Temporal{Enabled: true, SearchAttributes: contract.SearchAttributes}
	if su.postgres {
		temporal.Postgres = filepath.Join(root, "deploy", "temporal", "postgres")
	} else {
		temporal.DBFile = filepath.Join(dir, "temporal.db")
	}
	s, err := localstack.Start(ctx, localstack.Options{Dir: dir, Cache: localstack.Cache(), Kube: true, Log: log, Temporal: temporal})
	if err != nil {
		return fmt.Errorf("start the stack (%s): %w", su, err)
	}
	defer s.Stop()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	b := &bench{config: c, setup: su, root: root, s: s, out: out, binDir: filepath.Join(dir, "bin"), log: log,
		own: &ownRequests{n: map[apiKey]float64{}}, health: map[string]string{}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { b.own.next = rt; return b.own })
	b.kube = kubernetes.NewForConfigOrDie(cfg)
	b.dyn = dynamic.NewForConfigOrDie(cfg)

	kubectl := filepath.Join(localstack.Cache(), "kube-"+localstack.KubeVersion, "kubectl")
	if out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig="+s.Kubeconfig, "apply", "--server-side",
		"-k", filepath.Join(root, "deploy", "crds", crds)).CombinedOutput(); err != nil {
		return fmt.Errorf("apply the CRDs: %v: %s", err, out)
	}
	if out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig="+s.Kubeconfig, "wait", "--for=condition=Established",
		"crd", "--all").CombinedOutput(); err != nil {
		return fmt.Errorf("wait for the CRDs: %v: %s", err, out)
	}
	if err := f(ctx, b); err != nil {
		return fmt.Errorf("%s: %w", su, err)
	}
	return nil
}

// runPeople runs the three people workloads on the dev server.
func runPeople(ctx context.Context, b *bench) error {
	for _, f := range []func(context.Context, *bench) error{
		step("bare limit", (*bench).bareLimit),
		step("plain reconciler", (*bench).plainReconciler),
		step("this project", (*bench).project),
	} {
		if err := f(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// step names a workload in its error and says on stderr how long it took.
func step(name string, f func(*bench, context.Context) error) func(context.Context, *bench) error {
	return func(ctx context.Context, b *bench) error {
		started := time.Now()
		if err := f(b, ctx); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "bench: %s (%s) done in %s\n", name, b.setup, time.Since(started).Round(time.Second))
		return nil
	}
}

// buildBinaries builds the watcher and the worker into b.binDir.
func (b *bench) buildBinaries(ctx context.Context) error {
	if err := os.MkdirAll(b.binDir, 0o755); err != nil {
		return err
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", b.binDir+"/", "./cmd/watcher", "./cmd/worker")
	build.Dir = b.root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build: %v: %s", err, out)
	}
	if _, err := b.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "liken-system"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// spawn runs the project's binary bin as the process name with args, ready when its /readyz
// says so. POD_NAME is the process's name, as a pod's would be: Events name their worker.
func (b *bench) spawn(ctx context.Context, name, bin string, args ...string) error {
	port, err := localstack.FreePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	b.health[name] = addr
	env := []string{"KUBECONFIG=" + b.s.Kubeconfig, "TEMPORAL_ADDRESS=" + b.s.TemporalAddress, "LIKEN_LOG_LEVEL=warn",
		"LIKEN_HEALTH_ADDRESS=" + addr, "POD_NAME=" + name}
	return b.s.Spawn(ctx, localstack.Process{
		Name: name, Path: filepath.Join(b.binDir, bin), Args: args, Env: env,
		Ready: localstack.HTTPReady("http://" + addr + "/readyz"),
	})
}

// spawnWorkers runs the setup's worker processes: worker, worker-2, ...
func (b *bench) spawnWorkers(ctx context.Context, args ...string) error {
	for _, name := range b.workerNames() {
		if err := b.spawn(ctx, name, "worker", args...); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) workerNames() []string {
	names := []string{"worker"}
	for i := 2; i <= b.workers; i++ {
		names = append(names, fmt.Sprintf("worker-%d", i))
	}
	return names
}
