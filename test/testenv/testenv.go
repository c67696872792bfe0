// Package testenv gives integration tests one real stack per test package (see
// internal/localstack): a package's TestMain calls Run, its tests use the clients on Env. A stack
// that cannot start fails the package with the end of the failing process's log; no test is
// skipped for a missing server, because a skipped integration test proves nothing.
//
// Temporal is the dev server, unless LIKEN_TEMPORAL=postgres: then it is Temporal's own server
// on PostgreSQL, configured by deploy/temporal/postgres, and a package runs only the tests its
// TestMain names in AlsoOnPostgres. `make test` runs the end-to-end packages both ways, so a
// change that works only on the dev server's SQLite fails.
package testenv

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/build/images"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/internal/localstack"
)

// Options chooses the parts a test package needs.
type Options struct {
	// Kube starts the control plane and a fake node.
	Kube bool
	// Node starts the control plane with a real node in place of the fake one (it needs
	// root, and one runs on a machine at a time), builds every image it runs
	// (build/images) with the runner's image tagged NodeImageTag, and pushes them to the
	// stack's registry, from which the node pulls them.
	Node bool
	// CRDs applies deploy/crds and waits until every CRD is established (implies Kube).
	CRDs bool
	// Temporal starts a Temporal dev server (in memory, no UI).
	Temporal bool
	// TemporalDB keeps Temporal's state in a SQLite file, for tests that restart it.
	TemporalDB bool
	// SearchAttributes are registered on the Temporal server (name to type); pass
	// contract.SearchAttributes (testenv cannot import workflows: its tests use testenv).
	SearchAttributes map[string]string
	// AlsoOnPostgres are the tests that run again on Temporal's server on PostgreSQL: with
	// LIKEN_TEMPORAL=postgres only these run (all, when none is named; -run chooses others).
	AlsoOnPostgres []func(*testing.T)
}

// temporalBackend is the environment variable that chooses the Temporal of the stacks.
const temporalBackend = "LIKEN_TEMPORAL"

// Env is a running stack and clients for it.
type Env struct {
	Root  string // the repository root
	Stack *localstack.Stack
	// Dir is the stack's folder: what a test builds for the whole package goes there, and
	// goes with it when the tests pass.
	Dir string

	Kubeconfig string       // admin kubeconfig path
	Config     *rest.Config // admin
	Kube       kubernetes.Interface
	Dynamic    dynamic.Interface

	TemporalAddress string
	// Postgres says Temporal is its own server on PostgreSQL (LIKEN_TEMPORAL=postgres), secured
	// as a site secures its own: mTLS and API keys. The stack's process "postgres" is the
	// database.
	Postgres bool
	// NodeBuild is the build the real node's images were made of (Options.Node): the version
	// their programs say, which names the INDI server image the node's runner runs.
	NodeBuild string
}

