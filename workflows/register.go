// Registration of every workflow and activity under its stable name. Never rename a
// registered name: histories in flight refer to it.
package workflows

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities"
)

// RegisterWorkflows registers every workflow; a replayer needs only these.
func RegisterWorkflows(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(Probe, workflow.RegisterOptions{Name: ProbeWorkflow})
	r.RegisterWorkflowWithOptions(Person, workflow.RegisterOptions{Name: PersonWorkflow})
	r.RegisterWorkflowWithOptions(People, workflow.RegisterOptions{Name: PeopleWorkflow})
	r.RegisterWorkflowWithOptions(Reservation, workflow.RegisterOptions{Name: ReservationWorkflow})
	r.RegisterWorkflowWithOptions(Telescope, workflow.RegisterOptions{Name: TelescopeWorkflow})
	r.RegisterWorkflowWithOptions(Observatory, workflow.RegisterOptions{Name: ObservatoryWorkflow})
	r.RegisterWorkflowWithOptions(Inventory, workflow.RegisterOptions{Name: InventoryWorkflow})
}

// Register puts every workflow and activity on a worker.
func Register(w worker.Registry, acts *activities.Activities) {
	RegisterWorkflows(w)
	w.RegisterActivity(acts)
}
