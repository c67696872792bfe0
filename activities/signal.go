// Signalling another workflow from an activity, which both domains do: a reservation its
// telescope's and observatory's coordinators, the people side each Person's lifecycle.
// SignalWithStart is a client call, which a workflow cannot make itself.
package activities

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// WorkflowSignal sends a signal to a workflow (a telescope's or an observatory's
// coordinator, a Person's lifecycle), starting it when it does not run: Temporal's
// SignalWithStart, which a workflow cannot call itself. This package cannot name the
// workflows' types, so Message and Input arrive here as the plain JSON values they encode to,
// and go on unchanged; the workflow decodes them into its own types. (They hold names,
// tokens, times, flags and generations: no number that JSON could round.)
type WorkflowSignal struct {
	WorkflowID   string
	WorkflowType string
	Signal       string
	Message      any
	// Input is the workflow's input, used only when it has to start.
	Input any
	// OnlyIfRunning sends the signal without starting the workflow: news that a workflow
	// which has ended (or never ran) would only start to hear and end again, such as a
	// Person's delete.
	OnlyIfRunning bool `json:",omitempty"`
	// StartOnly starts the workflow when it does not run and otherwise sends nothing (no
	// signal, so no event and no workflow task): for news a running workflow has no use for,
	// such as a resync of a Person whose status its shard found current, when all that
	// matters is that the Person's workflow is there. Signal and Message are then unused.
	StartOnly bool `json:",omitempty"`
	// NotAfterEnd sends the signal, starting the workflow only if it never ran or its last
	// run did not complete: for a change sent again, by a retry, to a workflow that may have
	// ended in between, such as a Person's whose Person was deleted meanwhile (a start would
	// only hear of it and end again).
	NotAfterEnd bool `json:",omitempty"`
	// Summary and Details are what the Temporal UI shows of the workflow when this signal
	// starts it (its StaticSummary and StaticDetails).
	Summary string `json:",omitempty"`
	Details string `json:",omitempty"`
	// Keywords are Keyword search attributes the workflow starts with, such as a telescope
	// lock's Telescope; its continued runs carry them on.
	Keywords map[string]string `json:",omitempty"`
}

// errNoTemporal is a worker wired without a Temporal client for the workflows it signals.
var errNoTemporal = errors.New("the worker has no Temporal client (Activities.Temporal) to signal another workflow")

// NeedTemporal fails, for good, an activity that signals when the worker has no Temporal
// client (tc is nil): no retry would give it one.
func NeedTemporal(tc client.Client) error {
	if tc == nil {
		return temporal.NewNonRetryableApplicationError(errNoTemporal.Error(), "NoTemporalClient", errNoTemporal)
	}
	return nil
}

// SignalWorkflow sends one WorkflowSignal through tc on the calling activity's task queue.
func SignalWorkflow(ctx context.Context, tc client.Client, in WorkflowSignal) error {
	queue := ""
	if activity.IsActivity(ctx) {
		queue = activity.GetInfo(ctx).TaskQueue
	}
	opts := client.StartWorkflowOptions{ID: in.WorkflowID, TaskQueue: queue,
		StaticSummary: in.Summary, StaticDetails: in.Details, TypedSearchAttributes: keywords(in.Keywords)}
	var err error
	switch {
	case in.StartOnly:
		// A running workflow is left as it is: Temporal answers with its run and writes nothing.
		opts.WorkflowIDConflictPolicy = enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING
		if _, err = tc.ExecuteWorkflow(ctx, opts, in.WorkflowType, in.Input); err != nil {
			return fmt.Errorf("start the workflow %s unless it runs: %w", in.WorkflowID, err)
		}
		return nil
	case in.OnlyIfRunning:
		err = tc.SignalWorkflow(ctx, in.WorkflowID, "", in.Signal, in.Message)
		if _, ended := errors.AsType[*serviceerror.NotFound](err); ended {
			err = nil
		}
	default:
		if in.NotAfterEnd {
			opts.WorkflowIDReusePolicy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY
		}
		_, err = tc.SignalWithStartWorkflow(ctx, in.WorkflowID, in.Signal, in.Message, opts, in.WorkflowType, in.Input)
		if _, ended := errors.AsType[*serviceerror.WorkflowExecutionAlreadyStarted](err); ended && in.NotAfterEnd {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("signal %s to the workflow %s: %w", in.Signal, in.WorkflowID, err)
	}
	return nil
}

// keywords are Keyword search attributes by name.
func keywords(kw map[string]string) temporal.SearchAttributes {
	var updates []temporal.SearchAttributeUpdate
	for name, v := range kw {
		updates = append(updates, temporal.NewSearchAttributeKeyKeyword(name).ValueSet(v))
	}
	return temporal.NewSearchAttributes(updates...)
}
