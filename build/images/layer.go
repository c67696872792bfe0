// A layer is a tar of a few files, written down as a list: a file's path in the image, where
// its bytes come from (this machine, or a Debian tree of another CPU in the cache), its mode
// and owner. The images here are one layer each, so what a pod runs is exactly that list.
package images

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Entry is one file, folder or symlink of a layer.
type Entry struct {
	Path string      // in the image, absolute
	From string      // a file on this machine to copy (symlinks followed)
	Data []byte      // or these bytes
	Link string      // or a symlink to this
	Dir  bool        // or a folder
	Mode os.FileMode // 0: the source's mode, 0755 for a folder, 0644 for Data
}

// Layer is a set of entries; a later entry for the same path replaces an earlier one.
type Layer []Entry

// Add appends an entry.
func (l *Layer) Add(e Entry) { *l = append(*l, e) }

// CopyFiles adds each host file at the same path in the image.
func (l *Layer) CopyFiles(paths ...string) {
	for _, p := range paths {
		l.Add(Entry{Path: p, From: p})
	}
}

// epoch is every entry's time, so the same inputs give the same layer digest.
var epoch = time.Unix(0, 0)

// Tar writes the layer: the folders each entry needs first, then the entries in path order.
func (l Layer) Tar() ([]byte, error) {
	byPath := map[string]Entry{}
	for _, e := range l {
		if !path.IsAbs(e.Path) {
			return nil, fmt.Errorf("an image path must be absolute: %q", e.Path)
		}
		byPath[path.Clean(e.Path)] = e
	}
	for p := range byPath {
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			if _, ok := byPath[d]; !ok {
				byPath[d] = Entry{Path: d, Dir: true}
			}
		}
	}
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	slices.Sort(paths)

	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		if err := writeEntry(tw, strings.TrimPrefix(p, "/"), byPath[p]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeEntry(tw *tar.Writer, name string, e Entry) error {
	h := &tar.Header{Name: name, ModTime: epoch, Format: tar.FormatPAX}
	var body []byte
	switch {
	case e.Dir:
		h.Typeflag, h.Mode, h.Name = tar.TypeDir, 0o755, name+"/"
	case e.Link != "":
		h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, e.Link, 0o777
	case e.From != "":
		b, err := os.ReadFile(e.From)
		if err != nil {
			return fmt.Errorf("the image needs %s: %w", e.From, err)
		}
		st, err := os.Stat(e.From)
		if err != nil {
			return err
		}
		h.Typeflag, h.Mode, body = tar.TypeReg, int64(st.Mode().Perm()), b
	default:
		h.Typeflag, h.Mode, body = tar.TypeReg, 0o644, e.Data
	}
	if e.Mode != 0 {
		h.Mode = int64(e.Mode.Perm())
		if e.Mode&os.ModeSticky != 0 {
			h.Mode |= 0o1000
		}
	}
	h.Size = int64(len(body))
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := tw.Write(body)
	return err
}

// v1Layer turns the layer into one the image library can append.
func (l Layer) v1Layer() (v1.Layer, error) {
	b, err := l.Tar()
	if err != nil {
		return nil, err
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
