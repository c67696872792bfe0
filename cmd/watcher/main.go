// Command watcher turns changes in the cluster into Temporal workflow signals. Only the copy
// that holds the Lease acts; the others wait to take over. It writes nothing to Kubernetes
// but its Lease, and, on the people side, removes the worker Deployments of drained builds
// (internal/rollout). --side picks what it watches: people (Persons and baker pods, Lease
// people-operator), observatory (Reservations, Telescopes and Observatories, Lease
// observatory-operator), or all: both in one process, each side electing its own leader, as
// `make run` does.
//
// Exit status: 0 after a stop that released the Lease (or a copy that never led); 1 when the
// signals in hand outlived the 5 s grace (the Lease was left to expire), when the Lease could
// not be renewed, or on any other error, so the kubelet starts a fresh copy.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/klog/v2"

	"liken.sh/runner/internal/app"
	"liken.sh/runner/internal/leader"
	"liken.sh/runner/internal/metrics"
	"liken.sh/runner/internal/rollout"
	"liken.sh/runner/internal/version"
	"liken.sh/runner/internal/watch"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "watcher:", err)
		os.Exit(1)
	}
}

// flags are the watcher's own, beside the shared ones in internal/app.
type flags struct {
	side                 string
	leaseName            string
	observatoryLeaseName string
	leaseNamespace       string
	identity             string
	workers              int
	resync               time.Duration
}

func (f *flags) register(fs *flag.FlagSet) error {
	workers, err := strconv.Atoi(getenv("LIKEN_SIGNAL_WORKERS", strconv.Itoa(watch.DefaultWorkers)))
	if err != nil {
		return fmt.Errorf("LIKEN_SIGNAL_WORKERS: %w", err)
	}
	resync, err := time.ParseDuration(getenv("LIKEN_RESYNC", "1h"))
	if err != nil {
		return fmt.Errorf("LIKEN_RESYNC: %w", err)
	}
	fs.StringVar(&f.side, "side", getenv("LIKEN_WATCHER_SIDE", sidePeople),
		"what to watch: people, observatory, or all (both, each with its own Lease) (env LIKEN_WATCHER_SIDE)")
	fs.StringVar(&f.leaseName, "lease-name", getenv("LIKEN_LEASE_NAME", "people-operator"),
		"the Lease the people side's copies compete for (env LIKEN_LEASE_NAME)")
	fs.StringVar(&f.observatoryLeaseName, "observatory-lease-name", getenv("LIKEN_OBSERVATORY_LEASE_NAME", "observatory-operator"),
		"the Lease the observatory side's copies compete for (env LIKEN_OBSERVATORY_LEASE_NAME)")
	// The Lease lives beside the Deployment: liken-system unless the base was moved.
	fs.StringVar(&f.leaseNamespace, "lease-namespace", getenv("LIKEN_LEASE_NAMESPACE", getenv("POD_NAMESPACE", "liken-system")),
		"namespace of the Lease (env LIKEN_LEASE_NAMESPACE, else POD_NAMESPACE, else liken-system)")
	fs.StringVar(&f.identity, "identity", leader.Identity(),
		"this copy's name in the Lease and in Temporal (default POD_NAME, else hostname_pid)")
	fs.IntVar(&f.workers, "signal-workers", workers, "signals in flight at once (env LIKEN_SIGNAL_WORKERS)")
	fs.DurationVar(&f.resync, "resync", resync,
		"re-signal every Person and Reservation this often, the safety net under the events; 0 turns it off (env LIKEN_RESYNC)")
	return nil
}

// The values of --side.
const (
	sidePeople      = "people"
	sideObservatory = "observatory"
	sideAll         = "all"
)

// sides says which sides --side runs.
func (f *flags) sides() (people, observatory bool, err error) {
	switch f.side {
	case sidePeople:
		return true, false, nil
	case sideObservatory:
		return false, true, nil
	case sideAll:
		return true, true, nil
	}
	return false, false, fmt.Errorf("--side %q: use people, observatory or all", f.side)
}

