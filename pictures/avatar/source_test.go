// spec.avatar is free text a user writes, so the parse is tested on what
// users write: each scheme in its usual and odd forms, and each mistake with
// the reason a user sees for it.

package avatar

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestEachSchemeParsesToItsSource(t *testing.T) {
	for _, tc := range []struct {
		avatar string
		want   Source
		reason string
		file   string
	}{
		{"", Source{Kind: KindInitials}, ReasonInitials, ""},
		{"https://example.com/ada.jpg", Source{Kind: KindHTTP, URL: "https://example.com/ada.jpg"}, ReasonFetched, ""},
		{"http://10.0.0.1:8080/a.png?size=big#x", Source{Kind: KindHTTP, URL: "http://10.0.0.1:8080/a.png?size=big#x"}, ReasonFetched, ""},
		{"HTTPS://Example.com/A.jpg", Source{Kind: KindHTTP, URL: "HTTPS://Example.com/A.jpg"}, ReasonFetched, ""},
		{"data:image/png;base64,aGVsbG8=", Source{Kind: KindData, Data: []byte("hello")}, ReasonInline, ""},
		{"nfs://files.lan/export/people/ada.jpg",
			Source{Kind: KindNFS, Server: "files.lan", Dir: "/export/people", File: "ada.jpg"}, ReasonBaked, "/source/ada.jpg"},
		{"nfs://10.0.0.5/ada.jpg", Source{Kind: KindNFS, Server: "10.0.0.5", Dir: "/", File: "ada.jpg"}, ReasonBaked, "/source/ada.jpg"},
		{"nfs://[fd00::5]/srv/ada%20l.jpg",
			Source{Kind: KindNFS, Server: "fd00::5", Dir: "/srv", File: "ada l.jpg"}, ReasonBaked, "/source/ada l.jpg"},
		{"nfs://files.lan//export/./people/ada.jpg",
			Source{Kind: KindNFS, Server: "files.lan", Dir: "/export/people", File: "ada.jpg"}, ReasonBaked, "/source/ada.jpg"},
		{"claim://team/photos/ada.jpg",
			Source{Kind: KindClaim, Namespace: "team", Claim: "photos", Path: "ada.jpg"}, ReasonBaked, "/source/ada.jpg"},
		{"claim://team/photos.v2/people/2024/ada%3F.jpg",
			Source{Kind: KindClaim, Namespace: "team", Claim: "photos.v2", Path: "people/2024/ada?.jpg"}, ReasonBaked, "/source/people/2024/ada?.jpg"},
		{"claim://team/photos//people/./ada.jpg",
			Source{Kind: KindClaim, Namespace: "team", Claim: "photos", Path: "people/ada.jpg"}, ReasonBaked, "/source/people/ada.jpg"},
	} {
		got, err := ParseSource(tc.avatar)
		if err != nil {
			t.Errorf("ParseSource(%q): %v", tc.avatar, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSource(%q) = %+v, want %+v", tc.avatar, got, tc.want)
		}
		if got.Reason() != tc.reason {
			t.Errorf("ParseSource(%q).Reason() = %s, want %s", tc.avatar, got.Reason(), tc.reason)
		}
		if got.BakerFile() != tc.file {
			t.Errorf("ParseSource(%q).BakerFile() = %q, want %q", tc.avatar, got.BakerFile(), tc.file)
		}
	}
}

func TestADataURIIsDecodedFromBase64OrPercentEncoding(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\xfb\xef\xff")
	for _, tc := range []struct {
		name, avatar string
		want         []byte
	}{
		{"base64 with a media type", "data:image/png;base64,iVBORw0KGgr77/8=", png},
		{"base64 with no media type", "data:;base64,iVBORw0KGgr77/8=", png},
		{"base64 with another media type", "data:text/plain;base64,iVBORw0KGgr77/8=", png},
		{"base64 with parameters", "data:image/png;name=a.png;base64,iVBORw0KGgr77/8=", png},
		{"base64 in upper case", "DATA:image/png;BASE64,iVBORw0KGgr77/8=", png},
		{"base64 broken over lines", "data:image/png;base64,iVBORw0K\n  Ggr77/8=", png},
		{"base64 with its symbols percent-escaped", "data:image/png;base64,iVBORw0KGgr77%2F8%3D", png},
		{"base64 without padding", "data:;base64,iVBORw0KGgr77/8", png},
		{"base64 in the URL alphabet", "data:;base64,iVBORw0KGgr77_8=", png},
		{"percent-encoding", "data:image/png,%89PNG%0D%0A%1A%0A%FB%EF%FF", png},
		{"percent-encoding keeps a plus", "data:,a+b%20c", []byte("a+b c")},
		{"plain text", "data:,hello", []byte("hello")},
		{"a comma in the data", "data:,a,b", []byte("a,b")},
	} {
		got, err := ParseSource(tc.avatar)
		if err != nil {
			t.Errorf("%s: ParseSource(%q): %v", tc.name, tc.avatar, err)
			continue
		}
		if got.Kind != KindData || !bytes.Equal(got.Data, tc.want) {
			t.Errorf("%s: ParseSource(%q) = %v %q, want data %q", tc.name, tc.avatar, got.Kind, got.Data, tc.want)
		}
	}
}

func TestAGarbledDataURIFailsToDecode(t *testing.T) {
	for _, tc := range []struct{ avatar, want string }{
		{"data:", "has no comma"},
		{"data:image/png;base64", "has no comma"},
		{"data:image/png;base64,", "holds no picture"},
		{"data:image/png,", "holds no picture"},
		{"data:image/png;base64,!!!!", "not valid base64"},
		{"data:image/png;base64,aGVsbG8=aGVs", "not valid base64"},
		{"data:image/png;base64,a", "not valid base64"},
		{"data:image/png,%zz", "percent-encoding is not valid"},
		{"data:image/png,100%", "percent-encoding is not valid"},
		{"data:;base64,%", "percent-encoding is not valid"},
	} {
		_, err := ParseSource(tc.avatar)
		if reasonOf(t, err) != ReasonDecodeFailed {
			t.Errorf("ParseSource(%q): the error is %v, want DecodeFailed", tc.avatar, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSource(%q): the message %q does not say %q", tc.avatar, err, tc.want)
		}
	}
}

func TestAnUnreadSchemeOrANonURIIsUnsupported(t *testing.T) {
	for _, avatar := range []string{
		"ftp://files.lan/ada.jpg",
		"file:///photos/ada.jpg",
		"s3://bucket/ada.jpg",
		"mailto:ada@example.com",
		"ada.jpg",
		"/photos/ada.jpg",
		"http://[::1",
		"%zz",
		" https://example.com/ada.jpg",
		"https://exa mple.com/ada.jpg",
		"nfs\x00://x/y",
	} {
		_, err := ParseSource(avatar)
		if reasonOf(t, err) != ReasonUnsupportedScheme {
			t.Errorf("ParseSource(%q): the error is %v, want UnsupportedScheme", avatar, err)
			continue
		}
		if !strings.Contains(err.Error(), "https://, http://, data:, nfs://, and claim://") {
			t.Errorf("ParseSource(%q): the message %q does not list the schemes", avatar, err)
		}
	}
}

func TestAnHTTPURLWithNoHostCannotBeFetched(t *testing.T) {
	for _, avatar := range []string{"https://", "http:///ada.jpg", "https:ada.jpg"} {
		if _, err := ParseSource(avatar); reasonOf(t, err) != ReasonFetchFailed {
			t.Errorf("ParseSource(%q): the error is %v, want FetchFailed", avatar, err)
		}
	}
}

func TestAMalformedNFSURIFailsToBake(t *testing.T) {
	for _, tc := range []struct{ avatar, want string }{
		{"nfs://", "names no server"},
		{"nfs:///export/ada.jpg", "names no server"},
		{"nfs://files.lan", "names no file"},
		{"nfs://files.lan/", "names no file"},
		{"nfs://files.lan/export/", "names a directory"},
		{"nfs://files.lan/.", "names a directory"},
		{"nfs://files.lan/export/.", "names a directory"},
		{"nfs://files.lan:2049/export/ada.jpg", "takes no port"},
		{"nfs://files.lan/export/../etc/shadow", `".."`},
		{"nfs://files.lan/../ada.jpg", `".."`},
		{"nfs://files.lan/export/ada.jpg?v=2", "has a query"},
		{"nfs://files.lan/export/ada.jpg?", "has a query"},
		{"nfs://files.lan/export/ada#1.jpg", "has a fragment"},
		{"nfs://ada@files.lan/export/ada.jpg", "must not name a user"},
		{"nfs:files.lan/export/ada.jpg", "two slashes"},
	} {
		_, err := ParseSource(tc.avatar)
		if reasonOf(t, err) != ReasonBakeFailed {
			t.Errorf("ParseSource(%q): the error is %v, want BakeFailed", tc.avatar, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nfs://<server>/<path of the file>") {
			t.Errorf("ParseSource(%q): the message %q does not say %q and the form", tc.avatar, err, tc.want)
		}
	}
}

func TestAMalformedClaimURIFailsToBake(t *testing.T) {
	for _, tc := range []struct{ avatar, want string }{
		{"claim://", "names no namespace"},
		{"claim:///photos/ada.jpg", "names no namespace"},
		{"claim://team", "names no claim"},
		{"claim://team/", "names no claim"},
		{"claim://team//ada.jpg", "names no claim"},
		{"claim://team/photos", "names no file"},
		{"claim://team/photos/", "names no file"},
		{"claim://team/photos//", "names no file"},
		{"claim://team/photos/people/", "names a directory"},
		{"claim://team/photos/.", "names a directory"},
		{"claim://team/photos/./.", "names a directory"},
		{"claim://team/photos/../ada.jpg", `".."`},
		{"claim://team/photos/people/../../x", `".."`},
		{"claim://Team/photos/ada.jpg", "not a valid namespace name"},
		{"claim://team_a/photos/ada.jpg", "not a valid namespace name"},
		{"claim://" + strings.Repeat("a", 64) + "/photos/ada.jpg", "not a valid namespace name"},
		{"claim://team:80/photos/ada.jpg", "not a valid namespace name"},
		{"claim://team/Photos/ada.jpg", "not a valid claim name"},
		{"claim://team/photos%2Fx/ada.jpg", "not a valid claim name"},
		{"claim://team/photos/ada.jpg?x", "has a query"},
		{"claim://team/photos/ada.jpg#x", "has a fragment"},
		{"claim:team/photos/ada.jpg", "two slashes"},
	} {
		_, err := ParseSource(tc.avatar)
		if reasonOf(t, err) != ReasonBakeFailed {
			t.Errorf("ParseSource(%q): the error is %v, want BakeFailed", tc.avatar, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "claim://<namespace>/<claim>/<path of the file>") {
			t.Errorf("ParseSource(%q): the message %q does not say %q and the form", tc.avatar, err, tc.want)
		}
	}
}

func TestALongAvatarIsCutShortInAMessage(t *testing.T) {
	_, err := ParseSource("ftp://" + strings.Repeat("x", 10000))
	if err == nil || len(err.Error()) > 300 {
		t.Errorf("the message is %d bytes long", len(err.Error()))
	}
}

// reasonOf is the reason of an *Error, or "" (and a failed test) for any
// other error.
func reasonOf(t testing.TB, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("the error %v (%T) carries no reason", err, err)
	}
	return e.Reason
}
