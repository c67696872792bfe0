// Inventory keeps the status of every observatory resource of one namespace true, outside
// reservations as well as during them, as one small entity workflow per namespace (ID
// inventory/<namespace>). The watcher signals it at every create, delete and spec change of
// an observatory resource there, when what one status shows of another changes (a device's
// or a reservation's phase, a Guider's state, a Ready condition, a device's finalizer), and
// when one of the runner's pods there comes, goes or lands on a node. A signal only means
// "look again": the workflow answers each batch of signals (those of a second from the first)
// with one pass (TakeInventory), which reads the namespace, composes every status with the pure functions of
// kube/inventory*.go and writes only what changed. Signals that arrive during a pass are
// answered by the next one.
//
// The inventory writes only its own fields (kube/inventory.go lists them); the reservations'
// workflows write the rest, so the two never undo each other. A run continues as new before
// its history grows large, and ends when a pass finds the namespace empty; the next signal
// starts it again.
package workflows

import (
	"strconv"
	"time"

	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
)

// takeInventory runs a pass. It is retried until it lands (its writes are idempotent), with
// back-off, so an API server that is away delays the statuses and loses none.
var takeInventory = workflow.ActivityOptions{
	StartToCloseTimeout: 2 * time.Minute,
	HeartbeatTimeout:    30 * time.Second,
	RetryPolicy:         backOff,
}

// inventoryGather is how long a pass waits after the first signal of its batch, so the
// changes of a burst (kubectl apply of a whole site) are read in one pass, and a resource is
// not reported missing for the moment its parent is still being created. A variable for tests.
var inventoryGather = time.Second

// A run continues as new when Temporal suggests it, when its history passes
// inventoryHistoryLimit events (a pass is about seven), or after inventoryPassLimit passes
// (the count the test environment can check). Variables for tests.
var (
	inventoryHistoryLimit = 2000
	inventoryPassLimit    = 250
)

// inventoryChangesShown bounds the changes a pass's input names, so a burst of hundreds keeps
// the history small; the pass reads everything anyway.
const inventoryChangesShown = 20

// Inventory runs one namespace's inventory until it continues as new or finds the namespace
// empty.
func Inventory(ctx workflow.Context, in contract.InventoryInput) error {
	log := workflow.GetLogger(ctx)
	signals := workflow.GetSignalChannel(ctx, contract.InventoryChanged)
	pending := in.Pending
	passes := 0
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(signals, func(c workflow.ReceiveChannel, _ bool) {
		var batch []contract.InventoryChange
		c.Receive(ctx, &batch)
		pending = append(pending, batch...)
	})
	// An inventory cancelled by hand ends; the watcher's next signal starts it again.
	sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
	for {
		pending = receiveAll(signals, pending)
		if info := workflow.GetInfo(ctx); info.GetContinueAsNewSuggested() ||
			info.GetCurrentHistoryLength() > inventoryHistoryLimit || passes >= inventoryPassLimit {
			return workflow.NewContinueAsNewError(ctx, Inventory, contract.InventoryInput{Namespace: in.Namespace, Pending: pending})
		}
		if len(pending) == 0 {
			sel.Select(ctx)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		gather := workflow.NewTimerWithOptions(ctx, inventoryGather,
			workflow.TimerOptions{Summary: "gather the changes of " + kube.ShortDuration(inventoryGather) + " into one pass"})
		if err := gather.Get(ctx, nil); err != nil {
			return err // cancelled
		}
		pending = receiveAll(signals, pending)
		opts := takeInventory
		opts.Summary = "Compose and write the statuses of namespace " + in.Namespace + " (" + strconv.Itoa(len(pending)) + " changes)"
		var res observatory.InventoryResult
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), observatoryActs.TakeInventory,
			observatory.InventoryInput{Namespace: in.Namespace, Changes: changeWords(pending)}).Get(ctx, &res)
		pending = nil
		passes++
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			log.Warn("an inventory pass failed; the next change runs another", "namespace", in.Namespace, "err", err)
			continue
		}
		if res.Empty {
			// A change that came during the pass is answered before the run ends.
			if pending = receiveAll(signals, pending); len(pending) == 0 {
				log.Info("the namespace holds no observatory resource; its inventory ends", "namespace", in.Namespace)
				return nil
			}
		}
	}
}

// changeWords names at most inventoryChangesShown changes, each once: "Mount/east updated".
func changeWords(changes []contract.InventoryChange) []string {
	seen := map[contract.InventoryChange]bool{}
	var out []string
	for _, c := range changes {
		if seen[c] {
			continue
		}
		seen[c] = true
		if len(out) == inventoryChangesShown {
			out = append(out, "and more")
			break
		}
		out = append(out, c.Object+" "+c.Why)
	}
	return out
}
