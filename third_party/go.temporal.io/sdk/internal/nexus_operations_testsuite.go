//go:build temporal_testsuite

package internal

import (
	"context"
	"fmt"
	"strconv"

	"github.com/google/uuid"
	"github.com/nexus-rpc/sdk-go/nexus"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"

	"go.temporal.io/sdk/converter"
)

// testSuiteClientForNexusOperations is a partial [Client] implementation for the test workflow environment used to
// support running the workflow run operation - and only this operation, all methods will panic when this client is
// passed to sync operations.
type testSuiteClientForNexusOperations struct {
	env *testWorkflowEnvironmentImpl
}

// DescribeWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) DescribeWorkflow(ctx context.Context, workflowID string, runID string) (*WorkflowExecutionDescription, error) {
	panic("not implemented in the test environment")
}

// CancelWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) CancelWorkflow(ctx context.Context, workflowID string, runID string) error {
	if set, ok := ctx.Value(IsWorkflowRunOpContextKey).(bool); !ok || !set {
		panic("not implemented in the test environment")
	}
	doneCh := make(chan error)
	t.env.cancelWorkflowByID(workflowID, runID, func(result *commonpb.Payloads, err error) {
		doneCh <- err
	})
	return <-doneCh
}

// CancelWorkflowWithOptions implements Client.
func (t *testSuiteClientForNexusOperations) CancelWorkflowWithOptions(ctx context.Context, options CancelWorkflowOptions) error {
	return t.CancelWorkflow(ctx, options.WorkflowID, options.RunID)
}

// CheckHealth implements Client.
func (t *testSuiteClientForNexusOperations) CheckHealth(ctx context.Context, request *CheckHealthRequest) (*CheckHealthResponse, error) {
	return &CheckHealthResponse{}, nil
}

// Close implements Client.
func (t *testSuiteClientForNexusOperations) Close() {
	// No op.
}

// CompleteActivity implements Client.
func (t *testSuiteClientForNexusOperations) CompleteActivity(ctx context.Context, taskToken []byte, result any, err error) error {
	panic("not implemented in the test environment")
}

// CompleteActivityWithOptions implements Client.
func (t *testSuiteClientForNexusOperations) CompleteActivityWithOptions(ctx context.Context, opts CompleteActivityOptions) error {
	panic("not implemented in the test environment")
}

// CompleteActivityByID implements Client.
func (t *testSuiteClientForNexusOperations) CompleteActivityByID(ctx context.Context, namespace string, workflowID string, runID string, activityID string, result any, err error) error {
	panic("not implemented in the test environment")
}

// CompleteActivityByIDWithOptions implements Client.
func (t *testSuiteClientForNexusOperations) CompleteActivityByIDWithOptions(ctx context.Context, opts CompleteActivityByIDOptions) error {
	panic("not implemented in the test environment")
}

// CompleteActivityByActivityID implements Client.
func (t *testSuiteClientForNexusOperations) CompleteActivityByActivityID(ctx context.Context, namespace string, activityID string, activityRunID string, result any, err error) error {
	panic("not implemented in the test environment")
}

// CompleteActivityByActivityIDWithOptions implements Client.
func (t *testSuiteClientForNexusOperations) CompleteActivityByActivityIDWithOptions(ctx context.Context, opts CompleteActivityByActivityIDOptions) error {
	panic("not implemented in the test environment")
}

// CountWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) CountWorkflow(ctx context.Context, request *workflowservice.CountWorkflowExecutionsRequest) (*workflowservice.CountWorkflowExecutionsResponse, error) {
	panic("not implemented in the test environment")
}

// DescribeTaskQueue implements Client.
func (t *testSuiteClientForNexusOperations) DescribeTaskQueue(ctx context.Context, taskqueue string, taskqueueType enums.TaskQueueType) (*workflowservice.DescribeTaskQueueResponse, error) {
	panic("not implemented in the test environment")
}

// DescribeTaskQueueEnhanced implements Client.
func (t *testSuiteClientForNexusOperations) DescribeTaskQueueEnhanced(ctx context.Context, options DescribeTaskQueueEnhancedOptions) (TaskQueueDescription, error) {
	panic("unimplemented in the test environment")
}

