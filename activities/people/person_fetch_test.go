// Integration tests of the people side's http(s) reads (person_fetch.go) against a real HTTP
// server on 127.0.0.1: a picture fetched and its version recorded, every bad answer failing
// with its reason and a Warning, the last good picture kept, and the conditional re-check.
// The stack and the helpers that create and read Persons are in person_test.go.
package people

import (
	"fmt"
	"image/color"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures"
	"liken.sh/runner/pictures/avatar"
)

// pictureServer serves pictures good and bad, and remembers the requests it was sent.
type pictureServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []http.Header
	photo    []byte
	// etag and lastModified are the photo's version; a conditional GET that matches gets 304.
	etag, lastModified string
}

func newPictureServer(t *testing.T) *pictureServer {
	s := &pictureServer{
		photo:        pngOf(t, 64, 48, color.NRGBA{200, 120, 40, 255}),
		etag:         `"v1"`,
		lastModified: "Mon, 02 Jan 2026 15:04:05 GMT",
	}
	other := pngOf(t, 30, 30, color.NRGBA{20, 160, 90, 128})
	wide := pngOf(t, 9000, 10, color.Black)
	mux := http.NewServeMux()
	mux.HandleFunc("/photo.png", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		etag, lastModified, photo := s.etag, s.lastModified, s.photo
		s.mu.Unlock()
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lastModified)
		w.Write(photo)
	})
	mux.HandleFunc("/other.png", func(w http.ResponseWriter, r *http.Request) { w.Write(other) })
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello, this is not a picture\n")) })
	truncated := s.photo[:len(s.photo)/2]
	mux.HandleFunc("/truncated.png", func(w http.ResponseWriter, r *http.Request) { w.Write(truncated) })
	mux.HandleFunc("/wide.png", func(w http.ResponseWriter, r *http.Request) { w.Write(wide) })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		// Streamed with no Content-Length, so only the cap on the body can stop it.
		chunk := make([]byte, 1<<20)
		for range 11 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/huge-declared", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(11<<20))
		w.Write(make([]byte, 11<<20))
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Header.Clone())
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// sent is the requests the server has had so far.
func (s *pictureServer) sent() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.requests...)
}

func TestAnHTTPPictureIsFetchedAndItsVersionRecorded(t *testing.T) {
	srv := newPictureServer(t)
	url := srv.URL + "/photo.png"
	p := createPerson(t, "fetched-hedy", peoplev1.PersonSpec{DisplayName: "Hedy Lamarr", Avatar: url}, map[string]string{kube.AnnotationCheckAvatar: "first"})
	out := pass(t, newActivities(), p.Name, false)
	assert.Equal(t, PersonOutcome{UID: string(p.UID), Generation: 1, Source: url, Reason: "Fetched", Recheck: true, Wrote: true}, out)

	p = readPerson(t, p.Name)
	thumb, err := pictures.Thumbnail(srv.photo, avatar.Colour(p.Name))
	require.NoError(t, err)
	assert.Equal(t, avatar.DataURI(thumb), p.Status.Thumbnail)
	assert.Equal(t, &peoplev1.AvatarStatus{Source: url, ETag: `"v1"`, LastModified: srv.lastModified, Checked: "first"}, p.Status.Avatar)
	c := avatarReady(t, p)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Equal(t, "Fetched", c.Reason)
	assert.Equal(t, corev1.EventTypeNormal, eventWith(t, p, "Fetched").Type)

	req := srv.sent()
	require.Len(t, req, 1)
	assert.Empty(t, req[0].Get("If-None-Match"), "a first read is not conditional")
	assert.Equal(t, "people-operator", req[0].Get("User-Agent"))
}

// The failures a user can fix: each becomes the AvatarReady condition and a Warning Event, and
// the pass itself succeeds.
func TestEveryBadPictureFailsWithItsReasonAndAWarning(t *testing.T) {
	srv := newPictureServer(t)
	for _, tc := range []struct {
		name, avatar, reason string
		message              []string
	}{
		{"bytes that are not a picture", srv.URL + "/text", "DecodeFailed",
			[]string{"not a JPEG, PNG, GIF, or WebP"}},
		{"a truncated file", srv.URL + "/truncated.png", "DecodeFailed",
			[]string{"not a valid PNG image"}},
		{"a picture of 9000x10 pixels", srv.URL + "/wide.png", "DecodeFailed",
			[]string{"9000x10 pixels", "at most 8192"}},
		{"a body of 11 MiB", srv.URL + "/huge", "FetchFailed",
			[]string{srv.URL + "/huge", "over the limit of 10 MiB"}},
		{"a body that says it is 11 MiB", srv.URL + "/huge-declared", "FetchFailed",
			[]string{"11534336 bytes, over the limit of 10 MiB"}},
		{"a server that never answers", srv.URL + "/hang", "FetchFailed",
			[]string{srv.URL + "/hang", "did not answer within 2s"}},
		{"a 404", srv.URL + "/missing.png", "FetchFailed",
			[]string{"the server answered 404 Not Found for " + srv.URL + "/missing.png"}},
		{"a redirect loop", srv.URL + "/loop", "FetchFailed",
			[]string{"redirected more than 10 times"}},
		{"an ftp:// URL", "ftp://files.example/ada.png", "UnsupportedScheme",
			[]string{`"ftp:"`, "https://, http://, data:, nfs://, and claim://"}},
		{"a string that is not a URI", "::not a uri", "UnsupportedScheme",
			[]string{"https://, http://, data:, nfs://, and claim://"}},
		{"a garbage data: URI", "data:image/png;base64,!!!not base64!!!", "DecodeFailed",
			[]string{"not valid base64"}},
		{"a data: URI of text", "data:,hello", "DecodeFailed",
			[]string{"not a JPEG, PNG, GIF, or WebP"}},
		{"a malformed claim:// URI", "claim://Bad_Namespace/c/a.png", "BakeFailed",
			[]string{"not a valid claim:// URI"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "bad-" + strings.NewReplacer(" ", "-", ":", "", "/", "", "'", "").Replace(strings.ToLower(tc.name))
			p := createPerson(t, name, peoplev1.PersonSpec{DisplayName: "Barbara Liskov", Avatar: tc.avatar}, nil)
			start := time.Now()
			out := pass(t, newActivities(), p.Name, false)
			assert.Less(t, time.Since(start), testFetchTimeout+5*time.Second, "the read is bounded")
			assert.Equal(t, tc.reason, out.Reason)
			assert.True(t, out.Wrote)
			assert.False(t, out.NeedsBake)

			p = readPerson(t, p.Name)
			c := avatarReady(t, p)
			assert.Equal(t, metav1.ConditionFalse, c.Status)
			assert.Equal(t, tc.reason, c.Reason)
			for _, m := range tc.message {
				assert.Contains(t, c.Message, m)
			}
			assert.NotContains(t, c.Message, kube.KeptPictureNote, "there was no photo to keep")
			assert.True(t, avatar.IsInitials(p.Status.Thumbnail), "the initials are drawn instead")
			assert.Equal(t, int64(1), c.ObservedGeneration)

			ev := eventWith(t, p, tc.reason)
			assert.Equal(t, corev1.EventTypeWarning, ev.Type)
			assert.Equal(t, c.Message, ev.Message)

			// The failure is recorded: the same source is not read again in a loop.
			assert.False(t, pass(t, newActivities(), p.Name, false).Wrote)
		})
	}
}

