// Command worker runs the workflows and activities on a Temporal task queue. Run as many
// replicas as you like: Temporal hands each task to one of them, so no leader is needed.
//
// The same binary bakes pictures in baker pods: `worker bake <file> <#rrggbb>` reads one
// file, prints one JSON line and exits, so the operator's image is the only image it runs.
// In dev mode, the local indiserver of each site runs it as the site guard (indi/guard),
// through a link named after the guard's driver.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"go.temporal.io/sdk/worker"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/activities/people"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/internal/app"
	"liken.sh/runner/internal/metrics"
	"liken.sh/runner/internal/rollout"
	"liken.sh/runner/internal/version"
	kubepkg "liken.sh/runner/kube"
	"liken.sh/runner/pictures"
	"liken.sh/runner/pictures/avatar"
	"liken.sh/runner/workflows"
)

func main() {
	if filepath.Base(os.Args[0]) == guard.Driver {
		serveGuard()
	}
	if len(os.Args) > 1 && os.Args[1] == "bake" {
		os.Exit(pictures.BakeMain(os.Args[2:], os.Stdout))
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

// serveGuard runs the site guard for indiserver until the server ends it.
func serveGuard() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := guard.Serve(ctx); err != nil {
		fmt.Fprintln(os.Stderr, guard.Driver+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// options are the worker's flags.
type options struct {
	cfg    app.Config
	people *people.Config
	// devINDI runs each INDI server as a local indiserver, recorded in devINDIDir (dev mode).
	devINDI    bool
	devINDIDir string
	// cacheSize is how many workflows the worker keeps in memory between their tasks.
	cacheSize int
	// imageRegistry is where the INDI pods pull the runner's images from.
	imageRegistry string
}

// defaultCacheSize is the worker's workflow cache. The SDK's default of 10,000 keeps every
// Person's workflow once it has run, whatever it does next: at 10,000 Persons that held
// the worker well over its 200 MiB goal, for workflows that sleep six hours between tasks.
// The workflows that work often (the people shards, the reservations of a night, their
// telescopes, sites and inventories) are far fewer and stay in the cache, which evicts the
// least recently used; one evicted replays its history (a Person's is short)
// at its next task.
const defaultCacheSize = 1000

func run(args []string) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	cfg := o.cfg
	if cfg.PrintVersion {
		fmt.Println(version.Line(program))
		return nil
	}
	log, err := cfg.Logger("worker")
	if err != nil {
		return err
	}
	log.Info("starting", "version", version.Get().String())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	reg := metrics.New()
	reg.Kubernetes()
	registerINDITraffic(reg)
	kube, dyn, md, err := kubeClients(&cfg)
	if err != nil {
		return err
	}
	if err := findBakerImage(ctx, kube, o.people, log); err != nil {
		return err
	}
	tc, err := cfg.Temporal(identity(), log, reg.Temporal())
	if err != nil {
		return err
	}
	defer tc.Close()

	worker.SetStickyWorkflowCacheSize(o.cacheSize)
	w := worker.New(tc, cfg.TaskQueue, worker.Options{
		// Under a burst the default 5 s sticky timeout sends workflow tasks back to the
		// shared queue and causes minute-long tails (measured in the project's notes).
		StickyScheduleToStartTimeout: time.Minute,
		// A step that is cancelled (its reservation ended) hears of it at its next heartbeat
		// that reaches the server; the SDK's default throttle delays that by up to 24 s.
		MaxHeartbeatThrottleInterval: 2 * time.Second,
		// Each build is a version of the deployment named after the task queue; a Reservation
		// stays on the build that started it (internal/rollout).
		DeploymentOptions: worker.DeploymentOptions{UseVersioning: true, Version: rollout.Version(cfg.TaskQueue, cfg.BuildID)},
	})
	acts := workflows.ActivitiesOn(activities.Clients{Kube: kube, Dynamic: dyn, Temporal: tc,
		Instance: os.Getenv("POD_NAME"), Now: time.Now})
	acts.People.People = *o.people
	acts.Observatory.Empty = observatory.WatchKinds(ctx, md, observatory.ServerKinds())
	acts.Observatory.ImageRegistry = o.imageRegistry
	if o.devINDI {
		local := localINDI(ctx, acts.Observatory, kube, o.devINDIDir, log)
		defer local.Close()
	}
	workflows.Register(w, acts)

	health := app.Health{Metrics: reg.Handler(), Pprof: cfg.Pprof}
	temporalReady := cfg.TemporalReady(tc)
	health.Check("temporal", temporalReady)
	var polling atomic.Bool
	health.Check("polling", pollingCheck(&polling))
	if _, err := health.Serve(ctx, cfg.HealthAddress, log); err != nil {
		return err
	}
	go warm(kube, log)
	if err := app.WaitForTemporal(ctx, temporalReady, cfg.TemporalAddress, log); err != nil {
		return nil // stopped while waiting
	}
	if err := w.Start(); err != nil {
		return fmt.Errorf("start polling task queue %s at %s: %w", cfg.TaskQueue, cfg.TemporalAddress, err)
	}
	polling.Store(true)
	log.Info("polling", "taskQueue", cfg.TaskQueue, "build", cfg.BuildID, "temporal", cfg.TemporalAddress, "namespace", cfg.TemporalNamespace)
	go rollout.ClaimIfNone(ctx, tc, rollout.Version(cfg.TaskQueue, cfg.BuildID), log)
	<-ctx.Done()
	log.Info("stopping: finishing the tasks in hand")
	w.Stop()
	log.Info("stopped")
	return nil
}

// kubeClients are the worker's three views of the API server: typed, dynamic (the
// observatory's kinds) and metadata only (which kinds have objects at all).
func kubeClients(cfg *app.Config) (*kubernetes.Clientset, *dynamic.DynamicClient, metadata.Interface, error) {
	rc, err := cfg.RESTConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, nil, nil, err
	}
	md, err := metadata.NewForConfig(rc)
	return kube, dyn, md, err
}

// program is the worker's name in --version and in its Temporal identity.
const program = "liken-worker"

// identity names this worker in workflow histories: the SDK's own pid@host@ first (make
// bench and the end-to-end tests find a worker's tasks by its pid), then the build, so a
// history shows which version ran each task.
func identity() string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	return fmt.Sprintf("%d@%s@%s/%s", os.Getpid(), host, program, version.Get().Version)
}

// pollingCheck is ready once polling is set. Ready means taking tasks: until its pollers
// run, a worker that answers /readyz would be counted on (by a rollout, by the bench) while
// every task waits for it.
func pollingCheck(polling *atomic.Bool) func(context.Context) error {
	return func(context.Context) error {
		if !polling.Load() {
			return errors.New("the worker has not started polling yet")
		}
		return nil
	}
}

// warm makes, at the start, what the first Person's pass would otherwise wait for: the
// connection to the API server (its TLS handshake; every client of the worker shares it) and
// the initials' font, parsed once. Neither is needed: a failure here is the first pass's to
// meet.
func warm(kube kubernetes.Interface, log *slog.Logger) {
	pictures.DrawInitials("A", avatar.Colour("warm"))
	if _, err := kube.Discovery().ServerVersion(); err != nil {
		log.Info("the API server did not answer yet", "err", err)
	}
}

// parseFlags reads the worker's flags; each defaults to its environment variable.
func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	o.cfg.Flags(fs)
	var err error
	if o.people, err = peopleFlags(fs); err != nil {
		return o, err
	}
	if o.devINDI, err = envBool("LIKEN_DEV_LOCAL_INDI"); err != nil {
		return o, err
	}
	fs.BoolVar(&o.devINDI, "dev-local-indi", o.devINDI,
		"dev mode only: run each INDI server as a local indiserver with its simulator drivers, instead of reaching its pod's Service (env LIKEN_DEV_LOCAL_INDI)")
	o.cacheSize = defaultCacheSize
	if v, ok := os.LookupEnv("LIKEN_WORKFLOW_CACHE_SIZE"); ok {
		if o.cacheSize, err = strconv.Atoi(v); err != nil {
			return o, fmt.Errorf("LIKEN_WORKFLOW_CACHE_SIZE %q: %w", v, err)
		}
	}
	fs.IntVar(&o.cacheSize, "workflow-cache-size", o.cacheSize,
		"workflows kept in memory between their tasks; the least recently used one goes first and replays its history at its next task (env LIKEN_WORKFLOW_CACHE_SIZE)")
	fs.StringVar(&o.imageRegistry, "image-registry", envOr("LIKEN_IMAGE_REGISTRY", strings.TrimSuffix(kubepkg.ImageRegistry, "/")),
		"where the INDI server, device and guider pods pull the runner's images (indi, indi-simulators, ...), such as the REGISTRY of make images (env LIKEN_IMAGE_REGISTRY)")
	o.devINDIDir = os.Getenv("LIKEN_DEV_LOCAL_INDI_DIR")
	fs.StringVar(&o.devINDIDir, "dev-local-indi-dir", o.devINDIDir,
		"dev mode only: where the local indiservers are recorded, so that they outlive a worker that is killed and the next worker adopts them, "+
			"as pods would be (SIGTERM stops them all); default liken-indi-<task queue> in the temporary folder (env LIKEN_DEV_LOCAL_INDI_DIR)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.cacheSize < 1 {
		return o, fmt.Errorf("--workflow-cache-size %d: give at least 1", o.cacheSize)
	}
	if o.devINDIDir == "" {
		o.devINDIDir = filepath.Join(os.TempDir(), "liken-indi-"+fileSafe(o.cfg.TaskQueue))
	}
	return o, nil
}

