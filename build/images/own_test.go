// A driver image of one's own, from a Debian package file: the test packs a driver Debian's
// tree has (the telescope simulator, standing in for a vendor's driver) into a .deb of each
// CPU under another name, builds the image from it as `make images DEBS=...` does, pushes it,
// and runs the driver from the image's files alone under qemu.
package images_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/build/images"
)

// ownDriverRuns builds and pushes indi-own:1.0-1 for amd64 and arm64 into registry.
func ownDriverRuns(t *testing.T, ctx context.Context, registry, cache string) {
	var imgs []images.Image
	for _, arch := range []string{"amd64", "arm64"} {
		tree, err := images.DebianTree(cache, arch)
		require.NoError(t, err)
		deb := ownDeb(t, tree, arch)
		pkg, err := images.ExtractDeb(deb, t.TempDir())
		require.NoError(t, err)
		assert.Equal(t, images.Package{Name: "indi-own", Version: "1.0-1", Arch: arch, Root: pkg.Root}, pkg)
		img, err := images.OwnDriver(images.Platform{Arch: arch, Debian: tree, Labels: images.Labels("1.0-1", "")}, "indi-own", "1.0-1", []images.Package{pkg})
		require.NoError(t, err)
		imgs = append(imgs, img)
	}
	_, err := images.Push(ctx, imgs, images.Into(registry))
	require.NoError(t, err)
	ref, err := name.ParseReference(registry + "/indi-own:1.0-1")
	require.NoError(t, err)
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := remote.Image(ref, remote.WithContext(ctx), remote.WithPlatform(v1.Platform{OS: "linux", Architecture: arch}))
		require.NoError(t, err)
		assert.NotEmpty(t, fileOf(t, img, "usr/bin/socat"), "device pods run the driver behind socat")
		out := defines(t, ctx, img, arch, "indi_own_telescope")
		assert.Regexp(t, `device='Telescope Simulator'\s+name='CONNECTION'`, out, "%s: the package's driver runs from the image", arch)
	}

	// A package for another CPU, or without a driver, is refused with the reason.
	tree, err := images.DebianTree(cache, "amd64")
	require.NoError(t, err)
	_, err = images.OwnDriver(images.Platform{Arch: "amd64", Debian: tree}, "x", "1", []images.Package{{Name: "indi-own", Arch: "arm64", Root: t.TempDir()}})
	assert.ErrorContains(t, err, "is for arm64, not amd64")
	_, err = images.OwnDriver(images.Platform{Arch: "amd64", Debian: tree}, "x", "1", []images.Package{{Name: "libsdk", Arch: "amd64", Root: t.TempDir()}})
	assert.ErrorContains(t, err, "no INDI driver")
}

// ownDeb packs tree's telescope simulator as indi_own_telescope into indi-own_1.0-1_<arch>.deb.
func ownDeb(t *testing.T, tree, arch string) string {
	dir := t.TempDir()
	src := filepath.Join(dir, "pkg")
	require.NoError(t, os.MkdirAll(filepath.Join(src, "DEBIAN"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(src, "usr/bin"), 0o755))
	control := "Package: indi-own\nVersion: 1.0-1\nArchitecture: " + arch +
		"\nMaintainer: test <test@example.invalid>\nDescription: a driver of one's own\n"
	require.NoError(t, os.WriteFile(filepath.Join(src, "DEBIAN/control"), []byte(control), 0o644))
	b, err := os.ReadFile(filepath.Join(tree, "usr/bin/indi_simulator_telescope"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(src, "usr/bin/indi_own_telescope"), b, 0o755))
	deb := filepath.Join(dir, "indi-own_1.0-1_"+arch+".deb")
	out, err := exec.Command("dpkg-deb", "--root-owner-group", "--build", src, deb).CombinedOutput()
	require.NoError(t, err, string(out))
	return deb
}
