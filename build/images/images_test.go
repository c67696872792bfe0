// The pieces an image is built from: a layer's folders and modes, the libraries ldd names,
// and a group for each user.
package images

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestLddGivesEachLibraryAndTheLoader(t *testing.T) {
	out := `	linux-vdso.so.1 (0x00007ffd)
	libindidriver.so.1 => /lib/x86_64-linux-gnu/libindidriver.so.1 (0x00007f)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)
	/lib64/ld-linux-x86-64.so.2 (0x00007f)
`
	libs, err := ParseLdd([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, []string{"/lib/x86_64-linux-gnu/libindidriver.so.1", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"}, libs)

	_, err = ParseLdd([]byte("\tlibnova.so.0 => not found\n"))
	assert.ErrorContains(t, err, "libnova.so.0 => not found")
}

func TestGroupsGiveEachUserAGroupOfItsOwnId(t *testing.T) {
	assert.Equal(t, "root:x:0:\nindi:x:1000:\n", groups(indiUser))
}
