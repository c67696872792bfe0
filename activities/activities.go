// Package activities holds every side effect of the workflows: calls to the Kubernetes API,
// picture reads and INDI conversations. Activities are methods on one struct whose clients are
// injected, so the worker wires real clients and tests wire the local stack. Each activity is
// idempotent: a retry after a crash does the same work again without doubling it.
package activities

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Activities is registered once on the worker; workflows refer to its methods through a nil
// *Activities, as Temporal's samples do.
type Activities struct {
	Kube kubernetes.Interface
	// Dynamic reaches the custom resources (people, the observatory kinds), read into their Go types.
	Dynamic dynamic.Interface
	// HTTP fetches http(s) pictures; nil means a client with the spec's 15 s timeout.
	HTTP *http.Client
	// Temporal signals the coordinating workflows (a telescope's, an observatory's), which a
	// workflow cannot start itself: SignalWithStart is a client call.
	Temporal client.Client
	// INDI resolves where an INDI server is reached; nil means ServiceResolver (production).
	INDI INDIResolver
	// PHD2 resolves where a guider's PHD2 event server is reached; nil means
	// GuiderServiceResolver (production). Dev mode sets none: its example has no Guider.
	PHD2 GuiderResolver
	// People configures the people side (baker image, namespaces, deadline).
	People PeopleConfig
	// Now is the clock, injected so tests can fix it.
	Now func() time.Time
}

// KubernetesVersion returns the version of the API server the worker talks to. The Probe
// workflow uses it to prove that a worker, its Temporal task queue and its cluster are wired.
func (a *Activities) KubernetesVersion(ctx context.Context) (string, error) {
	v, err := a.Kube.Discovery().ServerVersion()
	if err != nil {
		return "", fmt.Errorf("ask the API server for its version: %w", err)
	}
	return v.GitVersion, nil
}