// Run starts the stack, runs the package's tests, stops the stack and exits. The stack's logs
// are kept (and their folder printed) when a test fails.
func Run(m *testing.M, opts Options, env **Env) {
	if filepath.Base(os.Args[0]) == guard.Driver {
		// A dev-mode site's indiserver runs this program as its site guard (LocalINDI.Guard);
		// a test's own server keeps the guard's state beside its link.
		if os.Getenv(guard.StateEnv) == "" {
			os.Setenv(guard.StateEnv, filepath.Join(filepath.Dir(os.Args[0]), "site-guard.state"))
		}
		if err := guard.Serve(context.Background()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(run(m, opts, env))
}

func run(m *testing.M, opts Options, env **Env) int {
	localstack.ExportLoopback() // the dev mode's indiservers, in this process and the programs it starts
	none, err := chooseTests(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	if none {
		return 0
	}
	e, dir, err := start(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: the local stack did not start: %v\n(logs in %s)\n", err, dir)
		return 1
	}
	*env = e
	// As a cluster's kubelet would, the stack's processes are started again when they exit
	// unasked: the scheduler, for one, exits when its cache is corrupted (seen after a test
	// restarted the API server), and a cluster without it schedules nothing.
	ctx, cancel := context.WithCancel(context.Background())
	supervised := make(chan error, 1)
	go func() { supervised <- e.Stack.Supervise(ctx) }()
	code := m.Run()
	cancel()
	if err := <-supervised; err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
	}
	e.Stack.Stop()
	if code == 0 {
		os.RemoveAll(dir)
	} else {
		fmt.Fprintf(os.Stderr, "testenv: the stack's logs are in %s\n", dir)
	}
	return code
}

func start(opts Options) (*Env, string, error) {
	wd, _ := os.Getwd()
	root, err := localstack.Root(wd)
	if err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp("", "liken-stack-")
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	so := localstack.Options{
		Dir:   dir,
		Cache: localstack.Cache(),
		Kube:  opts.Kube || opts.CRDs || opts.Node,
		Node:  opts.Node,
		Log:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	postgres := os.Getenv(temporalBackend) == "postgres"
	if opts.Temporal || opts.TemporalDB {
		so.Temporal.Enabled = true
		so.Temporal.SearchAttributes = opts.SearchAttributes
		if postgres {
			so.Temporal.Postgres = filepath.Join(root, "deploy", "temporal", "postgres")
			so.Temporal.TLS, so.Temporal.APIKeys = true, true
		} else if opts.TemporalDB {
			so.Temporal.DBFile = filepath.Join(dir, "temporal.db")
		}
	}
	built, build := make(chan builtImages, 1), ""
	if opts.Node {
		// The images build while the stack starts, of the checkout as it is now.
		build = images.VersionOf(root)
		go func() {
			imgs, err := buildImages(root, so.Cache, dir, build)
			built <- builtImages{imgs, err}
		}()
	}
	s, err := localstack.Start(ctx, so)
	if err != nil {
		return nil, dir, err
	}
	if opts.Node {
		if err := pushImages(s, built); err != nil {
			s.Stop()
			return nil, dir, err
		}
	}
	e := &Env{Root: root, Stack: s, Dir: dir, Kubeconfig: s.Kubeconfig, TemporalAddress: s.TemporalAddress, Postgres: postgres, NodeBuild: build}
	if so.Kube {
		if err := e.connect(); err != nil {
			s.Stop()
			return nil, dir, err
		}
	}
	if opts.CRDs {
		if err := e.ApplyCRDs(ctx); err != nil {
			s.Stop()
			return nil, dir, err
		}
	}
	return e, dir, nil
}

func (e *Env) connect() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", e.Kubeconfig)
	if err != nil {
		return err
	}
	// Tests create many objects quickly; client-go's default 5 QPS would make them slow.
	cfg.QPS, cfg.Burst = 200, 400
	e.Config = cfg
	if e.Kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	e.Dynamic, err = dynamic.NewForConfig(cfg)
	return err
}

// Kubectl runs the project's kubectl against the stack and returns its combined output.
func (e *Env) Kubectl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, e.KubectlPath(), append([]string{"--kubeconfig=" + e.Kubeconfig}, args...)...)
	cmd.Dir = e.Root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// KubectlPath is the kubectl hack/tools.sh built.
func (e *Env) KubectlPath() string {
	return filepath.Join(localstack.Cache(), "kube-"+localstack.KubeVersion, "kubectl")
}

// ApplyCRDs applies deploy/crds and waits until the API server serves every kind.
func (e *Env) ApplyCRDs(ctx context.Context) error {
	if _, err := e.Kubectl(ctx, "apply", "--server-side", "-k", filepath.Join(e.Root, "deploy", "crds")); err != nil {
		return err
	}
	_, err := e.Kubectl(ctx, "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
	return err
}

// Build compiles one of the project's commands (e.g. "./cmd/worker") into a temporary folder
// and returns the binary's path, so a test runs the program exactly as users do.
func (e *Env) Build(t testing.TB, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = e.Root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// EnsureNamespace creates a namespace unless it exists (tests of one package share it).
func (e *Env) EnsureNamespace(t testing.TB, name string) {
	t.Helper()
	_, err := e.Kube.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}
