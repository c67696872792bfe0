// Registration of every workflow and activity under its stable name. Never rename a
// registered name: histories in flight refer to it.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/activities/people"
	"liken.sh/runner/contract"
)

// RegisterWorkflows registers every workflow; a replayer needs only these. A Reservation is
// Pinned: a night ends on the build that started it, so a change to it needs no patch. The
// long-lived workflows (each Person, the shards, the telescopes' locks, the sites' turns, the
// inventories) and the Probe move to each new current build (AutoUpgrade): a change to them
// must keep every release's histories replaying (docs/development.md).
func RegisterWorkflows(r worker.WorkflowRegistry) {
	upgrade := func(fn any, name string) {
		r.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: name, VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade})
	}
	upgrade(Probe, contract.ProbeWorkflow)
	upgrade(Person, contract.PersonWorkflow)
	upgrade(PeopleShard, contract.PeopleShardWorkflow)
	r.RegisterWorkflowWithOptions(Reservation, workflow.RegisterOptions{Name: contract.ReservationWorkflow,
		VersioningBehavior: workflow.VersioningBehaviorPinned})
	upgrade(TelescopeLock, contract.TelescopeLockWorkflow)
	upgrade(SiteTurns, contract.SiteTurnsWorkflow)
	upgrade(Inventory, contract.InventoryWorkflow)
}

// backOff retries an activity until it succeeds or its timeout ends: from a second, doubling,
// up to every 30 s. A step's retry (stepRetry) and a Person's pass add their own limits.
var backOff = &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second}

// The activities, one nil pointer per registered struct: workflows refer to an activity by
// its method (observatoryActs.StartSite), as Temporal's samples do, and the SDK schedules it
// by the method's name.
var (
	probeActs       *activities.Probe
	peopleActs      *people.Activities
	observatoryActs *observatory.Activities
)

// Activities are the structs whose exported methods the worker registers as activities: the
// Probe's and one per domain. No name is on two of them (activities/registered_test.go).
type Activities struct {
	Probe       *activities.Probe
	People      *people.Activities
	Observatory *observatory.Activities
}

// ActivitiesOn wires the activities of every domain to the clients c, each domain with its
// defaults; the caller sets what differs (the people's config, an INDI resolver).
func ActivitiesOn(c activities.Clients) Activities {
	return Activities{Probe: &activities.Probe{Kube: c.Kube}, People: &people.Activities{Clients: c},
		Observatory: &observatory.Activities{Clients: c}}
}

// Register puts every workflow and activity on a worker.
func Register(w worker.Registry, acts Activities) {
	RegisterWorkflows(w)
	w.RegisterActivity(acts.Probe)
	w.RegisterActivity(acts.People)
	w.RegisterActivity(acts.Observatory)
}
