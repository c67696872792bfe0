// Registered names are what recorded and running histories refer to: a workflow or an
// activity whose name disappears leaves every run that named it stuck on its next task.
// This test lists them as they were registered when the list was written; a new name is
// welcome, a missing one fails.
package workflows

import (
	"reflect"
	"slices"
	"testing"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities"
	"liken.sh/runner/contract"
)

// registeredNames is every name Register put on a worker: the workflows, and the activities
// (the exported methods of the structs in Activities, which RegisterActivity registers by name).
var registeredNames = []string{
	contract.ProbeWorkflow, contract.PersonWorkflow, contract.PeopleShardWorkflow, contract.ReservationWorkflow, contract.TelescopeLockWorkflow, contract.SiteTurnsWorkflow, contract.InventoryWorkflow,
	"Abort", "Activation", "AddDeactivateFinalizer", "BakePerson", "Configure", "Connect", "Deactivation", "Disconnect",
	"ForgetPerson", "KubernetesVersion", "ObserveDevices", "PaintPeople", "PowerOff", "PowerOn",
	"ReadReservation", "RemoveDeactivateFinalizer", "RemoveRetryAnnotation", "RunTriggers", "SignalCoordinator",
	"SignalWorkflows", "StartDevices", "StartGuider", "StartSite", "StopDevices", "StopGuider", "StopSite", "SyncPerson",
	"TakeInventory", "WriteReservationStatus", "GrantAccess", "RevokeAccess",
	// The parts of a live plan (reservation_live.go).
	"PlanLiveDevices", "LeaveDevice", "RefuseDevices", "StartLiveDevices", "RestartGuider", "ConnectLiveDevices", "ActivateDevice",
}

func TestNoRegisteredWorkflowOrActivityNameDisappears(t *testing.T) {
	got := &names{}
	Register(got, ActivitiesOn(activities.Clients{}))
	for _, name := range registeredNames {
		if !slices.Contains(got.names, name) {
			t.Errorf("%s is no longer registered: the histories that name it can no longer run", name)
		}
	}
	for _, step := range workingSteps {
		if !slices.Contains(got.names, step) {
			t.Errorf("the step %s has no activity of its name", step)
		}
	}
}

// names is a worker.Registry that writes down the names registered, as the SDK names them.
type names struct {
	worker.Registry
	names    []string
	behavior map[string]workflow.VersioningBehavior
}

func (n *names) RegisterWorkflowWithOptions(_ any, o workflow.RegisterOptions) {
	n.names = append(n.names, o.Name)
	if n.behavior == nil {
		n.behavior = map[string]workflow.VersioningBehavior{}
	}
	n.behavior[o.Name] = o.VersioningBehavior
}

// A night ends on the build that started it; every other workflow lives on across builds and
// moves to the current one (internal/rollout).
func TestAReservationIsPinnedToItsBuildAndEveryOtherWorkflowUpgrades(t *testing.T) {
	got := &names{}
	RegisterWorkflows(got)
	for name, b := range got.behavior {
		want := workflow.VersioningBehaviorAutoUpgrade
		if name == contract.ReservationWorkflow {
			want = workflow.VersioningBehaviorPinned
		}
		if b != want {
			t.Errorf("%s is registered with versioning behavior %v, want %v", name, b, want)
		}
	}
}

func (n *names) RegisterActivity(a any) {
	t := reflect.TypeOf(a)
	for i := range t.NumMethod() {
		n.names = append(n.names, t.Method(i).Name)
	}
}

func (n *names) RegisterActivityWithOptions(_ any, o activity.RegisterOptions) {
	n.names = append(n.names, o.Name)
}
