// A namespace's inventory as the watcher starts and signals it (ID inventory/<namespace>).
package contract

import "go.temporal.io/sdk/client"

const (
	// InventoryWorkflow is the registered name of Inventory.
	InventoryWorkflow = "Inventory"
	// InventoryChanged is the signal the watcher sends; its payload is a []InventoryChange.
	InventoryChanged = "inventory-changed"
)

// InventoryID is the stable workflow ID of a namespace's inventory.
func InventoryID(namespace string) string { return "inventory/" + namespace }

// InventoryChange is what the watcher saw. The pass reads everything anyway; the fields make
// the history readable in the Temporal UI.
type InventoryChange struct {
	// Object is Kind/name, such as Mount/east, or pod/east-mount.
	Object string `json:"object,omitempty"`
	// Why is the watcher's word for the change: added, updated, deleted, resync, status.
	Why string `json:"why,omitempty"`
}

// InventoryInput starts (or continues) a namespace's inventory; Pending holds the changes a
// run received but did not answer before it continued as new.
type InventoryInput struct {
	Namespace string
	Pending   []InventoryChange `json:",omitempty"`
}

// InventoryWords are a namespace's inventory's words.
func InventoryWords(namespace string) Words {
	return Words{
		Summary: "Status of every observatory resource in namespace " + namespace,
		Details: "Each batch of the watcher's signals is one pass (TakeInventory): it reads the namespace's observatory " +
			"resources and the runner's pods there, and writes each status that changed (phase, Ready, ParentFound, a " +
			"Telescope's and an Observatory's summaries), with an Event per condition transition. The reservations' " +
			"workflows write the rest of each status.\n\n```\nkubectl -n " + namespace + " get observatories,telescopes,mounts,cameras -o wide\n```",
	}
}

// InventoryStartOptions start a namespace's inventory, as the watcher does.
func InventoryStartOptions(queue, namespace string) client.StartWorkflowOptions {
	w := InventoryWords(namespace)
	return client.StartWorkflowOptions{ID: InventoryID(namespace), TaskQueue: queue, StaticSummary: w.Summary, StaticDetails: w.Details}
}
