// A release as `make images` publishes it, pushed to the test world's registry: every
// project image is an index of linux/amd64 and linux/arm64, labelled with its build; the
// arm64 INDI server is Debian's arm64 program with its loader; the arm64 runner is a
// program of that CPU that runs (under qemu-user) and says its version; and a driver of
// indi-open runs on each CPU from the image's own files, as does one of a package of one's own.
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
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/build/images"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/kube"
)

func TestAReleaseIsAnIndexOfAmd64AndArm64AndItsArm64RunnerRuns(t *testing.T) {
	wd, _ := os.Getwd()
	root, err := localstack.Root(wd)
	require.NoError(t, err)
	cache := localstack.Cache()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	s, err := localstack.Start(ctx, localstack.Options{Dir: dir, Cache: cache, Registry: true})
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
	// The server image holds the site guard: its tag names the build, so no build overwrites
	// another's.
	assert.ElementsMatch(t, []string{"liken/people-operator:v0.0.0-test", "liken/serial-devices:v0.0.0-test", "liken/indi:" + kube.INDIImageTag + "-v0.0.0-test",
		"liken/indi-simulators:" + kube.INDIImageTag, "liken/indi-open:" + kube.INDIImageTag}, names)

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
	indi, err := name.ParseReference(s.Registry + "/liken/indi:" + kube.INDIImageTag + "-v0.0.0-test")
	require.NoError(t, err)
	img, err = remote.Image(indi, remote.WithContext(ctx), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: "arm64"}))
	require.NoError(t, err)
	server, err := elf.NewFile(bytes.NewReader(fileOf(t, img, "usr/bin/indiserver")))
	require.NoError(t, err)
	assert.Equal(t, elf.EM_AARCH64, server.Machine)
	assert.NotEmpty(t, fileOf(t, img, "lib/ld-linux-aarch64.so.1"))
	// Its licenses travel with it: libindi's (LGPL) and indiserver's package's.
	assert.Contains(t, string(fileOf(t, img, "usr/share/doc/libindidriver1/copyright")), "LGPL")
	assert.Contains(t, string(fileOf(t, img, "usr/share/doc/indi-bin/copyright")), "License:")

	qemu, err := exec.LookPath("qemu-aarch64-static")
	require.NoError(t, err, "run hack/tools.sh: it installs Debian's qemu-user-static")
	out, err := exec.CommandContext(ctx, qemu, worker, "--version").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "v0.0.0-test")
	assert.Contains(t, string(out), "linux/arm64")

	// The arm64 DRA driver, for the Raspberry Pis the devices are plugged into.
	driverRef, err := name.ParseReference(s.Registry + "/liken/serial-devices:v0.0.0-test")
	require.NoError(t, err)
	img, err = remote.Image(driverRef, remote.WithContext(ctx), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: "arm64"}))
	require.NoError(t, err)
	driver := filepath.Join(dir, "serial-devices-arm64")
	require.NoError(t, os.WriteFile(driver, fileOf(t, img, "usr/local/bin/serial-devices"), 0o755))
	out, err = exec.CommandContext(ctx, qemu, driver, "--version").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "v0.0.0-test")
	assert.Contains(t, string(out), "linux/arm64")

	// A driver of indi-open runs on each platform with nothing but the image's own files.
	open, err := name.ParseReference(s.Registry + "/liken/indi-open:" + kube.INDIImageTag)
	require.NoError(t, err)
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := remote.Image(open, remote.WithContext(ctx), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: arch}))
		require.NoError(t, err)
		out := defines(t, ctx, img, arch, "indi_eqmod_telescope")
		assert.Regexp(t, `device='EQMod Mount'\s+name='CONNECTION'`, out, "%s: indi_eqmod_telescope defines its connection", arch)
		assert.Regexp(t, `name='Nearest Math Plugin'`, out, "%s: the alignment subsystem found its plugins", arch)
	}

	ownDriverRuns(t, ctx, s.Registry+"/liken", cache)
}

// qemuCPU is qemu-user's name of each GOARCH the images are built for.
var qemuCPU = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}

// defines runs an INDI driver of an image as a pod would, but rooted in the image's files
// alone (qemu-user in a chroot of its own, so no library of this machine can stand in for a
// missing one), asks for its properties and returns all it said before its input ended.
func defines(t *testing.T, ctx context.Context, img v1.Image, arch, driver string) string {
	t.Helper()
	root := t.TempDir()
	extract(t, img, root)
	qemu, err := exec.LookPath("qemu-" + qemuCPU[arch] + "-static")
	require.NoError(t, err, "run hack/tools.sh: it installs Debian's qemu-user-static")
	b, err := os.ReadFile(qemu)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "qemu"), b, 0o755))
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "--map-root-user", "--root="+root, "/qemu", "/usr/bin/"+driver)
	cmd.Env = []string{"HOME=/tmp", "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(`<getProperties version="1.7"/>`)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	_ = cmd.Run() // the driver ends when its stdin does
	return out.String()
}

// extract writes an image's files, folders and links under root.
func extract(t *testing.T, img v1.Image, root string) {
	t.Helper()
	walk(t, img, func(h *tar.Header, r io.Reader) bool {
		p := filepath.Join(root, h.Name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		switch h.Typeflag {
		case tar.TypeDir:
			require.NoError(t, os.MkdirAll(p, 0o755))
		case tar.TypeSymlink:
			require.NoError(t, os.Symlink(h.Linkname, p))
		case tar.TypeLink:
			require.NoError(t, os.Link(filepath.Join(root, h.Linkname), p))
		case tar.TypeReg:
			b, err := io.ReadAll(r)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, b, os.FileMode(h.Mode).Perm()))
		}
		return true
	})
}

// fileOf reads one file of an image's layers.
func fileOf(t *testing.T, img v1.Image, path string) []byte {
	t.Helper()
	var b []byte
	walk(t, img, func(h *tar.Header, r io.Reader) bool {
		if h.Name != path {
			return true
		}
		var err error
		b, err = io.ReadAll(r)
		require.NoError(t, err)
		return false
	})
	require.NotNil(t, b, "%s is not in the image", path)
	return b
}

// walk hands each entry of an image's layers to each, until each returns false.
func walk(t *testing.T, img v1.Image, each func(h *tar.Header, r io.Reader) bool) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		require.NoError(t, err)
		if !each(h, tr) {
			return
		}
	}
}
