// Posting the Events about a Person, in the Event namespace (default): core/v1 Events about a
// cluster-scoped object live there.
package activities

import (
	"context"

	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// postEvent posts an Event about the Person, or counts a repeat of it.
func (a *Activities) postEvent(ctx context.Context, p *peoplev1.Person, e kube.Event) error {
	cfg := a.people()
	instance := cfg.Instance
	if instance == "" {
		instance = hostname()
	}
	return a.postOrCount(ctx, kube.PersonEvent(p.Name, p.UID, e, cfg.EventNamespace, instance, a.now()), fieldManager)
}