// DescribeWorkflowExecution implements Client.
func (t *testSuiteClientForNexusOperations) DescribeWorkflowExecution(ctx context.Context, workflowID string, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	panic("not implemented in the test environment")
}

// ExecuteWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) ExecuteWorkflow(ctx context.Context, options StartWorkflowOptions, workflow any, args ...any) (WorkflowRun, error) {
	if set, ok := ctx.Value(IsWorkflowRunOpContextKey).(bool); !ok || !set {
		panic("not implemented in the test environment")
	}
	wfType, input, err := getValidatedWorkflowFunction(workflow, args, t.env.dataConverter, t.env.GetRegistry())
	if err != nil {
		return nil, fmt.Errorf("cannot validate workflow function: %w", err)
	}

	run := &testEnvWorkflowRunForNexusOperations{}
	startedErrCh := make(chan error, 1)
	doneCh := make(chan error)

	var callback *commonpb.Callback

	if len(options.callbacks) > 0 {
		callback = options.callbacks[0]
	}

	t.env.postCallback(func() {
		t.env.executeChildWorkflowWithDelay(options.StartDelay, ExecuteWorkflowParams{
			// Not propagating Header as this client does not support context propagation.
			WorkflowType: wfType,
			Input:        input,
			WorkflowOptions: WorkflowOptions{
				WaitForCancellation:      true,
				Namespace:                t.env.workflowInfo.Namespace,
				TaskQueueName:            t.env.workflowInfo.TaskQueueName,
				WorkflowID:               options.ID,
				WorkflowExecutionTimeout: options.WorkflowExecutionTimeout,
				WorkflowRunTimeout:       options.WorkflowRunTimeout,
				WorkflowTaskTimeout:      options.WorkflowTaskTimeout,
				DataConverter:            t.env.dataConverter,
				WorkflowIDReusePolicy:    options.WorkflowIDReusePolicy,
				WorkflowIDConflictPolicy: options.WorkflowIDConflictPolicy,
				OnConflictOptions:        options.onConflictOptions,
				ContextPropagators:       t.env.contextPropagators,
				SearchAttributes:         options.SearchAttributes,
				TypedSearchAttributes:    options.TypedSearchAttributes,
				ParentClosePolicy:        enums.PARENT_CLOSE_POLICY_ABANDON,
				Memo:                     options.Memo,
				CronSchedule:             options.CronSchedule,
				RetryPolicy:              ConvertToPBRetryPolicy(options.RetryPolicy),
				Priority:                 ConvertToPBPriority(options.Priority),
			},
		}, func(result *commonpb.Payloads, wfErr error) {
			// This callback handles async completion of Nexus operations. If there was an error when
			// starting the workflow, then the operation failed synchronously and this callback doesn't
			// need to be executed.
			startedErr := <-startedErrCh
			if startedErr != nil {
				return
			}

			ncb := callback.GetNexus()
			if ncb == nil {
				return
			}
			seqStr := ncb.GetHeader()["operation-sequence"]
			if seqStr == "" {
				return
			}
			seq, err := strconv.ParseInt(seqStr, 10, 64)
			if err != nil {
				panic(fmt.Errorf("unexpected operation sequence in callback header: %s: %w", seqStr, err))
			}

			// Send the operation token to account for a race when the completion comes in before the response to the
			// StartOperation call is recorded.
			// The token is extracted from the callback header which is attached in ExecuteUntypedWorkflow.
			var operationToken string
			if len(options.callbacks) == 1 {
				if cbHeader := options.callbacks[0].GetNexus().GetHeader(); cbHeader != nil {
					operationToken = cbHeader[nexus.HeaderOperationToken]
				}
			}

			if wfErr != nil {
				t.env.resolveNexusOperation(seq, operationToken, nil, wfErr)
			} else {
				var payload *commonpb.Payload
				if len(result.GetPayloads()) > 0 {
					payload = result.Payloads[0]
				}
				t.env.resolveNexusOperation(seq, operationToken, payload, nil)
			}
		}, func(r WorkflowExecution, err error) {
			run.WorkflowExecution = r
			startedErrCh <- err
			close(startedErrCh)
			doneCh <- err
		})
	}, false)
	err = <-doneCh
	if err != nil {
		return nil, err
	}
	return run, nil
}

