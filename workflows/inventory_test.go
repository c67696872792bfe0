// The Inventory workflow against fake activities: one pass per batch of signals, retries,
// the end of an empty namespace and continue-as-new with what it has not answered.
package workflows

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/test/testenv"
)

// fakeInventory stands in for TakeInventory: it records each pass's changes, and says the
// namespace is empty from the pass numbered emptyFrom on (0: never), or fails the first ones.
type fakeInventory struct {
	emptyFrom int
	failFirst int

	mu     sync.Mutex
	passes [][]string
	tries  int
}

func (f *fakeInventory) take(_ context.Context, in observatory.InventoryInput) (observatory.InventoryResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if f.tries <= f.failFirst {
		return observatory.InventoryResult{}, errors.New("the API server is away")
	}
	f.passes = append(f.passes, in.Changes)
	return observatory.InventoryResult{Objects: 3, Empty: f.emptyFrom > 0 && len(f.passes) >= f.emptyFrom}, nil
}

func newInventoryEnv(t *testing.T, f *fakeInventory) *testsuite.TestWorkflowEnvironment {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Inventory, workflow.RegisterOptions{Name: contract.InventoryWorkflow})
	env.OnActivity(observatoryActs.TakeInventory, mock.Anything, mock.Anything).Return(f.take).Maybe()
	return env
}

func inventorySignal(env *testsuite.TestWorkflowEnvironment, after time.Duration, changes ...contract.InventoryChange) {
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(contract.InventoryChanged, changes) }, after)
}

func TestAnInventoryAnswersEachBatchOfSignalsWithOnePass(t *testing.T) {
	f := &fakeInventory{}
	env := newInventoryEnv(t, f)
	mount := contract.InventoryChange{Object: "Mount/east", Why: "updated"}
	inventorySignal(env, time.Minute, mount, contract.InventoryChange{Object: "Dome/lab", Why: "added"}, mount)
	inventorySignal(env, 2*time.Minute, contract.InventoryChange{Object: "pod/east-mount", Why: "deleted"})
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)

	env.ExecuteWorkflow(Inventory, contract.InventoryInput{Namespace: "observatory"})
	require.True(t, env.IsWorkflowCompleted())
	require.Equal(t, [][]string{{"Mount/east updated", "Dome/lab added"}, {"pod/east-mount deleted"}}, f.passes,
		"one pass per batch, each change named once")
}

func TestTheSignalsOfABurstAreAnsweredByOnePass(t *testing.T) {
	f := &fakeInventory{}
	env := newInventoryEnv(t, f)
	inventorySignal(env, time.Minute, contract.InventoryChange{Object: "OpticalTrain/side", Why: "added"})
	inventorySignal(env, time.Minute+500*time.Millisecond, contract.InventoryChange{Object: "Camera/far", Why: "added"})
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)

	env.ExecuteWorkflow(Inventory, contract.InventoryInput{Namespace: "observatory"})
	require.True(t, env.IsWorkflowCompleted())
	require.Equal(t, [][]string{{"OpticalTrain/side added", "Camera/far added"}}, f.passes,
		"a camera created just after its train is not missing it for a pass")
}

func TestAnInventoryPassThatFailsIsRetriedUntilItLands(t *testing.T) {
	f := &fakeInventory{failFirst: 3}
	env := newInventoryEnv(t, f)
	inventorySignal(env, time.Minute, contract.InventoryChange{Object: "Mount/east", Why: "added"})
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)

	env.ExecuteWorkflow(Inventory, contract.InventoryInput{Namespace: "observatory"})
	require.True(t, env.IsWorkflowCompleted())
	require.Equal(t, [][]string{{"Mount/east added"}}, f.passes)
	require.Equal(t, 4, f.tries)
}

func TestAnInventoryEndsWhenItsNamespaceIsEmpty(t *testing.T) {
	f := &fakeInventory{emptyFrom: 2}
	env := newInventoryEnv(t, f)
	inventorySignal(env, time.Minute, contract.InventoryChange{Object: "Mount/east", Why: "deleted"})

	env.ExecuteWorkflow(Inventory, contract.InventoryInput{Namespace: "observatory", Pending: []contract.InventoryChange{{Object: "Dome/lab", Why: "deleted"}}})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "it ended by itself")
	require.Len(t, f.passes, 2)
}

func TestAnInventoryContinuesAsNewWithTheChangesItHasNotAnswered(t *testing.T) {
	defer func(n int) { inventoryPassLimit = n }(inventoryPassLimit)
	inventoryPassLimit = 1
	f := &fakeInventory{}
	env := newInventoryEnv(t, f)
	env.ExecuteWorkflow(Inventory, contract.InventoryInput{Namespace: "observatory", Pending: []contract.InventoryChange{{Object: "Dome/lab", Why: "added"}}})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next contract.InventoryInput
	require.NoError(t, converterGet(can, &next))
	require.Equal(t, contract.InventoryInput{Namespace: "observatory"}, next)
	require.Len(t, f.passes, 1)
}

func TestAPassNamesAtMostTwentyChanges(t *testing.T) {
	var changes []contract.InventoryChange
	for i := range 30 {
		changes = append(changes, contract.InventoryChange{Object: "Mount/m" + string(rune('a'+i)), Why: "added"})
	}
	words := changeWords(changes)
	require.Len(t, words, inventoryChangesShown+1)
	require.Equal(t, "and more", words[inventoryChangesShown])
}
