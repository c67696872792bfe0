// Package metrics is the processes' Prometheus metrics, served at /metrics: the Temporal
// SDK's own (workflow and activity latency, task queue schedule-to-start lag, poller and
// sticky cache figures), client-go's requests to the API server (latency and result by verb),
// the watcher's work queues (depth, time waiting in the queue, retries), the worker's INDI
// traffic, Go's runtime, and which build the process is (liken_build_info).
package metrics

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.temporal.io/sdk/client"
	clientmetrics "k8s.io/client-go/tools/metrics"
	"k8s.io/client-go/util/workqueue"

	"liken.sh/runner/internal/version"
)

// Registry is one process's metrics.
type Registry struct {
	*prometheus.Registry
	// sdk holds the Temporal SDK's metric families, shared by every handler of the registry.
	sdk *families
}

// New makes a registry with Go's runtime and process collectors and the build's info.
func New() *Registry {
	r := prometheus.NewRegistry()
	r.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(version.Get()))
	return &Registry{Registry: r, sdk: &families{reg: r, byName: map[string]*family{}}}
}

// buildInfo is always 1: its labels carry the build, so a dashboard can count the versions
// running during a rollout and join them onto any other metric.
func buildInfo(v version.Info) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "liken_build_info", Help: "The build of this process, in its labels; always 1.",
		ConstLabels: prometheus.Labels{"version": v.Version, "revision": v.Revision, "goversion": v.GoVersion},
	})
	g.Set(1)
	return g
}

// Handler serves the registry in Prometheus' text format.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.Registry, promhttp.HandlerOpts{Registry: r.Registry})
}

// latencyBuckets cover a local activity (a millisecond) to a baker pod or a Job (minutes).
var latencyBuckets = prometheus.ExponentialBuckets(0.001, 2, 18)

var kubeOnce sync.Once

// Kubernetes registers client-go's request metrics and the work queues' metrics on r. client-go
// keeps them in process-wide variables, so only the first registry of a process gets them.
func (r *Registry) Kubernetes() {
	kubeOnce.Do(func() {
		latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "rest_client_request_duration_seconds", Help: "Latency of requests to the API server, by verb and host.",
			Buckets: latencyBuckets,
		}, []string{"verb", "host"})
		results := prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rest_client_requests_total", Help: "Requests to the API server, by status code, method and host.",
		}, []string{"code", "method", "host"})
		r.MustRegister(latency, results)
		clientmetrics.Register(clientmetrics.RegisterOpts{
			RequestLatency: latencyFunc(func(verb string, u url.URL, d time.Duration) {
				latency.WithLabelValues(verb, u.Host).Observe(d.Seconds())
			}),
			RequestResult: resultFunc(func(code, method, host string) { results.WithLabelValues(code, method, host).Inc() }),
		})
		workqueue.SetProvider(newQueueMetrics(r))
	})
}

type latencyFunc func(verb string, u url.URL, d time.Duration)

func (f latencyFunc) Observe(_ context.Context, verb string, u url.URL, d time.Duration) {
	f(verb, u, d)
}

type resultFunc func(code, method, host string)

func (f resultFunc) Increment(_ context.Context, code, method, host string) { f(code, method, host) }

// queueMetrics is client-go's work queue metrics, by queue name ("people", "reservations").
type queueMetrics struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	wait, work                 *prometheus.HistogramVec
}

func newQueueMetrics(reg prometheus.Registerer) *queueMetrics {
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "workqueue_" + name, Help: help}, []string{"name"})
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_" + name, Help: help}, []string{"name"})
	}
	histogram := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_" + name, Help: help, Buckets: latencyBuckets}, []string{"name"})
	}
	m := &queueMetrics{
		depth:      gauge("depth", "Changes waiting to be signalled."),
		unfinished: gauge("unfinished_work_seconds", "Seconds of signalling in progress that has not finished."),
		longest:    gauge("longest_running_processor_seconds", "Seconds the longest signal in progress has run."),
		adds:       counter("adds_total", "Changes queued."),
		retries:    counter("retries_total", "Signals tried again after a failure."),
		wait:       histogram("queue_duration_seconds", "Seconds a change waited in the queue before its signal: the watcher's lag."),
		work:       histogram("work_duration_seconds", "Seconds one signal took."),
	}
	reg.MustRegister(m.depth, m.unfinished, m.longest, m.adds, m.retries, m.wait, m.work)
	return m
}

