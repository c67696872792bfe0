// SignalWorkflow against a mocked Temporal client: which call each kind of WorkflowSignal
// makes. A start-only signal must never add an event to a workflow that runs.
package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/mocks"

	"liken.sh/runner/activities"
)

func TestAStartOnlySignalStartsTheWorkflowUnlessItRunsAndSignalsNothing(t *testing.T) {
	tc := &mocks.Client{}
	tc.On("ExecuteWorkflow", mock.Anything, mock.MatchedBy(func(o client.StartWorkflowOptions) bool {
		return o.ID == "person/ada" && o.WorkflowIDConflictPolicy == enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING &&
			o.StaticSummary == "Ada"
	}), "Person", map[string]any{"Name": "ada"}).Return(&mocks.WorkflowRun{}, nil).Once()

	err := activities.SignalWorkflow(context.Background(), tc, activities.WorkflowSignal{
		WorkflowID: "person/ada", WorkflowType: "Person", Signal: "person-changed", Message: map[string]any{"why": "resync"},
		Input: map[string]any{"Name": "ada"}, Summary: "Ada", StartOnly: true,
	})
	require.NoError(t, err)
	tc.AssertExpectations(t) // no SignalWorkflow, no SignalWithStartWorkflow: the mock would fail on them
}

func TestAChangeSignalsAndStartsTheWorkflowWhenNeededAndADeleteOnlySignalsOneThatRuns(t *testing.T) {
	tc := &mocks.Client{}
	tc.On("SignalWithStartWorkflow", mock.Anything, "person/ada", "person-changed", "added", mock.Anything, "Person", "ada").
		Return(&mocks.WorkflowRun{}, nil).Once()
	tc.On("SignalWorkflow", mock.Anything, "person/bob", "", "person-changed", "deleted").
		Return(serviceerror.NewNotFound("ended")).Once()

	require.NoError(t, activities.SignalWorkflow(context.Background(), tc, activities.WorkflowSignal{
		WorkflowID: "person/ada", WorkflowType: "Person", Signal: "person-changed", Message: "added", Input: "ada",
	}))
	require.NoError(t, activities.SignalWorkflow(context.Background(), tc, activities.WorkflowSignal{
		WorkflowID: "person/bob", WorkflowType: "Person", Signal: "person-changed", Message: "deleted", OnlyIfRunning: true,
	}), "a workflow that has ended needs no delete")
	tc.AssertExpectations(t)
}

func TestASignalSentAgainDoesNotStartAWorkflowThatCompletedMeanwhile(t *testing.T) {
	tc := &mocks.Client{}
	tc.On("SignalWithStartWorkflow", mock.Anything, "person/ada", "person-changed", "added",
		mock.MatchedBy(func(o client.StartWorkflowOptions) bool {
			return o.WorkflowIDReusePolicy == enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY
		}), "Person", "ada").
		Return(nil, serviceerror.NewWorkflowExecutionAlreadyStarted("completed", "", "")).Once()

	require.NoError(t, activities.SignalWorkflow(context.Background(), tc, activities.WorkflowSignal{
		WorkflowID: "person/ada", WorkflowType: "Person", Signal: "person-changed", Message: "added", Input: "ada",
		NotAfterEnd: true,
	}), "a workflow that completed needs no news sent again")
	tc.AssertExpectations(t)
}
