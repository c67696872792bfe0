// The pieces an image is built from: a layer's folders and modes, a program's libraries,
// and a group for each user.
package images

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/kube"
)

func TestALayerHasEveryFolderItsFilesNeedAndTheModesItNames(t *testing.T) {
	src := filepath.Join(t.TempDir(), "prog")
	require.NoError(t, os.WriteFile(src, []byte("#!"), 0o755))
	b, err := Layer{
		{Path: "/usr/bin/prog", From: src},
		{Path: "/etc/passwd", Data: []byte("x")},
		{Path: "/bin/sh", Link: "busybox"},
		{Path: "/tmp", Dir: true, Mode: os.ModeSticky | 0o777},
		{Path: "/etc/passwd", Data: []byte("later wins")},
	}.Tar()
	require.NoError(t, err)
	got := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		body, _ := io.ReadAll(tr)
		got[h.Name] = string(rune(h.Typeflag)) + " " + os.FileMode(h.Mode).String() + " " + h.Linkname + string(body)
	}
	assert.Equal(t, map[string]string{
		"bin/":         "5 -rwxr-xr-x ",
		"bin/sh":       "2 -rwxrwxrwx busybox",
		"etc/":         "5 -rwxr-xr-x ",
		"etc/passwd":   "0 -rw-r--r-- later wins",
		"tmp/":         "5 -rwxrwxrwx ", // the sticky bit is tar's 01000, not Go's ModeSticky
		"usr/":         "5 -rwxr-xr-x ",
		"usr/bin/":     "5 -rwxr-xr-x ",
		"usr/bin/prog": "0 -rwxr-xr-x #!",
	}, got)
	// tar's sticky bit
	tr = tar.NewReader(bytes.NewReader(b))
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		if h.Name == "tmp/" {
			assert.Equal(t, int64(0o1777), h.Mode)
		}
	}

	_, err = Layer{{Path: "relative"}}.Tar()
	assert.Error(t, err)
	_, err = Layer{{Path: "/x", From: "/no/such/file"}}.Tar()
	assert.ErrorContains(t, err, "the image needs /no/such/file")
}

func TestTheClosureOfAProgramIsItsLoaderAndEveryLibraryItLoads(t *testing.T) {
	// indiserver of this machine's indi-bin: its loader, libindidriver's own libraries too.
	libs, err := Closure("/", "/usr/bin/indiserver")
	require.NoError(t, err)
	names := map[string]bool{}
	for _, l := range libs {
		names[filepath.Base(l)] = true
	}
	for _, want := range []string{"libc.so.6", "libev.so.4", "libstdc++.so.6"} {
		assert.True(t, names[want], "%s in %v", want, libs)
	}
	assert.Contains(t, strings.Join(libs, " "), "/ld-linux-", "the loader")

	_, err = Closure(t.TempDir(), "/usr/bin/indiserver")
	assert.ErrorContains(t, err, "the image needs /usr/bin/indiserver")
}

func TestGroupsGiveEachUserAGroupOfItsOwnId(t *testing.T) {
	assert.Equal(t, "root:x:0:\nindi:x:1000:\n", groups(indiUser))
}

func TestALinkInTheTreeLeadsWithinTheTreeNotToThisMachine(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "lib/x86_64-linux-gnu"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "lib64"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "usr/bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "lib/x86_64-linux-gnu/ld.so"), []byte("ld"), 0o755))
	require.NoError(t, os.Symlink("/lib/x86_64-linux-gnu/ld.so", filepath.Join(root, "lib64/ld.so")))
	require.NoError(t, os.Symlink("../../lib64/ld.so", filepath.Join(root, "usr/bin/ld")))
	require.NoError(t, os.Symlink("../../../../../../etc/passwd", filepath.Join(root, "usr/bin/out")))

	for _, p := range []string{"/lib64/ld.so", "/usr/bin/ld"} {
		e, err := fromTree(root, p)
		require.NoError(t, err, p)
		assert.Equal(t, Entry{Path: p, From: filepath.Join(root, "lib/x86_64-linux-gnu/ld.so")}, e)
	}
	_, err := inTree(root, "/usr/bin/out")
	assert.ErrorContains(t, err, "the image needs /usr/bin/out", "a link up past the root stays in the tree, where there is no /etc/passwd")
}

func TestToolsFetchTheINDIVersionTheImagesAreBuiltFrom(t *testing.T) {
	b, err := os.ReadFile("../../hack/tools.sh")
	require.NoError(t, err)
	assert.Contains(t, string(b), "\nINDI_DEBIAN_VERSION="+DebianINDI+"\n")
	assert.True(t, strings.HasPrefix(DebianINDI, kube.INDIImageTag+"+"), "the images' tag %s names Debian's %s", kube.INDIImageTag, DebianINDI)
}
