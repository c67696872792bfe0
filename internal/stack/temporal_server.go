// Temporal's own server on a PostgreSQL of the stack's own (postgres.go), run from the very
// configuration deploy/temporal/postgres ships. The stack renders the overlay with kubectl
// kustomize, merges its database's address into the ConfigMap temporal-postgres as a user
// does, and runs the overlay's containers as local processes with the environment the kubelet
// would give them: the init container's script creates the databases and the schema
// (temporal-sql-tool), the server reads the overlay's server-config.yaml, and the setup Job's
// script creates the namespace and the search attributes (the temporal CLI). The binaries are
// the releases the overlay's images carry, built by hack/tools.sh; a change to the overlay is
// what the tests run.
package stack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// TemporalServerVersion is the server release the CLI TemporalVersion embeds, which the
// overlay's images carry; hack/tools.sh and hack/temporalbins build the same.
const TemporalServerVersion = "v1.29.1"

// serverPorts are the environment variables of server-config.yaml that move its listeners.
var serverPorts = []string{
	"FRONTEND_GRPC_PORT", "FRONTEND_HTTP_PORT", "FRONTEND_MEMBERSHIP_PORT",
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
	connection, err := ov.configMapName(overlayConnection)
	if err != nil {
		return err
	}
	pg, err := s.startPostgres(ctx, ports[len(ports)-1], ov.configMaps[connection]["user"])
	if err != nil {
		return err
	}
	secrets, err := ov.connect(pg.Host, pg.Port, pg.Password)
	if err != nil {
		return err
	}
	fields := map[string]string{"status.podIP": "127.0.0.1"}

	// The init container: databases and schema.
	schemaEnv, err := containerEnv(ov.schema, ov.configMaps, secrets, fields)
	if err != nil {
		return err
	}
	argv := slices.Concat(ov.schema.Command, ov.schema.Args)
	if err := s.runOnce(ctx, "temporal-schema", nil, append(schemaEnv, pathWith(serverBin)), argv[0], argv[1:]...); err != nil {
		return err
	}

	// The server, with the overlay's configuration files where it reads them.
	configDir, err := mkdir(s.opts.Dir, "temporal-config")
	if err != nil {
		return err
	}
	for name, body := range ov.config {
		if err := os.WriteFile(filepath.Join(configDir, name), []byte(body), 0o600); err != nil {
			return err
		}
	}
	serverEnv, err := containerEnv(ov.server, ov.configMaps, secrets, fields)
	if err != nil {
		return err
	}
	serverEnv = append(serverEnv, "BIND_ON_IP=127.0.0.1")
	for i, name := range serverPorts {
		serverEnv = append(serverEnv, name+"="+strconv.Itoa(ports[i]))
	}
	argv = ov.mounted(slices.Concat(ov.server.Command, ov.server.Args), configDir)
	if filepath.Base(argv[0]) != filepath.Base(serverBin) {
		return fmt.Errorf("the overlay's server runs %s; the stack has %s", argv[0], serverBin)
	}
	s.TemporalAddress = fmt.Sprintf("127.0.0.1:%d", ports[0])
	if err := s.run(ctx, &proc{
		name: "temporal", path: serverBin, dir: s.opts.Dir, args: argv[1:], env: serverEnv,
		ready: func(ctx context.Context) error { return temporalHealthy(ctx, s.TemporalAddress) },
	}); err != nil {
		return err
	}

	// The setup Job: the namespace and the search attributes, those of this stack.
	setupEnv, err := containerEnv(ov.setup, ov.configMaps, secrets, fields)
	if err != nil {
		return err
	}
	setupEnv = append(setupEnv, "TEMPORAL_ADDRESS="+s.TemporalAddress, pathWith(cli))
	argv = slices.Concat(ov.setup.Command, nameTypes(t.SearchAttributes))
	return s.runOnce(ctx, "temporal-setup", nil, setupEnv, argv[0], argv[1:]...)
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

// pathWith is PATH with the folder of bin first, for the overlay's scripts.
func pathWith(bin string) string {
	return "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
}
