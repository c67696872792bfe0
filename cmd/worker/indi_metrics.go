// The worker's INDI traffic as metrics. It lives with the worker, not in internal/metrics,
// because only the worker speaks INDI: the watcher, which shares internal/metrics, must not
// link the INDI client.
package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"liken.sh/runner/indi"
	"liken.sh/runner/internal/metrics"
)

// registerINDITraffic registers the process's INDI traffic (indi.Totals): connections made,
// writes and messages received, over every client.
func registerINDITraffic(r *metrics.Registry) {
	counter := func(name, help string, f func(indi.Traffic) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "liken_indi_" + name, Help: help},
			func() float64 { return float64(f(indi.Totals())) })
	}
	r.MustRegister(
		counter("connections_total", "Connections made to INDI servers.", func(t indi.Traffic) uint64 { return t.Connections }),
		counter("writes_total", "Writes to INDI servers: a request or a vector each.", func(t indi.Traffic) uint64 { return t.Written }),
		counter("messages_received_total", "Messages read from INDI servers: definitions, updates, messages.", func(t indi.Traffic) uint64 { return t.Received }),
	)
}
