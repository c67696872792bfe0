// Package activities holds every side effect of the workflows: calls to the Kubernetes API,
// picture reads and INDI conversations. It is split by domain: package people holds the
// people side's activities, package observatory the observatory's, and this root what both
// really share: the clients, the clock, this worker's name in Events, logging, posting an
// Event, signalling another workflow, and the one way each of writing a status
// (status_write.go), creating or adopting an object of a fixed name (create_or_adopt.go) and
// heartbeating (heartbeat.go). Probe holds the one activity of the Probe workflow.
//
// Activities are methods on a struct per domain whose clients are injected, so the worker
// wires real clients and tests wire the local stack. Each activity is idempotent: a retry
// after a crash does the same work again without doubling it.
package activities

import (
	"os"
	"time"

	"go.temporal.io/sdk/client"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Clients are what the activities of both domains reach the world with. Each domain's struct
// embeds them, and Temporal registers every exported method of a registered struct as an
// activity, so Clients has no exported methods: what works on them is a function here.
type Clients struct {
	Kube kubernetes.Interface
	// Dynamic reaches the custom resources (people, the observatory kinds), read into their Go types.
	Dynamic dynamic.Interface
	// Temporal signals other workflows (a telescope's, an observatory's, a Person's), which a
	// workflow cannot start itself: SignalWithStart is a client call.
	Temporal client.Client
	// Instance names this worker in Events (reportingInstance): its pod's name; empty means
	// the host's name.
	Instance string
	// Now is the clock, injected so tests can fix it; nil means time.Now.
	Now func() time.Time
}

// Now is the time on the clients' clock.
func Now(c *Clients) time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// ReportingInstance names this worker in Events.
func ReportingInstance(c *Clients) string {
	if c.Instance != "" {
		return c.Instance
	}
	h, _ := os.Hostname()
	return h
}