func (t *testSuiteClientForNexusOperations) NewWithStartWorkflowOperation(options StartWorkflowOptions, workflow any, args ...any) WithStartWorkflowOperation {
	panic("not implemented in the test environment")
}

// GetSearchAttributes implements Client.
func (t *testSuiteClientForNexusOperations) GetSearchAttributes(ctx context.Context) (*workflowservice.GetSearchAttributesResponse, error) {
	panic("not implemented in the test environment")
}

// GetWorkerBuildIdCompatibility implements Client.
func (t *testSuiteClientForNexusOperations) GetWorkerBuildIdCompatibility(ctx context.Context, options *GetWorkerBuildIdCompatibilityOptions) (*WorkerBuildIDVersionSets, error) {
	panic("not implemented in the test environment")
}

// GetWorkerTaskReachability implements Client.
func (t *testSuiteClientForNexusOperations) GetWorkerTaskReachability(ctx context.Context, options *GetWorkerTaskReachabilityOptions) (*WorkerTaskReachability, error) {
	panic("not implemented in the test environment")
}

// GetWorkerVersioningRules implements Client.
func (t *testSuiteClientForNexusOperations) GetWorkerVersioningRules(ctx context.Context, options GetWorkerVersioningOptions) (*WorkerVersioningRules, error) {
	panic("unimplemented in the test environment")
}

// GetWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) GetWorkflow(ctx context.Context, workflowID string, runID string) WorkflowRun {
	panic("not implemented in the test environment")
}

// GetWorkflowHistory implements Client.
func (t *testSuiteClientForNexusOperations) GetWorkflowHistory(ctx context.Context, workflowID string, runID string, isLongPoll bool, filterType enums.HistoryEventFilterType) HistoryEventIterator {
	panic("not implemented in the test environment")
}

// GetWorkflowUpdateHandle implements Client.
func (t *testSuiteClientForNexusOperations) GetWorkflowUpdateHandle(GetWorkflowUpdateHandleOptions) WorkflowUpdateHandle {
	panic("not implemented in the test environment")
}

// ListArchivedWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) ListArchivedWorkflow(ctx context.Context, request *workflowservice.ListArchivedWorkflowExecutionsRequest) (*workflowservice.ListArchivedWorkflowExecutionsResponse, error) {
	panic("not implemented in the test environment")
}

// ListClosedWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) ListClosedWorkflow(ctx context.Context, request *workflowservice.ListClosedWorkflowExecutionsRequest) (*workflowservice.ListClosedWorkflowExecutionsResponse, error) {
	panic("not implemented in the test environment")
}

// ListOpenWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) ListOpenWorkflow(ctx context.Context, request *workflowservice.ListOpenWorkflowExecutionsRequest) (*workflowservice.ListOpenWorkflowExecutionsResponse, error) {
	panic("not implemented in the test environment")
}

// ListWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) ListWorkflow(ctx context.Context, request *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	panic("not implemented in the test environment")
}

// OperatorService implements Client.
func (t *testSuiteClientForNexusOperations) OperatorService() operatorservice.OperatorServiceClient {
	panic("not implemented in the test environment")
}

// QueryWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) QueryWorkflow(ctx context.Context, workflowID string, runID string, queryType string, args ...any) (converter.EncodedValue, error) {
	panic("not implemented in the test environment")
}

// QueryWorkflowWithOptions implements Client.
func (t *testSuiteClientForNexusOperations) QueryWorkflowWithOptions(ctx context.Context, request *QueryWorkflowWithOptionsRequest) (*QueryWorkflowWithOptionsResponse, error) {
	panic("not implemented in the test environment")
}

