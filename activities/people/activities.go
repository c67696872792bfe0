// Package people holds the people side's activities: the quick pass over a Person, the bake
// of nfs:// and claim:// pictures in baker pods, the paint of many people at once, and the
// signals to each Person's workflow. What it shares with the observatory (clients, clock,
// logging, Events, signalling, the status write, create-or-adopt, the heartbeat) is in the
// root package activities.
package people

import (
	"context"
	"net/http"
	"time"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// Activities is registered once on the worker; workflows refer to its methods through a nil
// *Activities, as Temporal's samples do.
type Activities struct {
	activities.Clients
	// HTTP fetches http(s) pictures; nil means a client with FetchTimeout.
	HTTP *http.Client
	// People configures the people side (baker image, namespaces, deadline).
	People Config
}

var logFor = activities.LogFor

func (a *Activities) now() time.Time { return activities.Now(&a.Clients) }

func (a *Activities) instance() string { return activities.ReportingInstance(&a.Clients) }

// postEvent posts an Event about the Person, or counts a repeat of it.
func (a *Activities) postEvent(ctx context.Context, p *peoplev1.Person, e kube.Event) error {
	ev := kube.PersonEvent(p.Name, p.UID, e, a.people().EventNamespace, a.instance(), a.now())
	return activities.PostOrCount(ctx, &a.Clients, ev, fieldManager)
}
