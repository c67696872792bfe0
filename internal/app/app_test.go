// Tests of the shared health endpoints: Go's profiles are served only when asked for.
package app

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestProfilesAreServedOnlyWhenAskedFor(t *testing.T) {
	for _, tc := range []struct {
		pprof bool
		path  string
		want  int
	}{
		{false, "/debug/pprof/heap", http.StatusNotFound},
		{false, "/debug/pprof/", http.StatusNotFound},
		{true, "/debug/pprof/heap", http.StatusOK},
		{true, "/debug/pprof/", http.StatusOK},
		{true, "/debug/pprof/cmdline", http.StatusOK},
		{true, "/healthz", http.StatusOK},
	} {
		h := &Health{Pprof: tc.pprof}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != tc.want {
			t.Errorf("pprof %v, GET %s: %d, want %d", tc.pprof, tc.path, rec.Code, tc.want)
		}
	}
}
