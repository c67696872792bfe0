// Command bench measures the people side on the real local stack and prints, in one run and
// side by side, what the issue asks us to compare: the bare limit of the API server (6 KB
// status PUTs, 8 workers, no operator), a plain client-go reconciler doing the same job one
// Person at a time, and this project (the watcher and worker binaries over Temporal). Numbers
// are printed, never asserted: these machines are noisy.
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
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/internal/stack"
)

type config struct {
	burst   int // Persons created at once
	singles int // Persons created one after another, for the one-Person latency
	keep    bool
}

func main() {
	var c config
	flag.IntVar(&c.burst, "burst", 500, "Persons created at once")
	flag.IntVar(&c.singles, "singles", 40, "Persons created one at a time for the latency figures")
	flag.BoolVar(&c.keep, "keep", false, "keep the stack's folder (logs) after the run")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench holds the stack and the clients every scenario uses.
type bench struct {
	config
	root   string
	s      *stack.Stack
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	out    *report
	binDir string
}

func run(c config) error {
	wd, _ := os.Getwd()
	root, err := stack.Root(wd)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "liken-bench-")
	if err != nil {
		return err
	}
	if !c.keep {
		defer os.RemoveAll(dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// The same Temporal as `make run`: SQLite in a file, WAL with synchronous=normal.
	s, err := stack.Start(ctx, stack.Options{
		Dir: dir, Cache: stack.Cache(root), Kube: true, Log: log,
		Temporal: stack.Temporal{Enabled: true, DBFile: filepath.Join(dir, "temporal.db")},
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
	b := &bench{config: c, root: root, s: s, out: &report{}, binDir: filepath.Join(dir, "bin")}
	b.kube = kubernetes.NewForConfigOrDie(cfg)
	b.dyn = dynamic.NewForConfigOrDie(cfg)

	kubectl := filepath.Join(stack.Cache(root), "kube-"+stack.KubeVersion, "kubectl")
	if out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig="+s.Kubeconfig, "apply", "--server-side",
		"-k", filepath.Join(root, "deploy", "crds", "people")).CombinedOutput(); err != nil {
		return fmt.Errorf("apply the Person CRD: %v: %s", err, out)
	}
	if out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig="+s.Kubeconfig, "wait", "--for=condition=Established",
		"crd/people.people.liken.sh").CombinedOutput(); err != nil {
		return fmt.Errorf("wait for the Person CRD: %v: %s", err, out)
	}

	fmt.Printf("people bench: burst of %d, %d single Persons; 2 cores shared by every process\n\n", c.burst, c.singles)
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
