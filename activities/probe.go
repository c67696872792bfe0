// The one activity of the Probe workflow, on a struct of its own: it belongs to neither
// domain, and a method on Clients would be registered once per domain that embeds them.
package activities

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
)

// Probe is registered once on the worker beside the domains' activities.
type Probe struct {
	Kube kubernetes.Interface
}

// KubernetesVersion returns the version of the API server the worker talks to. The Probe
// workflow uses it to prove that a worker, its Temporal task queue and its cluster are wired.
func (p *Probe) KubernetesVersion(ctx context.Context) (string, error) {
	v, err := p.Kube.Discovery().ServerVersion()
	if err != nil {
		return "", fmt.Errorf("ask the API server for its version: %w", err)
	}
	return v.GitVersion, nil
}