// RecordActivityHeartbeat implements Client.
func (t *testSuiteClientForNexusOperations) RecordActivityHeartbeat(ctx context.Context, taskToken []byte, details ...any) error {
	panic("not implemented in the test environment")
}

// RecordActivityHeartbeatWithOptions implements Client.
func (t *testSuiteClientForNexusOperations) RecordActivityHeartbeatWithOptions(ctx context.Context, opts RecordActivityHeartbeatOptions) error {
	panic("not implemented in the test environment")
}

// RecordActivityHeartbeatByID implements Client.
func (t *testSuiteClientForNexusOperations) RecordActivityHeartbeatByID(ctx context.Context, namespace string, workflowID string, runID string, activityID string, details ...any) error {
	panic("not implemented in the test environment")
}

// RecordActivityHeartbeatByIDWithOptions implements Client.
func (t *testSuiteClientForNexusOperations) RecordActivityHeartbeatByIDWithOptions(ctx context.Context, opts RecordActivityHeartbeatByIDOptions) error {
	panic("not implemented in the test environment")
}

// ResetWorkflowExecution implements Client.
func (t *testSuiteClientForNexusOperations) ResetWorkflowExecution(ctx context.Context, request *workflowservice.ResetWorkflowExecutionRequest) (*workflowservice.ResetWorkflowExecutionResponse, error) {
	panic("not implemented in the test environment")
}

// ScanWorkflow implements Client.
//
//lint:ignore SA1019 the server API was deprecated.
func (t *testSuiteClientForNexusOperations) ScanWorkflow(ctx context.Context, request *workflowservice.ScanWorkflowExecutionsRequest) (*workflowservice.ScanWorkflowExecutionsResponse, error) {
	panic("not implemented in the test environment")
}

// ScheduleClient implements Client.
func (t *testSuiteClientForNexusOperations) ScheduleClient() ScheduleClient {
	panic("not implemented in the test environment")
}

// SignalWithStartWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) SignalWithStartWorkflow(ctx context.Context, workflowID string, signalName string, signalArg any, options StartWorkflowOptions, workflow any, workflowArgs ...any) (WorkflowRun, error) {
	panic("not implemented in the test environment")
}

// SignalWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) SignalWorkflow(ctx context.Context, workflowID string, runID string, signalName string, arg any) error {
	panic("not implemented in the test environment")
}

// TerminateWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) TerminateWorkflow(ctx context.Context, workflowID string, runID string, reason string, details ...any) error {
	panic("not implemented in the test environment")
}

// TerminateWorkflowWithOptions implements Client.
func (t *testSuiteClientForNexusOperations) TerminateWorkflowWithOptions(ctx context.Context, options TerminateWorkflowOptions) error {
	panic("not implemented in the test environment")
}

// UpdateWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) UpdateWorkflow(ctx context.Context, options UpdateWorkflowOptions) (WorkflowUpdateHandle, error) {
	panic("unimplemented in the test environment")
}

// UpdateWithStartWorkflow implements Client.
func (t *testSuiteClientForNexusOperations) UpdateWithStartWorkflow(ctx context.Context, options UpdateWithStartWorkflowOptions) (WorkflowUpdateHandle, error) {
	panic("unimplemented in the test environment")
}

// UpdateWorkerBuildIdCompatibility implements Client.
func (t *testSuiteClientForNexusOperations) UpdateWorkerBuildIdCompatibility(ctx context.Context, options *UpdateWorkerBuildIdCompatibilityOptions) error {
	panic("not implemented in the test environment")
}

// UpdateWorkerVersioningRules implements Client.
func (t *testSuiteClientForNexusOperations) UpdateWorkerVersioningRules(ctx context.Context, options UpdateWorkerVersioningRulesOptions) (*WorkerVersioningRules, error) {
	panic("unimplemented in the test environment")
}

