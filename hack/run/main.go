// Command run is `make run`: the whole system on one machine. It starts the local control
// plane and a Temporal dev server with its Web UI, applies the CRDs and examples/, starts the
// watcher and the worker built by make, proves the path with one Probe workflow, prints where
// to look, and keeps running until Ctrl-C, which stops everything in reverse order. The
// worker runs in dev mode, a local observatory on 127.0.0.1 (see local.go).
//
// While it runs, it starts again any of its processes that exits unasked, saying so, as a
// kubelet would (localstack's Supervise); the worker's indiservers run on meanwhile, as pods
// would. Nothing it starts outlives it, however it ends: Ctrl-C (also when its output goes
// through a pipe whose reader dies first), SIGTERM (make passes a kill on), the death of make,
// or a process that keeps failing.
//
// State lives in .run in the checkout (-dir moves it) and is wiped at each start: this is a
// playground, not a cluster to keep. The programs it runs come from the tool cache that
// hack/tools.sh fills, shared by every checkout of this machine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"k8s.io/client-go/kubernetes"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/app"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/workflows"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		os.Exit(1)
	}
}

// options are run's flags.
type options struct {
	temporalPort, uiPort int
	bin                  string
	session              time.Duration
	node                 bool
	dir                  string
}

func parseOptions() options {
	var o options
	flag.IntVar(&o.temporalPort, "temporal-port", 7233, "port of the Temporal frontend")
	flag.IntVar(&o.uiPort, "ui-port", 8233, "port of the Temporal Web UI")
	flag.StringVar(&o.bin, "bin", "bin", "folder with the watcher and worker binaries (make builds them)")
	flag.DurationVar(&o.session, "session", 3*time.Minute, "how long the example reservation runs")
	flag.BoolVar(&o.node, "node", false, "run on a real node, with deploy/ installed as pods (needs root; see docs/development.md)")
	flag.StringVar(&o.dir, "dir", "", "folder of the run's state and logs, wiped at start (default .run in the checkout)")
	flag.Parse()
	return o
}