func (m *queueMetrics) NewDepthMetric(n string) workqueue.GaugeMetric {
	return m.depth.WithLabelValues(n)
}
func (m *queueMetrics) NewAddsMetric(n string) workqueue.CounterMetric {
	return m.adds.WithLabelValues(n)
}
func (m *queueMetrics) NewLatencyMetric(n string) workqueue.HistogramMetric {
	return m.wait.WithLabelValues(n)
}
func (m *queueMetrics) NewWorkDurationMetric(n string) workqueue.HistogramMetric {
	return m.work.WithLabelValues(n)
}
func (m *queueMetrics) NewUnfinishedWorkSecondsMetric(n string) workqueue.SettableGaugeMetric {
	return m.unfinished.WithLabelValues(n)
}
func (m *queueMetrics) NewLongestRunningProcessorSecondsMetric(n string) workqueue.SettableGaugeMetric {
	return m.longest.WithLabelValues(n)
}
func (m *queueMetrics) NewRetriesMetric(n string) workqueue.CounterMetric {
	return m.retries.WithLabelValues(n)
}

// Temporal is a Temporal SDK metrics handler that records into r (client.Options.MetricsHandler).
func (r *Registry) Temporal() client.MetricsHandler {
	return &temporalHandler{families: r.sdk}
}

// temporalHandler adapts the SDK's handler (names plus free-form tags) to Prometheus, whose
// metric families have fixed label names: a family takes the tag names of its first use;
// a later use fills the names it lacks with "" and drops tags the family does not have, so a
// metric is never refused.
type temporalHandler struct {
	families *families
	tags     map[string]string
}

type families struct {
	reg    prometheus.Registerer
	mu     sync.Mutex
	byName map[string]*family
}

type family struct {
	labels []string
	vec    any // *prometheus.CounterVec, *prometheus.GaugeVec or *prometheus.HistogramVec
}

func (h *temporalHandler) WithTags(tags map[string]string) client.MetricsHandler {
	merged := make(map[string]string, len(h.tags)+len(tags))
	for k, v := range h.tags {
		merged[k] = v
	}
	for k, v := range tags {
		merged[k] = v
	}
	return &temporalHandler{families: h.families, tags: merged}
}

func (h *temporalHandler) Counter(name string) client.MetricsCounter {
	vec, labels := h.families.get(name, h.tags, func(labels []string) any {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: "Temporal SDK: " + name}, labels)
	})
	c := vec.(*prometheus.CounterVec).WithLabelValues(values(labels, h.tags)...)
	return counterFunc(func(n int64) { c.Add(float64(n)) })
}

func (h *temporalHandler) Gauge(name string) client.MetricsGauge {
	vec, labels := h.families.get(name, h.tags, func(labels []string) any {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: "Temporal SDK: " + name}, labels)
	})
	g := vec.(*prometheus.GaugeVec).WithLabelValues(values(labels, h.tags)...)
	return gaugeFunc(g.Set)
}

func (h *temporalHandler) Timer(name string) client.MetricsTimer {
	// The SDK names its timers *_latency; Prometheus' convention is seconds.
	vec, labels := h.families.get(name+"_seconds", h.tags, func(labels []string) any {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name + "_seconds", Help: "Temporal SDK: " + name,
			Buckets: latencyBuckets}, labels)
	})
	o := vec.(*prometheus.HistogramVec).WithLabelValues(values(labels, h.tags)...)
	return timerFunc(func(d time.Duration) { o.Observe(d.Seconds()) })
}

// get returns the family name, registering it with tags' names on first use.
func (f *families) get(name string, tags map[string]string, newVec func(labels []string) any) (any, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fam, ok := f.byName[name]; ok {
		return fam.vec, fam.labels
	}
	labels := make([]string, 0, len(tags))
	for k := range tags {
		labels = append(labels, k)
	}
	sort.Strings(labels)
	fam := &family{labels: labels, vec: newVec(labels)}
	f.reg.MustRegister(fam.vec.(prometheus.Collector))
	f.byName[name] = fam
	return fam.vec, labels
}

func values(labels []string, tags map[string]string) []string {
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = tags[l]
	}
	return out
}

type counterFunc func(int64)

func (f counterFunc) Inc(n int64) { f(n) }

type gaugeFunc func(float64)

func (f gaugeFunc) Update(v float64) { f(v) }

type timerFunc func(time.Duration)

func (f timerFunc) Record(d time.Duration) { f(d) }