func (t *testSuiteClientForNexusOperations) ExecuteActivity(ctx context.Context, options ClientStartActivityOptions, activity any, args ...any) (ClientActivityHandle, error) {
	if set, ok := ctx.Value(IsWorkflowRunOpContextKey).(bool); !ok || !set {
		panic("not implemented in the test environment")
	}
	if options.ID == "" {
		return nil, fmt.Errorf("activity ID is required")
	}
	activityType, err := getValidatedActivityFunction(activity, args, t.env.GetRegistry())
	if err != nil {
		return nil, fmt.Errorf("cannot validate activity function: %w", err)
	}
	input, err := encodeArgs(t.env.dataConverter, args)
	if err != nil {
		return nil, fmt.Errorf("cannot encode activity args: %w", err)
	}

	var callback *commonpb.Callback
	if len(options.callbacks) > 0 {
		callback = options.callbacks[0]
	}

	taskQueue := options.TaskQueue
	if taskQueue == "" {
		taskQueue = t.env.workflowInfo.TaskQueueName
	}

	activityID := options.ID
	runID := uuid.NewString()

	params := ExecuteActivityParams{
		ExecuteActivityOptions: ExecuteActivityOptions{
			ActivityID:             activityID,
			TaskQueueName:          taskQueue,
			ScheduleToCloseTimeout: options.ScheduleToCloseTimeout,
			ScheduleToStartTimeout: options.ScheduleToStartTimeout,
			StartToCloseTimeout:    options.StartToCloseTimeout,
			HeartbeatTimeout:       options.HeartbeatTimeout,
			RetryPolicy:            ConvertToPBRetryPolicy(options.RetryPolicy),
		},
		ActivityType:  *activityType,
		Input:         input,
		DataConverter: t.env.dataConverter,
	}

	t.env.postCallback(func() {
		t.env.ExecuteActivity(params, func(result *commonpb.Payloads, actErr error) {
			if callback == nil {
				return
			}
			ncb := callback.GetNexus()
			if ncb == nil {
				return
			}
			seqStr := ncb.GetHeader()["operation-sequence"]
			if seqStr == "" {
				return
			}
			seq, err := strconv.ParseInt(seqStr, 10, 64)
			if err != nil {
				panic(fmt.Errorf("unexpected operation sequence in callback header: %s: %w", seqStr, err))
			}
			operationToken := ncb.GetHeader()[nexus.HeaderOperationToken]
			var payload *commonpb.Payload
			if len(result.GetPayloads()) > 0 {
				payload = result.Payloads[0]
			}
			t.env.resolveNexusOperation(seq, operationToken, payload, actErr)
		})
	}, false)

	return &testEnvActivityHandleForNexusOperations{
		env:   t.env,
		id:    activityID,
		runID: runID,
	}, nil
}

func (t *testSuiteClientForNexusOperations) GetActivityHandle(options ClientGetActivityHandleOptions) ClientActivityHandle {
	return &testEnvActivityHandleForNexusOperations{
		env:   t.env,
		id:    options.ActivityID,
		runID: options.RunID,
	}
}

type testEnvActivityHandleForNexusOperations struct {
	env   *testWorkflowEnvironmentImpl
	id    string
	runID string
}

func (h *testEnvActivityHandleForNexusOperations) GetID() string    { return h.id }
func (h *testEnvActivityHandleForNexusOperations) GetRunID() string { return h.runID }

func (h *testEnvActivityHandleForNexusOperations) Cancel(ctx context.Context, options ClientCancelActivityOptions) error {
	h.env.RequestCancelActivity(ActivityID{id: h.id})
	return nil
}

func (h *testEnvActivityHandleForNexusOperations) Get(ctx context.Context, valuePtr any) error {
	panic("not implemented in the test environment")
}

func (h *testEnvActivityHandleForNexusOperations) Describe(ctx context.Context, options ClientDescribeActivityOptions) (*ClientActivityExecutionDescription, error) {
	panic("not implemented in the test environment")
}

func (h *testEnvActivityHandleForNexusOperations) Terminate(ctx context.Context, options ClientTerminateActivityOptions) error {
	panic("not implemented in the test environment")
}

func (h *testEnvActivityHandleForNexusOperations) Pause(ctx context.Context, options ClientPauseActivityOptions) error {
	panic("not implemented in the test environment")
}

