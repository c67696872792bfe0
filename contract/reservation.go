// A Reservation's workflow, as the watcher starts and signals it (ID reservation/<ns>/<name>),
// and the search attributes it keeps up to date.
package contract

import (
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const (
	// ReservationWorkflow is the registered name of Reservation.
	ReservationWorkflow = "Reservation"
	// ReservationChanged is the signal the watcher sends; its payload is a ReservationChange.
	ReservationChanged = "reservation-changed"
	// ReservationStatusQuery answers with the status as the workflow last composed it.
	ReservationStatusQuery = "status"
)

// ReservationID is the stable workflow ID of a Reservation's lifecycle.
func ReservationID(namespace, name string) string {
	return "reservation/" + namespace + "/" + name
}

// WhyAdded and WhyUpdated are the watcher's words for a change of the Reservation itself:
// created, or its spec, its retry annotation or its delete.
const (
	WhyAdded   = "added"
	WhyUpdated = "updated"
)

// WhyCondition is the word of a ReservationChanged signal that says a condition of a
// resource the reservation holds may have changed (from the device observer): the triggers
// look again, and nothing else does.
const WhyCondition = "condition"

// ReservationChange is what the watcher saw. The workflow reads the Reservation again anyway;
// the fields make the history readable in the Temporal UI.
type ReservationChange struct {
	UID        string `json:"uid,omitempty"`
	Generation int64  `json:"generation,omitempty"`
	// Retry is the value of the retry annotation.
	Retry              string `json:"retry,omitempty"`
	Deleted            bool   `json:"deleted,omitempty"`
	TelescopeDeleted   bool   `json:"telescopeDeleted,omitempty"`
	ObservatoryDeleted bool   `json:"observatoryDeleted,omitempty"`
	// Why is the watcher's word for the change: added, updated, deleted, telescope,
	// observatory, resync.
	Why string `json:"why,omitempty"`
	// Safety is what the site guard did while the runner was away, in its words: the observer
	// sends it with a condition's change, so the reservation's history keeps it.
	Safety string `json:"safety,omitempty"`
}

// ReservationInput starts (or continues) a Reservation's workflow. A continued run needs
// nothing else: it resumes from the status the previous run wrote.
type ReservationInput struct {
	Namespace string
	Name      string
}

// The search attributes a reservation keeps up to date, so the Temporal UI can list the
// reservations of a telescope or a holder, or those in a phase or a step. They must be
// registered on the server: SearchAttributes lists them for `make run` and deploy/temporal.
var (
	SearchTelescope = temporal.NewSearchAttributeKeyKeyword("Telescope")
	SearchHolder    = temporal.NewSearchAttributeKeyKeyword("Holder")
	SearchPhase     = temporal.NewSearchAttributeKeyKeyword("Phase")
	SearchStep      = temporal.NewSearchAttributeKeyKeyword("Step")
)

// SearchAttributes names each search attribute the workflows use and its type, as
// `temporal operator search-attribute create` and the dev server's --search-attribute take them.
var SearchAttributes = keywords(SearchTelescope, SearchHolder, SearchPhase, SearchStep)

// keywords names each key's type, Keyword, by its name.
func keywords(keys ...temporal.SearchAttributeKeyKeyword) map[string]string {
	out := map[string]string{}
	for _, k := range keys {
		out[k.GetName()] = "Keyword"
	}
	return out
}

// ReservationWords are a Reservation's workflow's words: who holds which telescope, when.
func ReservationWords(namespace, name string, spec obsv1.ReservationSpec) Words {
	holder := spec.Holder
	if holder == "" {
		holder = "nobody yet"
	}
	return Words{
		Summary: fmt.Sprintf("Reservation %s: Telescope %s for %s, %s", name, spec.Telescope, holder, Window(spec.Start, spec.End)),
		Details: fmt.Sprintf("The lifecycle of the Reservation `%s/%s` of the Telescope `%s`: Wait, the activation steps, "+
			"Ready until its end or its delete, then the deactivation steps. Its status shows each step:\n\n%s",
			namespace, name, spec.Telescope, Kubectl(namespace, "reservation", name)),
	}
}

// ReservationStartOptions start a Reservation's workflow, as the watcher does: its words, and
// the search attributes it is listed by from its first moment (the workflow keeps them up
// to date).
func ReservationStartOptions(queue, namespace, name string, spec obsv1.ReservationSpec) client.StartWorkflowOptions {
	w := ReservationWords(namespace, name, spec)
	var sa []temporal.SearchAttributeUpdate
	if spec.Telescope != "" {
		sa = append(sa, SearchTelescope.ValueSet(spec.Telescope))
	}
	if spec.Holder != "" {
		sa = append(sa, SearchHolder.ValueSet(spec.Holder))
	}
	return client.StartWorkflowOptions{
		ID: ReservationID(namespace, name), TaskQueue: queue,
		StaticSummary: w.Summary, StaticDetails: w.Details, TypedSearchAttributes: temporal.NewSearchAttributes(sa...),
	}
}
