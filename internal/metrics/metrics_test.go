// The Temporal SDK's metrics in our registry keep their families' labels whatever tags a
// later use brings, so no metric is refused; and every registry says which build it is.
package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"liken.sh/runner/internal/version"
)

func TestTheSDKsMetricsKeepTheirFamilyLabelsWhateverTagsALaterUseBrings(t *testing.T) {
	r := New()
	h := r.Temporal().WithTags(map[string]string{"namespace": "default", "task_queue": "liken"})
	h.Counter("temporal_request").Inc(2)
	// A later use with a tag the family lacks, and without one it has: neither is refused.
	h.WithTags(map[string]string{"operation": "Poll"}).Counter("temporal_request").Inc(1)
	r.Temporal().WithTags(map[string]string{"namespace": "default"}).Counter("temporal_request").Inc(1)
	h.Timer("temporal_activity_execution_latency").Record(1500 * time.Millisecond)
	h.Gauge("temporal_num_pollers").Update(4)

	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`temporal_request{namespace="default",task_queue="liken"} 3`,
		`temporal_request{namespace="default",task_queue=""} 1`,
		`temporal_activity_execution_latency_seconds_bucket{namespace="default",task_queue="liken",le="2.048"} 1`,
		`temporal_activity_execution_latency_seconds_sum{namespace="default",task_queue="liken"} 1.5`,
		`temporal_num_pollers{namespace="default",task_queue="liken"} 4`,
		`go_goroutines `,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
}

func TestEveryRegistryExportsTheBuildItIs(t *testing.T) {
	rec := httptest.NewRecorder()
	New().Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	v := version.Get()
	want := `liken_build_info{goversion="` + v.GoVersion + `",revision="` + v.Revision + `",version="` + v.Version + `"} 1`
	if !strings.Contains(rec.Body.String(), want) {
		t.Errorf("/metrics lacks %s:\n%s", want, rec.Body.String())
	}
}