func (h *testEnvActivityHandleForNexusOperations) Unpause(ctx context.Context, options ClientUnpauseActivityOptions) error {
	panic("not implemented in the test environment")
}

func (h *testEnvActivityHandleForNexusOperations) UpdateOptions(ctx context.Context, update ClientActivityOptionsUpdate) (*ClientActivityExecutionOptions, error) {
	panic("not implemented in the test environment")
}

func (h *testEnvActivityHandleForNexusOperations) RestoreOriginalOptions(ctx context.Context) (*ClientActivityExecutionOptions, error) {
	panic("not implemented in the test environment")
}

func (t *testSuiteClientForNexusOperations) ListActivities(ctx context.Context, options ClientListActivitiesOptions) (ClientListActivitiesResult, error) {
	panic("unimplemented in the test environment")
}

func (t *testSuiteClientForNexusOperations) CountActivities(ctx context.Context, options ClientCountActivitiesOptions) (*ClientCountActivitiesResult, error) {
	panic("unimplemented in the test environment")
}

// WorkflowService implements Client.
func (t *testSuiteClientForNexusOperations) WorkflowService() workflowservice.WorkflowServiceClient {
	panic("not implemented in the test environment")
}

// DeploymentClient implements Client.
func (t *testSuiteClientForNexusOperations) DeploymentClient() DeploymentClient {
	panic("not implemented in the test environment")
}

// WorkerDeploymentClient implements Client.
func (t *testSuiteClientForNexusOperations) WorkerDeploymentClient() WorkerDeploymentClient {
	panic("not implemented in the test environment")
}

// UpdateWorkflowExecutionOptions implements Client.
func (t *testSuiteClientForNexusOperations) UpdateWorkflowExecutionOptions(ctx context.Context, options UpdateWorkflowExecutionOptionsRequest) (WorkflowExecutionOptions, error) {
	panic("not implemented in the test environment")
}

func (t *testSuiteClientForNexusOperations) NewNexusClient(options ClientNexusClientOptions) (ClientNexusClient, error) {
	panic("not implemented in the test environment")
}

func (t *testSuiteClientForNexusOperations) GetNexusOperationHandle(options ClientGetNexusOperationHandleOptions) ClientNexusOperationHandle {
	panic("not implemented in the test environment")
}

func (t *testSuiteClientForNexusOperations) ListNexusOperations(ctx context.Context, options ClientListNexusOperationsOptions) (ClientListNexusOperationsResult, error) {
	panic("not implemented in the test environment")
}

func (t *testSuiteClientForNexusOperations) CountNexusOperations(ctx context.Context, options ClientCountNexusOperationsOptions) (*ClientCountNexusOperationsResult, error) {
	panic("not implemented in the test environment")
}

var _ Client = &testSuiteClientForNexusOperations{}

// testEnvWorkflowRunForNexusOperations is a partial [WorkflowRun] implementation for the test workflow environment used
// to support basic Nexus functionality.
type testEnvWorkflowRunForNexusOperations struct {
	WorkflowExecution
}

// Get implements WorkflowRun.
func (t *testEnvWorkflowRunForNexusOperations) Get(ctx context.Context, valuePtr any) error {
	panic("not implemented in the test environment")
}

// GetID implements WorkflowRun.
func (t *testEnvWorkflowRunForNexusOperations) GetID() string {
	return t.ID
}

// GetRunID implements WorkflowRun.
func (t *testEnvWorkflowRunForNexusOperations) GetRunID() string {
	return t.RunID
}

// GetFirstExecutionRunID implements WorkflowRun.
func (t *testEnvWorkflowRunForNexusOperations) GetFirstExecutionRunID() string {
	return t.RunID
}

// GetWithOptions implements WorkflowRun.
func (t *testEnvWorkflowRunForNexusOperations) GetWithOptions(ctx context.Context, valuePtr any, options WorkflowRunGetOptions) error {
	panic("not implemented in the test environment")
}

// Exposed as: [go.temporal.io/sdk/client.WorkflowRun]
var _ WorkflowRun = &testEnvWorkflowRunForNexusOperations{}
