// Package observatory holds the observatory side's activities: a reservation's bookkeeping
// and steps (pods, Services, claims, INDI, PHD2, power), its procedures and triggers, the
// dome locks, the live devices and the inventory. What it shares with the people side
// (clients, clock, logging, Events, signalling, the status write, create-or-adopt and the
// heartbeat) is in the root package activities; shared.go gives those the observatory's
// names.
package observatory

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
)

// Activities is registered once on the worker; workflows refer to its methods through a nil
// *Activities, as Temporal's samples do.
type Activities struct {
	activities.Clients
	// INDI resolves where an INDI server is reached; nil means ServiceResolver (production).
	INDI INDIResolver
	// PHD2 resolves where a guider's PHD2 event server is reached; nil means
	// GuiderServiceResolver (production). Dev mode sets none: its example has no Guider.
	PHD2 GuiderResolver
	// Empty says which kinds a namespace holds none of, so a server's read skips their
	// LISTs; nil LISTs every kind, as the tests do (the worker sets it).
	Empty EmptyKinds
	// ImageRegistry is where the runner's INDI images are pulled from (kube.InRegistry);
	// empty means the release's, kube.ImageRegistry (the worker's --image-registry).
	ImageRegistry string
}

var logFor = activities.LogFor

func (a *Activities) now() time.Time { return activities.Now(&a.Clients) }

func (a *Activities) instance() string { return activities.ReportingInstance(&a.Clients) }

// postObsEvent posts an Event about an observatory object; a failure is logged, as the status
// it reports on is written already.
func (a *Activities) postObsEvent(ctx context.Context, id kube.ResourceID, e kube.Event) {
	if err := a.postObjectEvent(ctx, kube.ObjectEvent(id, e, a.instance(), a.now())); err != nil {
		logFor(ctx).Warn("an Event could not be posted", "object", id.String(), "namespace", id.Namespace,
			"reason", e.Reason, "err", err)
	}
}

func (a *Activities) postObjectEvent(ctx context.Context, ev *corev1.Event) error {
	return activities.PostOrCount(ctx, &a.Clients, ev, observatoryFieldManager)
}
