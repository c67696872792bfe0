// A release as `make images` publishes it, pushed to the test world's registry: every
// project image is an index of linux/amd64 and linux/arm64, labelled with its build; the
// arm64 INDI server is Debian's arm64 program with its loader; and the arm64 runner is a
// program of that CPU that runs (under qemu-user) and says its version.
package images_test

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/build/images"
	"liken.sh/runner/kube"
	"liken.sh/runner/test/stack"
)

func TestAReleaseIsAnIndexOfAmd64AndArm64AndItsArm64RunnerRuns(t *testing.T) {
	wd, _ := os.Getwd()
	root, err := stack.Root(wd)
	require.NoError(t, err)
	cache := stack.Cache(root)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	s, err := stack.Start(ctx, stack.Options{Dir: dir, Cache: cache, Registry: true})
	require.NoError(t, err)
	defer s.Stop()

	started := time.Now()
	b := images.Builder{Root: root, Cache: cache, Work: filepath.Join(dir, "programs"), Version: "v0.0.0-test"}
	imgs, err := b.Project(ctx, "v0.0.0-test", []string{"amd64", "arm64"})
	require.NoError(t, err)
	refs, err := images.Push(ctx, imgs, images.Into(s.Registry+"/liken"))
	require.NoError(t, err)
	t.Logf("built and pushed %d images for two platforms in %s", len(refs), time.Since(started).Round(time.Millisecond))

	var names []string
	for _, ref := range refs {
		names = append(names, ref.Context().RepositoryStr()+":"+ref.Identifier())
		idx, err := remote.Index(ref, remote.WithContext(ctx))
		require.NoError(t, err, ref.String())
		m, err := idx.IndexManifest()
		require.NoError(t, err)
		var platforms []string
		for _, d := range m.Manifests {
			platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture)
			img, err := idx.Image(d.Digest)
			require.NoError(t, err)
			cfg, err := img.ConfigFile()
			require.NoError(t, err)
			assert.Equal(t, "v0.0.0-test", cfg.Config.Labels["org.opencontainers.image.version"], ref.String())
			assert.Equal(t, images.Source, cfg.Config.Labels["org.opencontainers.image.source"], ref.String())
			assert.Len(t, cfg.Config.Labels["org.opencontainers.image.revision"], 40, ref.String())
		}
		assert.ElementsMatch(t, []string{"linux/amd64", "linux/arm64"}, platforms, ref.String())
	}
	assert.ElementsMatch(t, []string{"liken/people-operator:v0.0.0-test", "liken/indi:" + kube.INDIImageTag, "liken/indi-simulators:" + kube.INDIImageTag}, names)

	// The arm64 runner, read back from the registry.
	runner, err := name.ParseReference(s.Registry + "/liken/people-operator:v0.0.0-test")
	require.NoError(t, err)
	img, err := remote.Image(runner, remote.WithContext(ctx), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: "arm64"}))
	require.NoError(t, err)
	worker := filepath.Join(dir, "worker-arm64")
	require.NoError(t, os.WriteFile(worker, fileOf(t, img, "usr/local/bin/worker"), 0o755))
	f, err := elf.Open(worker)
	require.NoError(t, err)
	assert.Equal(t, elf.EM_AARCH64, f.Machine)
	f.Close()

	// The arm64 INDI server: Debian's arm64 indiserver, and the loader it names beside it.
	indi, err := name.ParseReference(s.Registry + "/liken/indi:" + kube.INDIImageTag)
	require.NoError(t, err)
	img, err = remote.Image(indi, remote.WithContext(ctx), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: "arm64"}))
	require.NoError(t, err)
	server, err := elf.NewFile(bytes.NewReader(fileOf(t, img, "usr/bin/indiserver")))
	require.NoError(t, err)
	assert.Equal(t, elf.EM_AARCH64, server.Machine)
	assert.NotEmpty(t, fileOf(t, img, "lib/ld-linux-aarch64.so.1"))

	qemu, err := exec.LookPath("qemu-aarch64-static")
	require.NoError(t, err, "run hack/tools.sh: it installs Debian's qemu-user-static")
	out, err := exec.CommandContext(ctx, qemu, worker, "--version").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "v0.0.0-test")
	assert.Contains(t, string(out), "linux/arm64")
}

// fileOf reads one file of an image's layers.
func fileOf(t *testing.T, img v1.Image, path string) []byte {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		require.NoError(t, err, "%s is not in the image", path)
		if h.Name == path {
			var b bytes.Buffer
			_, err := io.Copy(&b, tr)
			require.NoError(t, err)
			return b.Bytes()
		}
	}
}
