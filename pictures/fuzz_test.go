// Fuzz tests for the two functions that take a stranger's input directly:
// the bytes of a picture and the text of spec.avatar. Their seed corpora are
// in testdata/fuzz; `go test` runs each seed, `go test -fuzz` explores.

package pictures

import (
	"liken.sh/runner/pictures/avatar"
	"path"
	"strings"
	"testing"
)

// FuzzThumbnail: any bytes either make a Size x Size JPEG or fail with
// DecodeFailed; none panics.
func FuzzThumbnail(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Thumbnail(data, avatar.Colour("fuzz"))
		if err != nil {
			if reasonOf(t, err) != avatar.ReasonDecodeFailed || err.Error() == "" {
				t.Fatalf("the error is %v, want DecodeFailed with a message", err)
			}
			return
		}
		decodeJPEG(t, out)
	})
}

// FuzzParseSource: any avatar either parses to a source that a pod can
// mount safely, or fails with one of the AvatarReady reasons and a message.
func FuzzParseSource(f *testing.F) {
	f.Fuzz(func(t *testing.T, uri string) {
		src, err := avatar.ParseSource(uri)
		if err != nil {
			switch reasonOf(t, err) {
			case avatar.ReasonDecodeFailed, avatar.ReasonBakeFailed, avatar.ReasonUnsupportedScheme, avatar.ReasonFetchFailed:
			default:
				t.Fatalf("the error %v has an unexpected reason", err)
			}
			if err.Error() == "" {
				t.Fatal("the error has no message")
			}
			return
		}
		noDotDot := func(p string) bool {
			for _, seg := range strings.Split(p, "/") {
				if seg == ".." {
					return false
				}
			}
			return true
		}
		switch src.Kind {
		case avatar.KindInitials:
			if uri != "" {
				t.Fatalf("%q gives initials", uri)
			}
		case avatar.KindHTTP:
			if src.URL != uri {
				t.Fatalf("the URL %q is not the avatar %q", src.URL, uri)
			}
		case avatar.KindData:
		case avatar.KindNFS:
			if src.Server == "" || src.File == "" || strings.Contains(src.File, "/") || src.File == ".." ||
				!strings.HasPrefix(src.Dir, "/") || !noDotDot(src.Dir) {
				t.Fatalf("%q gives the unsafe NFS source %+v", uri, src)
			}
		case avatar.KindClaim:
			if src.Namespace == "" || src.Claim == "" || src.Path == "" || strings.HasPrefix(src.Path, "/") ||
				path.Clean(src.Path) != src.Path || !noDotDot(src.Path) {
				t.Fatalf("%q gives the unsafe claim source %+v", uri, src)
			}
		default:
			t.Fatalf("%q gives the kind %q", uri, src.Kind)
		}
		if file := src.BakerFile(); file != "" && !strings.HasPrefix(path.Clean(file), avatar.BakerMount+"/") {
			t.Fatalf("%q makes the baker read %q, outside its mount", uri, file)
		}
	})
}