func TestAFailedReadKeepsTheLastGoodPicture(t *testing.T) {
	srv := newPictureServer(t)
	p := createPerson(t, "kept-margaret", peoplev1.PersonSpec{DisplayName: "Margaret Hamilton", Avatar: srv.URL + "/photo.png"}, nil)
	a := newActivities()
	require.Equal(t, "Fetched", pass(t, a, p.Name, false).Reason)
	photo := readPerson(t, p.Name).Status.Thumbnail

	editPerson(t, p.Name, func(p *peoplev1.Person) { p.Spec.Avatar = srv.URL + "/missing.png" })
	out := pass(t, a, p.Name, false)
	assert.Equal(t, "FetchFailed", out.Reason)
	p = readPerson(t, p.Name)
	assert.Equal(t, photo, p.Status.Thumbnail, "the photo stays")
	c := avatarReady(t, p)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Equal(t, "the server answered 404 Not Found for "+srv.URL+"/missing.png; the last good picture stays", c.Message)
	assert.Equal(t, &peoplev1.AvatarStatus{Source: srv.URL + "/missing.png"}, p.Status.Avatar, "the old version is not the new source's")
	assert.Equal(t, c.Message, eventWith(t, p, "FetchFailed").Message)
}

func TestTheCheckAvatarAnnotationAsksForAFullRead(t *testing.T) {
	srv := newPictureServer(t)
	p := createPerson(t, "checked-frances", peoplev1.PersonSpec{DisplayName: "Frances Allen", Avatar: srv.URL + "/photo.png"}, nil)
	a := newActivities()
	pass(t, a, p.Name, false)
	pass(t, a, p.Name, false)
	require.Len(t, srv.sent(), 1, "nothing changed, so nothing was read again")

	editPerson(t, p.Name, func(p *peoplev1.Person) {
		p.Annotations = map[string]string{kube.AnnotationCheckAvatar: "2026-03-01"}
	})
	out := pass(t, a, p.Name, false)
	assert.True(t, out.Wrote)
	req := srv.sent()
	require.Len(t, req, 2, "the new annotation value caused a read")
	assert.Empty(t, req[1].Get("If-None-Match"), "a user asking again gets a full read, not a conditional one")
	assert.Equal(t, "2026-03-01", readPerson(t, p.Name).Status.Avatar.Checked)
}

func TestARecheckAnsweredWith304ChangesNothing(t *testing.T) {
	srv := newPictureServer(t)
	p := createPerson(t, "notmodified-radia", peoplev1.PersonSpec{DisplayName: "Radia Perlman", Avatar: srv.URL + "/photo.png"}, nil)
	a := newActivities()
	pass(t, a, p.Name, false)
	before := readPerson(t, p.Name)

	out := pass(t, a, p.Name, true)
	assert.False(t, out.Wrote)
	assert.Equal(t, "Fetched", out.Reason)
	assert.True(t, out.Recheck)
	req := srv.sent()
	require.Len(t, req, 2)
	assert.Equal(t, `"v1"`, req[1].Get("If-None-Match"))
	assert.Equal(t, srv.lastModified, req[1].Get("If-Modified-Since"))
	assert.Equal(t, before.ResourceVersion, readPerson(t, p.Name).ResourceVersion, "a 304 changes nothing")

	// A picture that did change is fetched and announced.
	srv.mu.Lock()
	srv.etag, srv.photo = `"v2"`, pngOf(t, 50, 50, color.NRGBA{1, 2, 3, 255})
	srv.mu.Unlock()
	out = pass(t, a, p.Name, true)
	assert.True(t, out.Wrote)
	after := readPerson(t, p.Name)
	assert.NotEqual(t, before.Status.Thumbnail, after.Status.Thumbnail)
	assert.Equal(t, `"v2"`, after.Status.Avatar.ETag)
	assert.Equal(t, corev1.EventTypeNormal, eventWith(t, after, "AvatarUpdated").Type)
}