func getenv(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func run(args []string) error {
	var cfg app.Config
	var own flags
	fs := flag.NewFlagSet("watcher", flag.ContinueOnError)
	cfg.Flags(fs)
	if err := own.register(fs); err != nil {
		return err
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.PrintVersion {
		fmt.Println(version.Line("liken-watcher"))
		return nil
	}
	runPeople, runObservatory, err := own.sides()
	if err != nil {
		return err
	}
	log, err := cfg.Logger("watcher")
	if err != nil {
		return err
	}
	log = log.With("identity", own.identity)
	log.Info("starting", "version", version.Get().String(), "side", own.side,
		"temporal", cfg.TemporalAddress, "namespace", cfg.TemporalNamespace, "taskQueue", cfg.TaskQueue)
	// client-go's leader election and informers log through klog; keep one log format.
	klog.SetSlogLogger(log.With("from", "client-go"))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	reg := metrics.New()
	reg.Kubernetes()
	kube, dyn, err := cfg.Kubernetes()
	if err != nil {
		return err
	}
	md, err := metadataClient(cfg)
	if err != nil {
		return err
	}
	// The client's identity is the Lease holder's: each signal in a workflow's history names
	// the copy that sent it.
	tc, err := cfg.Temporal(own.identity, log, reg.Temporal())
	if err != nil {
		return err
	}
	defer tc.Close()
	if err := serveHealth(ctx, cfg, reg, tc, kube, log); err != nil {
		return err
	}

	var sides []*side
	if runPeople {
		p := watch.NewPeople(watch.PeopleConfig{
			Dynamic: dyn, Metadata: md, Kube: kube, Temporal: tc, TaskQueue: cfg.TaskQueue,
			Workers: own.workers, Resync: own.resync, Log: log.With("side", sidePeople),
		})
		// The people side owns the worker Deployment, so its leader also rolls the worker's
		// builds (internal/rollout).
		builds := rollout.Builds{Temporal: tc, Kube: kube, Namespace: own.leaseNamespace, Deployment: cfg.TaskQueue,
			Build: cfg.BuildID, Every: 10 * time.Second, Log: log.With("side", sidePeople)}
		run := func(ctx context.Context) error {
			go builds.Run(ctx)
			return p.Run(ctx)
		}
		sides = append(sides, &side{name: sidePeople, lease: own.leaseName, stats: &p.Stats, run: run})
	}
	if runObservatory {
		o := watch.NewObservatory(watch.ObservatoryConfig{
			Dynamic: dyn, Temporal: tc, TaskQueue: cfg.TaskQueue,
			Workers: own.workers, Resync: own.resync, Log: log.With("side", sideObservatory),
		})
		sides = append(sides, &side{name: sideObservatory, lease: own.observatoryLeaseName, stats: &o.Stats, run: o.Run})
	}
	registerSides(reg, sides)
	return runSides(ctx, sides, func(s *side) leader.Config {
		return leader.Config{
			Client: kube, Namespace: own.leaseNamespace, Name: s.lease, Identity: own.identity, Log: log.With("side", s.name),
			OnLeading: s.leading.Store,
		}
	})
}

// metadataClient reads objects' metadata only: the people side watches Persons with it.
func metadataClient(cfg app.Config) (metadata.Interface, error) {
	rc, err := cfg.RESTConfig()
	if err != nil {
		return nil, err
	}
	return metadata.NewForConfig(rc)
}

// serveHealth serves /healthz, /readyz (Temporal and the API server answer), /metrics and, with
// --pprof, Go's profiles.
func serveHealth(ctx context.Context, cfg app.Config, reg *metrics.Registry, tc client.Client, kube kubernetes.Interface, log *slog.Logger) error {
	health := app.Health{Metrics: reg.Handler(), Pprof: cfg.Pprof}
	health.Check("temporal", cfg.TemporalReady(tc))
	health.Check("kubernetes", func(ctx context.Context) error {
		_, err := kube.Discovery().ServerVersion()
		return err
	})
	_, err := health.Serve(ctx, cfg.HealthAddress, log)
	return err
}

// runSides runs each side under its own Lease (leaseOf) until all have stopped. With
// --side=all the first to stop (an error, or a lost Lease) stops the other, so the process
// exits and the kubelet starts a fresh one.
func runSides(ctx context.Context, sides []*side, leaseOf func(*side) leader.Config) error {
	ctx, stopAll := context.WithCancelCause(ctx)
	defer stopAll(nil)
	errs := make([]error, len(sides))
	var wg sync.WaitGroup
	for i, s := range sides {
		wg.Go(func() {
			lc := leaseOf(s)
			err := leader.Run(ctx, lc, s.run)
			lc.Log.Info("stopped", "signalled", s.stats.Signalled.Load(), "failed", s.stats.Failed.Load(), "err", err)
			errs[i] = err
			// A side that stops on its own stops the process; a stop we were asked for
			// (SIGTERM) is already under way.
			stopAll(leader.ErrStopping)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// side is one half of the watcher with its Lease and counters.
type side struct {
	name, lease string
	stats       *watch.Stats
	leading     atomic.Bool
	run         func(context.Context) error
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// registerSides publishes each side's counters on /metrics, labelled by side.
func registerSides(reg *metrics.Registry, sides []*side) {
	for _, s := range sides {
		labels := prometheus.Labels{"side": s.name}
		gauge := func(name, help string, f func() float64) prometheus.Collector {
			return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "liken_watcher_" + name, Help: help, ConstLabels: labels}, f)
		}
		counter := func(name, help string, f func() float64) prometheus.Collector {
			return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "liken_watcher_" + name, Help: help, ConstLabels: labels}, f)
		}
		reg.MustRegister(
			gauge("leading", "1 while this copy holds the side's Lease.", func() float64 { return boolFloat(s.leading.Load()) }),
			counter("signals_total", "Signals Temporal accepted.", func() float64 { return float64(s.stats.Signalled.Load()) }),
			counter("signal_failures_total", "Signal attempts Temporal did not accept (each is tried again).", func() float64 { return float64(s.stats.Failed.Load()) }),
			counter("ignored_updates_total", "Updates that changed nothing a workflow acts on (status writes).", func() float64 { return float64(s.stats.Ignored.Load()) }),
			gauge("signals_in_flight", "Signals being sent now.", func() float64 { return float64(s.stats.InFlight.Load()) }),
		)
	}
}
