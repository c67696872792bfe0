// Fuzz tests for the two functions that take a stranger's input directly:
// the bytes of a picture and the text of spec.avatar. Their seed corpora are
// in testdata/fuzz; `go test` runs each seed, `go test -fuzz` explores.

package pictures

import (
	"path"
	"strings"
	"testing"
)

// FuzzThumbnail: any bytes either make a Size x Size JPEG or fail with
// DecodeFailed; none panics.
func FuzzThumbnail(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Thumbnail(data, Colour("fuzz"))
		if err != nil {
			if reasonOf(t, err) != ReasonDecodeFailed || err.Error() == "" {
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
	f.Fuzz(func(t *testing.T, avatar string) {
		src, err := ParseSource(avatar)
		if err != nil {
			switch reasonOf(t, err) {
			case ReasonDecodeFailed, ReasonBakeFailed, ReasonUnsupportedScheme, ReasonFetchFailed:
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
		case KindInitials:
			if avatar != "" {
				t.Fatalf("%q gives initials", avatar)
			}
		case KindHTTP:
			if src.URL != avatar {
				t.Fatalf("the URL %q is not the avatar %q", src.URL, avatar)
			}
		case KindData:
		case KindNFS:
			if src.Server == "" || src.File == "" || strings.Contains(src.File, "/") || src.File == ".." ||
				!strings.HasPrefix(src.Dir, "/") || !noDotDot(src.Dir) {
				t.Fatalf("%q gives the unsafe NFS source %+v", avatar, src)
			}
		case KindClaim:
			if src.Namespace == "" || src.Claim == "" || src.Path == "" || strings.HasPrefix(src.Path, "/") ||
				path.Clean(src.Path) != src.Path || !noDotDot(src.Path) {
				t.Fatalf("%q gives the unsafe claim source %+v", avatar, src)
			}
		default:
			t.Fatalf("%q gives the kind %q", avatar, src.Kind)
		}
		if file := src.BakerFile(); file != "" && !strings.HasPrefix(path.Clean(file), BakerMount+"/") {
			t.Fatalf("%q makes the baker read %q, outside its mount", avatar, file)
		}
	})
}