func run() error {
	o := parseOptions()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	outliveNothing()

	wd, _ := os.Getwd()
	root, err := localstack.Root(wd)
	if err != nil {
		return err
	}
	cache := localstack.Cache()
	dir, err := freshDir(o.dir, root)
	if err != nil {
		return err
	}
	for _, p := range []int{o.temporalPort, o.uiPort} {
		if err := portFree(p); p != 0 && err != nil {
			return err
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if o.node {
		return runOnNode(ctx, log, root, cache, dir, o.uiPort, o.session)
	}
	return runLocal(ctx, log, o, root, cache, dir)
}

// freshDir is the run's folder (dir, else .run in the checkout), emptied: a run that was
// killed may have left indiservers, which outlive a killed worker, and its state.
func freshDir(dir, root string) (string, error) {
	if dir == "" {
		dir = filepath.Join(root, ".run")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := stopIndiservers(dir); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// runLocal is the playground on kwok: the stack, the CRDs and examples/, the watcher and the
// worker as processes of this machine, and the Probe workflow, until ctx ends.
func runLocal(ctx context.Context, log *slog.Logger, o options, root, cache, dir string) error {
	started := time.Now()
	s, err := localstack.Start(ctx, localStack(log, o, cache, dir))
	if err != nil {
		return err
	}
	obs := observatory{dir}
	defer func() {
		s.Stop()
		if err := stopIndiservers(dir); err != nil {
			log.Warn("stop the local indiservers", "err", err)
		}
	}()
	log.Info("stack is up", "in", time.Since(started).Round(time.Millisecond))
	kube, err := s.Client()
	if err != nil {
		return err
	}

	kubectlPath := filepath.Join(cache, "kube-"+localstack.KubeVersion, "kubectl")
	kubectl := func(args ...string) error {
		cmd := exec.CommandContext(ctx, kubectlPath, append([]string{"--kubeconfig=" + s.Kubeconfig}, args...)...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stderr, os.Stderr
		return cmd.Run()
	}
	if err := kubectl("apply", "--server-side", "-k", "deploy/crds"); err != nil {
		return fmt.Errorf("apply the CRDs: %w", err)
	}
	if err := kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"); err != nil {
		return err
	}
	// Who may book (docs/booking.md): the local admin passes it, `kubectl --as` shows it.
	if err := kubectl("apply", "--server-side", "-f", "deploy/observatory/booking-policy.yaml"); err != nil {
		return fmt.Errorf("apply the booking policy: %w", err)
	}
	sessionEnd, err := exampleSession(ctx, kube, obs, kubectl, root, o.session)
	if err != nil {
		return err
	}
	// The watcher's Leases live in liken-system, which deploy/ creates in a cluster.
	if err := kubectl("create", "namespace", "liken-system"); err != nil {
		return fmt.Errorf("create the namespace of the watcher's Leases: %w", err)
	}

	kubelet, err := obs.kubelet(kube, s.KubeletPort, filepath.Join(root, o.bin, "worker"))
	if err != nil {
		return err
	}
	defer kubelet.Stop()
	if err := spawnBinaries(ctx, s, obs, filepath.Join(root, o.bin)); err != nil {
		return err
	}

	version, err := probe(ctx, s.TemporalAddress)
	if err != nil {
		return err
	}
	fmt.Printf(`
The local stack is up (in %s); the worker reached Kubernetes %s through Temporal.

  export KUBECONFIG=%s
  %s get people,astro -A

  Temporal UI:  %s
  Logs:         %s/{watcher,worker,kube-apiserver,temporal,...}.log

The example reservation observatory/tonight is Ready within seconds (its INDI server's
address on this machine is printed below) and runs until %s, then deactivates and is
Released (workflow reservation/observatory/tonight in the UI). The Person grace's picture
is baked from a claim backed by %s.

Ctrl-C stops everything.
`, time.Since(started).Round(time.Second), version, s.Kubeconfig, kubectlPath, s.TemporalUI, dir, sessionEnd.Local().Format("15:04:05"),
		filepath.Join(obs.volumes(), claimNamespace, claimName))
	go announce(ctx, kube, os.Stdout)
	if err := s.Supervise(ctx); err != nil {
		return fmt.Errorf("%w; stopping everything", err)
	}
	fmt.Fprintln(os.Stderr, "\nstopping: watcher, worker, then the stack")
	return nil
}

// localStack is the control plane with kwok, and a Temporal dev server with its Web UI on
// the ports asked for.
func localStack(log *slog.Logger, o options, cache, dir string) localstack.Options {
	return localstack.Options{
		Dir: dir, Cache: cache, Kube: true, Log: log,
		Temporal: localstack.Temporal{
			Enabled: true, UI: true, Port: o.temporalPort, UIPort: o.uiPort,
			DBFile:           filepath.Join(dir, "temporal.db"),
			SearchAttributes: contract.SearchAttributes,
		},
	}
}

// exampleSession backs the example claim with a folder of this machine (a hostPath volume a
// real baker pod mounts, or a folder the local kubelet reads), applies examples/ and moves
// the example reservation's end to session from now, so a new user sees a whole session,
// from Wait to Released, in the Temporal UI. It returns that end.
func exampleSession(ctx context.Context, kube kubernetes.Interface, obs observatory, kubectl func(args ...string) error,
	root string, session time.Duration) (time.Time, error) {
	if err := obs.backClaim(ctx, kube); err != nil {
		return time.Time{}, fmt.Errorf("back the example claim with a folder: %w", err)
	}
	if err := kubectl("apply", "--server-side", "-k", filepath.Join(root, "examples")); err != nil {
		return time.Time{}, fmt.Errorf("apply examples/: %w", err)
	}
	sessionEnd := time.Now().Add(session).UTC().Truncate(time.Second)
	if err := kubectl("-n", "observatory", "patch", "reservation", "tonight", "--type=merge",
		"-p", `{"spec":{"end":"`+sessionEnd.Format(time.RFC3339)+`"}}`); err != nil {
		return time.Time{}, fmt.Errorf("set the example reservation's end: %w", err)
	}
	return sessionEnd, nil
}

// spawnBinaries starts the watcher and the worker built by make (in bin), each with its own
// health port, and waits until each is ready.
func spawnBinaries(ctx context.Context, s *localstack.Stack, obs observatory, bin string) error {
	env := []string{
		"KUBECONFIG=" + s.Kubeconfig,
		"TEMPORAL_ADDRESS=" + s.TemporalAddress,
		"LIKEN_LOG_FORMAT=text",
	}
	for _, name := range []string{"watcher", "worker"} {
		port, err := localstack.FreePort()
		if err != nil {
			return err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		var args []string
		procEnv := slices.Concat(env, []string{"LIKEN_HEALTH_ADDRESS=" + addr})
		if name == "watcher" {
			// Both sides in one process, each with its own Lease in liken-system.
			args = []string{"--side=all"}
		} else {
			// kwok's pods run nothing: the worker stands a local indiserver in for each INDI
			// server pod, with the simulator drivers of its devices (dev mode only).
			procEnv = append(procEnv, obs.workerEnv()...)
		}
		if err := s.Spawn(ctx, localstack.Process{
			Name: name, Path: filepath.Join(bin, name), Args: args,
			Env:   procEnv,
			Ready: localstack.HTTPReady("http://" + addr + "/readyz"),
		}); err != nil {
			return err
		}
	}
	return nil
}

// probe runs the Probe workflow once, so the first thing a new user sees in the UI is a
// workflow that went through the worker to the cluster.
func probe(ctx context.Context, addr string) (string, error) {
	c, err := client.DialContext(ctx, client.Options{HostPort: addr})
	if err != nil {
		return "", err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	words := workflows.ProbeWords()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: "probe", TaskQueue: app.DefaultTaskQueue, StaticSummary: words.Summary, StaticDetails: words.Details,
	}, contract.ProbeWorkflow)
	if err != nil {
		return "", err
	}
	var r workflows.ProbeResult
	if err := run.Get(ctx, &r); err != nil {
		return "", fmt.Errorf("the Probe workflow: %w", err)
	}
	return r.KubernetesVersion, nil
}

// outliveNothing makes sure this process stops what it started however it is asked to end.
// Its parent's death (make killed with SIGKILL) reaches it as SIGTERM. A write to a pipe whose
// reader is gone (`make run | tee run.log`, Ctrl-C kills tee first) fails instead of killing
// it, which would leave the worker's indiservers behind: they outlive a killed worker.
func outliveNothing() {
	syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

func portFree(port int) error {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("port %d is in use (another `make run`?); stop it or pass -temporal-port/-ui-port", port)
		}
		return err
	}
	return l.Close()
}
