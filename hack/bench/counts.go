// Counts that load does not change: the API server's requests (apiserver_request_total on its
// /metrics) by verb and resource, less the bench's own (counted by its client's transport),
// the 409 conflicts among them, and the workers' INDI traffic (liken_indi_* on their
// /metrics). A scenario takes a snapshot before and after, and prints the difference per
// reservation or per Person: wall-clock figures on a busy machine vary, these do not.
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// apiKey is one verb on one resource: "PUT observatories/status", "LIST pods".
type apiKey struct{ verb, resource string }

func (k apiKey) String() string { return k.verb + " " + k.resource }

// apiCounts are requests by verb and resource, and the 409s among them.
type apiCounts struct {
	requests  map[apiKey]float64
	conflicts map[apiKey]float64
}

// sub is a minus b.
func (a apiCounts) sub(b apiCounts) apiCounts {
	out := apiCounts{requests: map[apiKey]float64{}, conflicts: map[apiKey]float64{}}
	for k, v := range a.requests {
		if d := v - b.requests[k]; d > 0 {
			out.requests[k] = d
		}
	}
	for k, v := range a.conflicts {
		if d := v - b.conflicts[k]; d > 0 {
			out.conflicts[k] = d
		}
	}
	return out
}

// metricLine is one sample of Prometheus' text format: name{labels} value.
var metricLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ([0-9.eE+-]+)`)
var metricLabel = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// samples calls f with each sample of a /metrics text.
func samples(text string, f func(name string, labels map[string]string, value float64)) {
	for _, line := range strings.Split(text, "\n") {
		m := metricLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		labels := map[string]string{}
		for _, l := range metricLabel.FindAllStringSubmatch(m[2], -1) {
			labels[l[1]] = l[2]
		}
		f(m[1], labels, v)
	}
}

// apiServerCounts reads the API server's request counters (resource requests only).
func (b *bench) apiServerCounts(ctx context.Context) (apiCounts, error) {
	raw, err := b.kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return apiCounts{}, fmt.Errorf("read the API server's metrics: %w", err)
	}
	c := apiCounts{requests: map[apiKey]float64{}, conflicts: map[apiKey]float64{}}
	samples(string(raw), func(name string, l map[string]string, v float64) {
		if name != "apiserver_request_total" || l["resource"] == "" {
			return
		}
		k := apiKey{verb: l["verb"], resource: l["resource"]}
		if l["subresource"] != "" {
			k.resource += "/" + l["subresource"]
		}
		c.requests[k] += v
		if l["code"] == "409" {
			c.conflicts[k] += v
		}
	})
	return c, nil
}

// ownRequests counts the bench's own requests to the API server, by the API server's verb
// and resource, so that they can be taken out of its counts.
type ownRequests struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[apiKey]float64
}

func (o *ownRequests) RoundTrip(r *http.Request) (*http.Response, error) {
	if k, ok := requestKey(r); ok {
		o.mu.Lock()
		o.n[k]++
		o.mu.Unlock()
	}
	return o.next.RoundTrip(r)
}

func (o *ownRequests) snapshot() map[apiKey]float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.n)
}

// requestKey names a request as apiserver_request_total does: /api/v1/namespaces/ns/pods/x/log
// is GET pods/log; a GET without a name LIST, or WATCH with watch=true.
func requestKey(r *http.Request) (apiKey, bool) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return apiKey{}, false
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) > 2 {
		parts = parts[2:] // a namespaced resource; "namespaces/x" alone is the Namespace
	}
	if len(parts) == 0 {
		return apiKey{}, false
	}
	k := apiKey{verb: r.Method, resource: parts[0]}
	if len(parts) >= 3 {
		k.resource += "/" + parts[2]
	}
	if r.Method == http.MethodGet && len(parts) == 1 {
		k.verb = "LIST"
		if r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1" {
			k.verb = "WATCH"
		}
	}
	return k, true
}

// theirs is the API server's counts from before to after, less the bench's own requests
// between own0 and own1.
func theirs(before, after apiCounts, own0, own1 map[apiKey]float64) apiCounts {
	d := after.sub(before)
	for k, v := range own1 {
		d.requests[k] -= v - own0[k]
		if d.requests[k] <= 0 {
			delete(d.requests, k)
		}
	}
	return d
}

// printPer prints counts divided by n, largest first, a few per line; writes first; WATCHes
// (long-running, and restarted whenever the API server or the client likes) are left out.
func printPer(w io.Writer, indent, title string, m map[apiKey]float64, n int) {
	m = maps.Clone(m)
	maps.DeleteFunc(m, func(k apiKey, _ float64) bool { return k.verb == "WATCH" }) // long-running, restarted at will
	var total, writes float64
	for k, v := range m {
		total += v
		if isWrite(k.verb) {
			writes += v
		}
	}
	fmt.Fprintf(w, "%s%s: %.1f requests, %.1f of them writes", indent, title, total/float64(n), writes/float64(n))
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, func(a, b apiKey) int {
		if wa, wb := isWrite(a.verb), isWrite(b.verb); wa != wb {
			if wa {
				return -1
			}
			return 1
		}
		if m[a] != m[b] {
			if m[a] > m[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a.String(), b.String())
	})
	for i, k := range keys {
		if i%5 == 0 {
			fmt.Fprintf(w, "\n%s  ", indent)
		}
		fmt.Fprintf(w, " %s %.1f;", k, m[k]/float64(n))
	}
	fmt.Fprintln(w)
}

func isWrite(verb string) bool {
	switch verb {
	case "POST", "PUT", "PATCH", "DELETE", "APPLY", "DELETECOLLECTION", "CREATE", "UPDATE":
		return true
	}
	return false
}

// indiTraffic sums the INDI counters of the named processes' /metrics.
func (b *bench) indiTraffic(ctx context.Context, names []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, name := range names {
		raw, err := b.rawMetrics(ctx, name)
		if err != nil {
			return nil, err
		}
		samples(raw, func(metric string, _ map[string]string, v float64) {
			if strings.HasPrefix(metric, "liken_indi_") {
				out[strings.TrimSuffix(strings.TrimPrefix(metric, "liken_indi_"), "_total")] += v
			}
		})
	}
	return out, nil
}

// rawMetrics reads a spawned process's /metrics.
func (b *bench) rawMetrics(ctx context.Context, name string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+b.health[name]+"/metrics", nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("read the metrics of %s: %w", name, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return string(raw), err
}

// metrics reads a spawned process's /metrics as name{labels} to value, labels as printed.
func (b *bench) metrics(ctx context.Context, name string) (map[string]float64, error) {
	raw, err := b.rawMetrics(ctx, name)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, line := range strings.Split(raw, "\n") {
		if m := metricLine.FindStringSubmatch(line); m != nil {
			if v, err := strconv.ParseFloat(m[3], 64); err == nil {
				key := m[1]
				if m[2] != "" {
					key += "{" + m[2] + "}"
				}
				out[key] = v
			}
		}
	}
	return out, nil
}

// breakdownOf says where the time of n Persons went, from the histograms of the watcher and
// the worker between two reads of their /metrics: for each step, how often it ran per Person
// and its mean.
func breakdownOf(before, after map[string]map[string]float64, n int) string {
	steps := []struct{ proc, prefix, what string }{
		{"watcher", `workqueue_queue_duration_seconds{name="people"}`, "watcher: a change waiting in its queue (watch delivery to signal)"},
		{"watcher", `workqueue_work_duration_seconds{name="people"}`, "watcher: the signal to Temporal"},
		{"worker", "temporal_workflow_task_schedule_to_start_latency", "worker: workflow task, scheduled to started"},
		{"worker", "temporal_workflow_task_execution_latency", "worker: workflow task, executing"},
		{"worker", "temporal_local_activity_execution_latency", "worker: local activity"},
		{"worker", "temporal_activity_execution_latency", "worker: activity"},
		{"worker", `rest_client_request_duration_seconds{host=`, "worker: API requests"},
	}
	var b strings.Builder
	for _, st := range steps {
		for _, key := range slices.Sorted(maps.Keys(after[st.proc])) {
			base, ok := strings.CutSuffix(key, "_sum")
			labels := ""
			if i := strings.IndexByte(key, '{'); i >= 0 {
				base, ok = strings.CutSuffix(key[:i], "_sum")
				labels = key[i:]
			}
			if !ok || !strings.HasPrefix(base+labels, strings.SplitN(st.prefix, "{", 2)[0]) || !strings.Contains(base+labels, st.prefix) {
				continue
			}
			count := after[st.proc][base+"_count"+labels] - before[st.proc][base+"_count"+labels]
			sum := after[st.proc][key] - before[st.proc][key]
			if count <= 0 {
				continue
			}
			what := st.what
			if l := shortLabels(labels); l != "" {
				what += " " + l
			}
			fmt.Fprintf(&b, "  %s: %.1f per Person, %.1f ms each\n", what, count/float64(n), 1000*sum/count)
		}
	}
	return b.String()
}

// shortLabels drops the labels every series of a process shares.
func shortLabels(labels string) string {
	labels = strings.ReplaceAll(labels, `activity_type="none",`, "")
	for _, drop := range []string{"namespace", "task_queue", "host", "client_name", "worker_type", "name"} {
		labels = regexp.MustCompile(drop+`="[^"]*",?`).ReplaceAllString(labels, "")
	}
	labels = strings.TrimSuffix(strings.ReplaceAll(labels, ",}", "}"), "{}")
	return labels
}

// processMetrics reads the watcher's and the first worker's /metrics.
func (b *bench) processMetrics(ctx context.Context) (map[string]map[string]float64, error) {
	out := map[string]map[string]float64{}
	for _, name := range []string{"watcher", "worker"} {
		m, err := b.metrics(ctx, name)
		if err != nil {
			return nil, err
		}
		out[name] = m
	}
	return out, nil
}
