// Command bench measures the project on the real local stack, each workload on a fresh stack.
// People: in one run and side by side, the bare limit of the API server (6 KB status PUTs, 8
// workers, no operator), a plain client-go reconciler doing the same job one Person at a time,
// and this project (the watcher and worker binaries over Temporal). Reservations: 1 and then
// 20 telescopes reserved at once (reservations.go). Numbers are printed, never asserted: these
// machines are noisy.
//
// `make bench` runs it after the Go micro-benchmarks.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
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

	"liken.sh/runner/internal/stack"
	"liken.sh/runner/workflows"
)

type config struct {
	burst        int // Persons created at once
	singles      int // Persons created one after another, for the one-Person latency
	people       bool
	reservations string // telescope counts, comma-separated
	keep         bool
}

func main() {
	var c config
	flag.IntVar(&c.burst, "burst", 500, "Persons created at once")
	flag.IntVar(&c.singles, "singles", 40, "Persons created one at a time for the latency figures")
	flag.BoolVar(&c.people, "people", true, "run the people bench")
	flag.StringVar(&c.reservations, "reservations", "1,20", "run the reservation bench with this many telescopes at once, each in turn (empty: none)")
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
	root   string
	s      *stack.Stack
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	out    *report
	binDir string
	log    *slog.Logger
}

func run(c config) error {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()
	if c.people {
		if err := withBench(ctx, c, "people", runPeople); err != nil {
			return err
		}
	}
	if c.reservations != "" {
		if err := withBench(ctx, c, "", runReservations); err != nil {
			return err
		}
	}
	return nil
}

// withBench starts a fresh stack (the same Temporal as `make run`: SQLite in a file, WAL with
// synchronous=normal), applies the CRDs (all, or one group's folder under deploy/crds), runs
// f, and stops the stack.
func withBench(ctx context.Context, c config, crds string, f func(context.Context, *bench) error) error {
	wd, _ := os.Getwd()
	root, err := stack.Root(wd)
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
	s, err := stack.Start(ctx, stack.Options{
		Dir: dir, Cache: stack.Cache(root), Kube: true, Log: log,
		Temporal: stack.Temporal{Enabled: true, DBFile: filepath.Join(dir, "temporal.db"), SearchAttributes: workflows.SearchAttributes},
	})
	if err != nil {
		return err
	}
	defer s.Stop()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	b := &bench{config: c, root: root, s: s, out: &report{}, binDir: filepath.Join(dir, "bin"), log: log}
	b.kube = kubernetes.NewForConfigOrDie(cfg)
	b.dyn = dynamic.NewForConfigOrDie(cfg)

	kubectl := filepath.Join(stack.Cache(root), "kube-"+stack.KubeVersion, "kubectl")
	if out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig="+s.Kubeconfig, "apply", "--server-side",
		"-k", filepath.Join(root, "deploy", "crds", crds)).CombinedOutput(); err != nil {
		return fmt.Errorf("apply the CRDs: %v: %s", err, out)
	}
	if out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig="+s.Kubeconfig, "wait", "--for=condition=Established",
		"crd", "--all").CombinedOutput(); err != nil {
		return fmt.Errorf("wait for the CRDs: %v: %s", err, out)
	}
	return f(ctx, b)
}

func runPeople(ctx context.Context, b *bench) error {
	fmt.Printf("people bench: burst of %d, %d single Persons; 2 cores shared by every process\n\n", b.burst, b.singles)
	for _, step := range []struct {
		name string
		f    func(context.Context) error
	}{
		{"bare limit", b.bareLimit},
		{"plain reconciler", b.plainReconciler},
		{"this project", b.project},
	} {
		started := time.Now()
		if err := step.f(ctx); err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		fmt.Fprintf(os.Stderr, "bench: %s done in %s\n", step.name, time.Since(started).Round(time.Second))
	}
	b.out.print(os.Stdout)
	return nil
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

// spawn runs the project's binary name with args, ready when its /readyz says so.
func (b *bench) spawn(ctx context.Context, name string, args ...string) error {
	port, err := stack.FreePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	env := []string{"KUBECONFIG=" + b.s.Kubeconfig, "TEMPORAL_ADDRESS=" + b.s.TemporalAddress, "LIKEN_LOG_LEVEL=warn",
		"LIKEN_HEALTH_ADDRESS=" + addr}
	return b.s.Spawn(ctx, stack.Process{
		Name: name, Path: filepath.Join(b.binDir, name), Args: args, Env: env,
		Ready: stack.HTTPReady("http://" + addr + "/readyz"),
	})
}
