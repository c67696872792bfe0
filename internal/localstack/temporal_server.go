// Temporal's own server on a PostgreSQL of the stack's own (postgres.go), run from the very
// configuration deploy/temporal/postgres ships. The stack renders the overlay with kubectl
// kustomize, merges its database's address into the ConfigMap temporal-postgres as a user
// does, and runs the overlay's containers as local processes with the environment the kubelet
// would give them: the init container's script creates the databases and the schema
// (temporal-sql-tool), the server reads the overlay's server-config.yaml, and the setup Job's
// script creates the namespace and the search attributes (the temporal CLI). The binaries are
// the releases the overlay's images carry, built by hack/tools.sh; a change to the overlay is
// what the tests run.
package localstack

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// TemporalServerVersion is the server release the CLI TemporalVersion embeds, which the
// overlay's images carry; hack/tools.sh and hack/temporalbins build the same.
const TemporalServerVersion = "v1.29.1"

// serverPorts are the environment variables of server-config.yaml that move its listeners.
var serverPorts = []string{
	"FRONTEND_GRPC_PORT", "FRONTEND_HTTP_PORT", "FRONTEND_MEMBERSHIP_PORT",
	"INTERNAL_FRONTEND_GRPC_PORT", "INTERNAL_FRONTEND_HTTP_PORT", "INTERNAL_FRONTEND_MEMBERSHIP_PORT",
	"HISTORY_GRPC_PORT", "HISTORY_MEMBERSHIP_PORT",
	"MATCHING_GRPC_PORT", "MATCHING_MEMBERSHIP_PORT",
	"WORKER_GRPC_PORT", "WORKER_MEMBERSHIP_PORT",
}

func (s *Stack) startTemporalServer(ctx context.Context) error {
	t := s.opts.Temporal
	if t.UI {
		return errors.New("the Temporal Web UI comes with the dev server only; the server on PostgreSQL has none here")
	}
	serverBin, err := s.bin("temporal-server-"+TemporalServerVersion, "temporal-server")
	if err != nil {
		return err
	}
	cli, err := s.bin("temporal-"+TemporalVersion, "temporal")
	if err != nil {
		return err
	}
	ov, err := s.renderOverlay(ctx, t.Postgres)
	if err != nil {
		return err
	}
	ports, err := freePorts(len(serverPorts) + 1)
	if err != nil {
		return err
	}
	if t.Port != 0 {
		ports[0] = t.Port
	}
	role, err := ov.role()
	if err != nil {
		return err
	}
	pg, err := s.startPostgres(ctx, ports[len(ports)-1], role)
	if err != nil {
		return err
	}
	if err := ov.connect(pg.Host, pg.Port, pg.Password); err != nil {
		return err
	}
	if err := s.runScript(ctx, "temporal-schema", ov, ov.schema, ov.schema.Args, serverBin); err != nil {
		return err
	}
	var serverEnv, setupEnv []string
	if t.TLS {
		dir, err := mkdir(s.opts.Dir, "temporal-tls")
		if err != nil {
			return err
		}
		if serverEnv, s.TemporalSecurity, err = makeTemporalTLS(dir); err != nil {
			return err
		}
	}
	if t.APIKeys {
		if err := s.requireAPIKeys(ov); err != nil {
			return err
		}
	}
	if s.TemporalSecurity != nil {
		setupEnv = s.TemporalSecurity.Env()
	}
	if err := s.startServer(ctx, ov, serverBin, ports[:len(serverPorts)], serverEnv); err != nil {
		return err
	}
	// The Job's arguments are the search attributes to create: this stack's.
	return s.runScript(ctx, "temporal-setup", ov, ov.setup, nameTypes(t.SearchAttributes), cli,
		append(setupEnv, "TEMPORAL_ADDRESS="+s.TemporalAddress)...)
}

// runScript runs a container of the overlay (its command, then args) as a one-off program,
// with its environment, and the folder of bin first on PATH for the tools it calls.
func (s *Stack) runScript(ctx context.Context, name string, ov *overlay, c corev1.Container, args []string, bin string, extra ...string) error {
	env, err := ov.env(c)
	if err != nil {
		return err
	}
	env = append(append(env, extra...), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	argv := slices.Concat(c.Command, args)
	return s.runOnce(ctx, name, nil, env, argv[0], argv[1:]...)
}

// startServer runs the overlay's server container as the process "temporal", with the
// overlay's configuration files where it reads them, on ports (serverPorts, in order), with
// extra in its environment.
func (s *Stack) startServer(ctx context.Context, ov *overlay, bin string, ports []int, extra []string) error {
	configDir, err := mkdir(s.opts.Dir, "temporal-config")
	if err != nil {
		return err
	}
	for name, body := range ov.config {
		if err := os.WriteFile(filepath.Join(configDir, name), []byte(body), 0o600); err != nil {
			return err
		}
	}
	env, err := ov.env(ov.server)
	if err != nil {
		return err
	}
	env = append(append(env, extra...), "BIND_ON_IP=127.0.0.1")
	for i, name := range serverPorts {
		env = append(env, name+"="+strconv.Itoa(ports[i]))
	}
	argv := ov.mounted(slices.Concat(ov.server.Command, ov.server.Args), configDir)
	if filepath.Base(argv[0]) != filepath.Base(bin) {
		return fmt.Errorf("the overlay's server runs %s; the stack has %s", argv[0], bin)
	}
	s.TemporalAddress = fmt.Sprintf("127.0.0.1:%d", ports[0])
	var tlsCfg *tls.Config
	if s.TemporalSecurity != nil {
		if tlsCfg, err = s.TemporalSecurity.TLSConfig(); err != nil {
			return err
		}
	}
	return s.run(ctx, &proc{
		name: "temporal", path: bin, dir: s.opts.Dir, args: argv[1:], env: env,
		ready: func(ctx context.Context) error { return temporalHealthy(ctx, s.TemporalAddress, tlsCfg) },
	})
}

// renderOverlay renders deploy/temporal/postgres with the cache's kubectl, finds its parts and
// checks that its images carry the releases the stack runs.
func (s *Stack) renderOverlay(ctx context.Context, dir string) (*overlay, error) {
	objs, err := Kustomize(ctx, s.opts.Cache, dir)
	if err != nil {
		return nil, err
	}
	ov, err := parseOverlay(objs)
	if err == nil {
		err = ov.checkReleases(strings.TrimPrefix(TemporalServerVersion, "v"), strings.TrimPrefix(TemporalVersion, "v"))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return ov, nil
}

// Kustomize renders a kustomization with the kubectl of the cache and returns its objects.
func Kustomize(ctx context.Context, cache, dir string) ([]*unstructured.Unstructured, error) {
	kubectl := filepath.Join(cache, "kube-"+KubeVersion, "kubectl")
	out, err := exec.CommandContext(ctx, kubectl, "kustomize", dir).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("%w: %s", err, exit.Stderr)
		}
		return nil, fmt.Errorf("kubectl kustomize %s: %w", dir, err)
	}
	var objs []*unstructured.Unstructured
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("kubectl kustomize %s: %w", dir, err)
		}
		if len(u.Object) > 0 {
			objs = append(objs, u)
		}
	}
}
