// Package app holds what the watcher and the worker wire the same way: flags (each with an
// environment variable, so a Deployment can set it), the Kubernetes and Temporal clients,
// structured logs, and the /healthz and /readyz endpoints. The mains stay thin.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/internal/version"
)

// DefaultTaskQueue is the task queue the watcher starts workflows on and the worker polls.
const DefaultTaskQueue = "liken"

// Config is what both binaries are told on the command line or in the environment.
type Config struct {
	Kubeconfig        string
	KubeQPS           float64
	KubeBurst         int
	TemporalAddress   string
	TemporalNamespace string
	TemporalSecurity  TemporalSecurity
	TaskQueue         string
	// BuildID names this build in the task queue's Worker Deployment (internal/rollout).
	BuildID       string
	HealthAddress string
	LogLevel      string
	LogFormat     string
	// Pprof serves Go's profiles on the health address (see Health.Pprof).
	Pprof bool
	// PrintVersion asks the process to print its build (internal/version) and exit.
	PrintVersion bool
}

// Flags registers the shared flags on fs; each defaults to its environment variable.
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"),
		"kubeconfig file; empty means in-cluster (env KUBECONFIG)")
	// client-go's default of 5 requests per second would make a burst of Persons crawl: each
	// Person is three or four requests, and a burst of 500 is written in about 2.5 s (see
	// make bench). The API server's own priority and fairness still protects it.
	fs.Float64Var(&c.KubeQPS, "kube-qps", 500, "requests per second to the API server")
	fs.IntVar(&c.KubeBurst, "kube-burst", 1000, "burst of requests to the API server")
	fs.StringVar(&c.TemporalAddress, "temporal-address", env("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		"host:port of the Temporal frontend (env TEMPORAL_ADDRESS)")
	fs.StringVar(&c.TemporalNamespace, "temporal-namespace", env("TEMPORAL_NAMESPACE", "default"),
		"Temporal namespace (env TEMPORAL_NAMESPACE)")
	c.TemporalSecurity.flags(fs)
	fs.StringVar(&c.TaskQueue, "task-queue", env("LIKEN_TASK_QUEUE", DefaultTaskQueue),
		"Temporal task queue (env LIKEN_TASK_QUEUE); also the name of its Worker Deployment")
	fs.StringVar(&c.BuildID, "build-id", env("LIKEN_BUILD_ID", version.Get().Version),
		"this build's ID in the Worker Deployment: a reservation runs to its end on the build that started it (env LIKEN_BUILD_ID; default the version)")
	fs.StringVar(&c.HealthAddress, "health-address", env("LIKEN_HEALTH_ADDRESS", ":8081"),
		"address of /healthz and /readyz; empty turns them off (env LIKEN_HEALTH_ADDRESS)")
	fs.StringVar(&c.LogLevel, "log-level", env("LIKEN_LOG_LEVEL", "info"), "debug, info, warn or error (env LIKEN_LOG_LEVEL)")
	fs.StringVar(&c.LogFormat, "log-format", env("LIKEN_LOG_FORMAT", "json"), "json or text (env LIKEN_LOG_FORMAT)")
	// Off by default: a profile shows how the process works and costs CPU while it is taken,
	// so it is for a person looking at memory or time on purpose (make bench-scale does).
	pprofOn, _ := strconv.ParseBool(os.Getenv("LIKEN_PPROF"))
	fs.BoolVar(&c.Pprof, "pprof", pprofOn,
		"serve Go's profiles at /debug/pprof/ on the health address (env LIKEN_PPROF=true)")
	fs.BoolVar(&c.PrintVersion, "version", false, "print the build and exit")
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

// Logger builds the process's slog logger.
func (c *Config) Logger(component string) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", c.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch c.LogFormat {
	case "json":
		h = slog.NewJSONHandler(os.Stderr, opts)
	case "text":
		h = slog.NewTextHandler(os.Stderr, opts)
	default:
		return nil, fmt.Errorf("--log-format %q: use json or text", c.LogFormat)
	}
	return slog.New(h).With("component", component), nil
}

// RESTConfig reads the kubeconfig, or the in-cluster config when none is given.
func (c *Config) RESTConfig() (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if c.Kubeconfig == "" {
		if cfg, err = rest.InClusterConfig(); err != nil {
			return nil, fmt.Errorf("no --kubeconfig and not in a cluster: %w", err)
		}
	} else if cfg, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", c.Kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = float32(c.KubeQPS), c.KubeBurst
	return cfg, nil
}

// Kubernetes builds the typed and the dynamic clients over RESTConfig: the typed one for
// core objects and Leases, the dynamic one for the runner's own kinds.
func (c *Config) Kubernetes() (kubernetes.Interface, dynamic.Interface, error) {
	rc, err := c.RESTConfig()
	if err != nil {
		return nil, nil, err
	}
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, err
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, nil, err
	}
	return kube, dyn, nil
}

// Health serves /healthz (the process runs), /readyz (every check passes) and, when Metrics
// is set, /metrics: one port for the kubelet and for Prometheus.
type Health struct {
	Metrics http.Handler
	// Pprof adds Go's profiles under /debug/pprof/ (heap, goroutine, profile, ...), so the
	// memory and time of a running process can be read where it runs.
	Pprof bool

	mu     sync.Mutex
	checks map[string]func(context.Context) error
}

// Check adds a named readiness check.
func (h *Health) Check(name string, f func(context.Context) error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.checks == nil {
		h.checks = map[string]func(context.Context) error{}
	}
	h.checks[name] = f
}

// ServeHTTP answers /healthz, /readyz and /metrics.
func (h *Health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.Pprof && strings.HasPrefix(r.URL.Path, "/debug/pprof/") {
		servePprof(w, r)
		return
	}
	switch r.URL.Path {
	case "/metrics":
		if h.Metrics == nil {
			http.NotFound(w, r)
			return
		}
		h.Metrics.ServeHTTP(w, r)
	case "/healthz":
		fmt.Fprintln(w, "ok")
	case "/readyz":
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		h.mu.Lock()
		checks := h.checks
		h.mu.Unlock()
		var failed []string
		for name, f := range checks {
			if err := f(ctx); err != nil {
				failed = append(failed, name+": "+err.Error())
			}
		}
		if len(failed) > 0 {
			http.Error(w, strings.Join(failed, "\n"), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	default:
		http.NotFound(w, r)
	}
}

// servePprof answers /debug/pprof/ and its profiles, as net/http/pprof does on its default mux.
func servePprof(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimPrefix(r.URL.Path, "/debug/pprof/") {
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Index(w, r)
	}
}

// Serve runs the health endpoints until ctx ends. It returns the bound address at once (useful
// with port 0) and reports a failed listen as an error.
func (h *Health) Serve(ctx context.Context, addr string, log *slog.Logger) (string, error) {
	if addr == "" {
		return "", nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("health endpoints on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("health endpoints stopped", "err", err)
		}
	}()
	log.Info("health endpoints", "address", l.Addr().String())
	return l.Addr().String(), nil
}