// localINDI makes the observatory's INDI servers local indiservers recorded in dir (dev
// mode); the caller closes it when the worker stops.
func localINDI(ctx context.Context, obs *observatory.Activities, kube kubernetes.Interface, dir string, log *slog.Logger) *observatory.LocalINDI {
	local := &observatory.LocalINDI{Dir: dir}
	obs.INDI = local
	log.Warn("dev mode: INDI servers run as local indiservers on this machine (--dev-local-indi)", "dir", dir)
	// A stand-in stops with its pod, as a pod's containers stop with it. In the
	// background: an API server that is away does not hold the worker's start.
	go func() {
		if err := local.FollowPods(ctx, kube, log); err != nil && ctx.Err() == nil {
			log.Error("the local indiservers do not follow their pods (dev mode)", "err", err)
		}
	}()
	return local
}

// peopleFlags registers the people side's flags; each defaults to its environment variable.
func peopleFlags(fs *flag.FlagSet) (*people.Config, error) {
	c := &people.Config{}
	deadline := people.DefaultBakeDeadline
	if v, ok := os.LookupEnv("LIKEN_BAKE_DEADLINE"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("LIKEN_BAKE_DEADLINE %q: %w", v, err)
		}
		deadline = d
	}
	fs.DurationVar(&c.BakeDeadline, "bake-deadline", deadline,
		"how long a baker pod may run, from its creation (env LIKEN_BAKE_DEADLINE)")
	fs.StringVar(&c.BakerImage, "baker-image", os.Getenv("LIKEN_BAKER_IMAGE"),
		"image of the baker pods; empty means this worker's own, read from its pod (env LIKEN_BAKER_IMAGE)")
	fs.StringVar(&c.OperatorNamespace, "operator-namespace", envOr("LIKEN_OPERATOR_NAMESPACE", people.DefaultOperatorNamespace),
		"namespace of the baker pods of nfs:// pictures (env LIKEN_OPERATOR_NAMESPACE)")
	return c, nil
}

// envBool reads a boolean environment variable; unset is false.
func envBool(name string) (bool, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s %q: %w", name, v, err)
	}
	return b, nil
}

// fileSafe keeps the letters, digits, '.', '-' and '_' of s, for a file name.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// findBakerImage fills in the baker image from the worker's own pod when no flag names it, so
// that a kustomization's one images: entry pins both. Outside a pod there is none: baking then
// fails with a message saying so, and everything else works.
func findBakerImage(ctx context.Context, kube kubernetes.Interface, c *people.Config, log *slog.Logger) error {
	name, ns := os.Getenv("POD_NAME"), os.Getenv("POD_NAMESPACE")
	if c.BakerImage != "" {
		return nil
	}
	if name == "" || ns == "" {
		log.Warn("no --baker-image and no POD_NAME/POD_NAMESPACE: nfs:// and claim:// pictures will fail")
		return nil
	}
	pod, err := kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("read this worker's pod %s/%s for the baker image (or set --baker-image): %w", ns, name, err)
	}
	if c.BakerImage, err = kubepkg.OwnImage(pod); err != nil {
		return err
	}
	log.Info("baker pods run this worker's image", "image", c.BakerImage)
	return nil
}
