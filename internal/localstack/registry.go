// The test world's registry: the CNCF distribution registry (hack/registrybins) on
// 127.0.0.1, its storage in the stack's folder. The real node's containerd pulls every image
// from it, as a cluster pulls from ghcr.io, registry.k8s.io and Docker Hub: hosts.toml files
// send those names here over plain http, so the pods and deploy/ keep the names a user's
// cluster sees. The images are pushed with build/images's Mirror naming.
package localstack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"liken.sh/runner/build/images"
)

// RegistryVersion is the registry's release; hack/tools.sh builds the same.
const RegistryVersion = "v3.1.2"

// mirroredRegistries are the registries whose names the node's images carry (containerd
// calls Docker Hub docker.io).
var mirroredRegistries = []string{"ghcr.io", "registry.k8s.io", "docker.io"}

func (s *Stack) startRegistry(ctx context.Context) error {
	bin, err := s.bin("registry-"+RegistryVersion, "registry")
	if err != nil {
		return err
	}
	port, err := FreePort()
	if err != nil {
		return err
	}
	dir, err := mkdir(s.opts.Dir, "registry")
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if err := os.WriteFile(filepath.Join(dir, "config.yml"), []byte(registryConfig(filepath.Join(dir, "storage"), addr)), 0o644); err != nil {
		return err
	}
	if err := s.run(ctx, &proc{
		name: "registry", path: bin, dir: dir, args: []string{"serve", filepath.Join(dir, "config.yml")},
		// The registry would export traces to an OpenTelemetry collector by default.
		env:   []string{"OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none"},
		ready: httpOK("http://"+addr+"/v2/", ""),
	}); err != nil {
		return err
	}
	s.Registry = addr
	return nil
}

func registryConfig(storage, addr string) string {
	return fmt.Sprintf(`version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: %q}
  delete: {enabled: true}
http: {addr: %q}
`, storage, addr)
}

// registryHosts is containerd's hosts.toml for one mirrored registry: every pull and name
// resolution goes to the test world's registry, over http, and never to the real one.
func registryHosts(addr string) string {
	return fmt.Sprintf(`server = "http://%[1]s"

[host."http://%[1]s"]
  capabilities = ["pull", "resolve"]
`, addr)
}

// Push pushes images (build/images) to the test world's registry under the names the pods
// use.
func (s *Stack) Push(ctx context.Context, imgs []images.Image) error {
	_, err := images.Push(ctx, imgs, images.Mirror(s.Registry))
	return err
}
