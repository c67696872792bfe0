package internal

import (
	"context"
	"time"

	"github.com/nexus-rpc/sdk-go/nexus"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/internal/common/metrics"
	"go.temporal.io/sdk/log"
)

// InterceptorBase is a default implementation of Interceptor meant for
// embedding. See documentation in the interceptor package for more details.
//
// Exposed as: [go.temporal.io/sdk/interceptor.InterceptorBase]
type InterceptorBase struct {
	// ClientInterceptorBase is the base implementation of ClientInterceptor.
	ClientInterceptorBase
	// WorkerInterceptorBase is the base implementation of WorkerInterceptor.
	WorkerInterceptorBase
}

// WorkerInterceptorBase is a default implementation of WorkerInterceptor meant
// for embedding. See documentation in the interceptor package for more details.
//
// Exposed as: [go.temporal.io/sdk/interceptor.WorkerInterceptorBase]
type WorkerInterceptorBase struct{}

// Exposed as: [go.temporal.io/sdk/interceptor.WorkerInterceptor]
var _ WorkerInterceptor = &WorkerInterceptorBase{}

// InterceptActivity implements WorkerInterceptor.InterceptActivity.
func (*WorkerInterceptorBase) InterceptActivity(
	ctx context.Context,
	next ActivityInboundInterceptor,
) ActivityInboundInterceptor {
	return &ActivityInboundInterceptorBase{Next: next}
}

// InterceptWorkflow implements WorkerInterceptor.InterceptWorkflow.
func (*WorkerInterceptorBase) InterceptWorkflow(
	ctx Context,
	next WorkflowInboundInterceptor,
) WorkflowInboundInterceptor {
	return &WorkflowInboundInterceptorBase{Next: next}
}

// InterceptNexusOperation implements WorkerInterceptor.
func (w *WorkerInterceptorBase) InterceptNexusOperation(ctx context.Context, next NexusOperationInboundInterceptor) NexusOperationInboundInterceptor {
	return &NexusOperationInboundInterceptorBase{Next: next}
}

func (*WorkerInterceptorBase) mustEmbedWorkerInterceptorBase() {}

// ActivityInboundInterceptorBase is a default implementation of
// ActivityInboundInterceptor meant for embedding. See documentation in the
// interceptor package for more details.
//
// Exposed as: [go.temporal.io/sdk/interceptor.ActivityInboundInterceptorBase]
type ActivityInboundInterceptorBase struct {
	// Next is the next interceptor in the chain.
	Next ActivityInboundInterceptor
}

// Exposed as: [go.temporal.io/sdk/interceptor.ActivityInboundInterceptor]
var _ ActivityInboundInterceptor = &ActivityInboundInterceptorBase{}

// Init implements ActivityInboundInterceptor.Init.
func (a *ActivityInboundInterceptorBase) Init(outbound ActivityOutboundInterceptor) error {
	return a.Next.Init(outbound)
}

// ExecuteActivity implements ActivityInboundInterceptor.ExecuteActivity.
func (a *ActivityInboundInterceptorBase) ExecuteActivity(
	ctx context.Context,
	in *ExecuteActivityInput,
) (any, error) {
	return a.Next.ExecuteActivity(ctx, in)
}

func (*ActivityInboundInterceptorBase) mustEmbedActivityInboundInterceptorBase() {}

// ActivityOutboundInterceptorBase is a default implementation of
// ActivityOutboundInterceptor meant for embedding. See documentation in the
// interceptor package for more details.
//
// Exposed as: [go.temporal.io/sdk/interceptor.ActivityOutboundInterceptorBase]
type ActivityOutboundInterceptorBase struct {
	// Next is the next interceptor in the chain.
	Next ActivityOutboundInterceptor
}

// Exposed as: [go.temporal.io/sdk/interceptor.ActivityOutboundInterceptor]
var _ ActivityOutboundInterceptor = &ActivityOutboundInterceptorBase{}

// GetInfo implements ActivityOutboundInterceptor.GetInfo.
func (a *ActivityOutboundInterceptorBase) GetInfo(ctx context.Context) ActivityInfo {
	return a.Next.GetInfo(ctx)
}

// GetLogger implements ActivityOutboundInterceptor.GetLogger.
func (a *ActivityOutboundInterceptorBase) GetLogger(ctx context.Context) log.Logger {
	return a.Next.GetLogger(ctx)
}

// GetMetricsHandler implements ActivityOutboundInterceptor.GetMetricsHandler.
func (a *ActivityOutboundInterceptorBase) GetMetricsHandler(ctx context.Context) metrics.Handler {
	return a.Next.GetMetricsHandler(ctx)
}

// RecordHeartbeat implements ActivityOutboundInterceptor.RecordHeartbeat.
func (a *ActivityOutboundInterceptorBase) RecordHeartbeat(ctx context.Context, details ...any) {
	a.Next.RecordHeartbeat(ctx, details...)
}

// HasHeartbeatDetails implements
// ActivityOutboundInterceptor.HasHeartbeatDetails.
func (a *ActivityOutboundInterceptorBase) HasHeartbeatDetails(ctx context.Context) bool {
	return a.Next.HasHeartbeatDetails(ctx)
}

// GetHeartbeatDetails implements
// ActivityOutboundInterceptor.GetHeartbeatDetails.
func (a *ActivityOutboundInterceptorBase) GetHeartbeatDetails(ctx context.Context, d ...any) error {
	return a.Next.GetHeartbeatDetails(ctx, d...)
}

// GetWorkerStopChannel implements
// ActivityOutboundInterceptor.GetWorkerStopChannel.
func (a *ActivityOutboundInterceptorBase) GetWorkerStopChannel(ctx context.Context) <-chan struct{} {
	return a.Next.GetWorkerStopChannel(ctx)
}

// GetClient implements
// ActivityOutboundInterceptor.GetClient
func (a *ActivityOutboundInterceptorBase) GetClient(ctx context.Context) Client {
	return a.Next.GetClient(ctx)
}

func (*ActivityOutboundInterceptorBase) mustEmbedActivityOutboundInterceptorBase() {}

// WorkflowInboundInterceptorBase is a default implementation of
// WorkflowInboundInterceptor meant for embedding. See documentation in the
// interceptor package for more details.
//
// Exposed as: [go.temporal.io/sdk/interceptor.WorkflowInboundInterceptorBase]
type WorkflowInboundInterceptorBase struct {
	// Next is the next interceptor in the chain.
	Next WorkflowInboundInterceptor
}

// Exposed as: [go.temporal.io/sdk/interceptor.WorkflowInboundInterceptor]
var _ WorkflowInboundInterceptor = &WorkflowInboundInterceptorBase{}

// Init implements WorkflowInboundInterceptor.Init.
func (w *WorkflowInboundInterceptorBase) Init(outbound WorkflowOutboundInterceptor) error {
	return w.Next.Init(outbound)
}

// ExecuteWorkflow implements WorkflowInboundInterceptor.ExecuteWorkflow.
func (w *WorkflowInboundInterceptorBase) ExecuteWorkflow(ctx Context, in *ExecuteWorkflowInput) (any, error) {
	return w.Next.ExecuteWorkflow(ctx, in)
}

// HandleSignal implements WorkflowInboundInterceptor.HandleSignal.
func (w *WorkflowInboundInterceptorBase) HandleSignal(ctx Context, in *HandleSignalInput) error {
	return w.Next.HandleSignal(ctx, in)
}

// ExecuteUpdate implements WorkflowInboundInterceptor.ExecuteUpdate.
func (w *WorkflowInboundInterceptorBase) ExecuteUpdate(ctx Context, in *UpdateInput) (any, error) {
	return w.Next.ExecuteUpdate(ctx, in)
}

// ValidateUpdate implements WorkflowInboundInterceptor.ValidateUpdate.
func (w *WorkflowInboundInterceptorBase) ValidateUpdate(ctx Context, in *UpdateInput) error {
	return w.Next.ValidateUpdate(ctx, in)
}

// HandleQuery implements WorkflowInboundInterceptor.HandleQuery.
func (w *WorkflowInboundInterceptorBase) HandleQuery(ctx Context, in *HandleQueryInput) (any, error) {
	return w.Next.HandleQuery(ctx, in)
}

func (*WorkflowInboundInterceptorBase) mustEmbedWorkflowInboundInterceptorBase() {}

// WorkflowOutboundInterceptorBase is a default implementation of
// WorkflowOutboundInterceptor meant for embedding. See documentation in the
// interceptor package for more details.
//
// Exposed as: [go.temporal.io/sdk/interceptor.WorkflowOutboundInterceptorBase]
type WorkflowOutboundInterceptorBase struct {
	// Next is the next interceptor in the chain.
	Next WorkflowOutboundInterceptor
}

// Exposed as: [go.temporal.io/sdk/interceptor.WorkflowOutboundInterceptor]
var _ WorkflowOutboundInterceptor = &WorkflowOutboundInterceptorBase{}

// Go implements WorkflowOutboundInterceptor.Go.
func (w *WorkflowOutboundInterceptorBase) Go(ctx Context, name string, f func(ctx Context)) Context {
	return w.Next.Go(ctx, name, f)
}

// ExecuteActivity implements WorkflowOutboundInterceptor.ExecuteActivity.
func (w *WorkflowOutboundInterceptorBase) ExecuteActivity(ctx Context, activityType string, args ...any) Future {
	return w.Next.ExecuteActivity(ctx, activityType, args...)
}

// Await implements WorkflowOutboundInterceptor.Await.
func (w *WorkflowOutboundInterceptorBase) Await(ctx Context, condition func() bool) error {
	return w.Next.Await(ctx, condition)
}

// AwaitWithTimeout implements WorkflowOutboundInterceptor.AwaitWithTimeout.
func (w *WorkflowOutboundInterceptorBase) AwaitWithTimeout(ctx Context, timeout time.Duration, condition func() bool) (bool, error) {
	return w.Next.AwaitWithTimeout(ctx, timeout, condition)
}

// AwaitWithOptions implements WorkflowOutboundInterceptor.AwaitWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) AwaitWithOptions(ctx Context, options AwaitOptions, condition func() bool) (bool, error) {
	return w.Next.AwaitWithOptions(ctx, options, condition)
}

// ExecuteLocalActivity implements WorkflowOutboundInterceptor.ExecuteLocalActivity.
func (w *WorkflowOutboundInterceptorBase) ExecuteLocalActivity(
	ctx Context,
	activityType string,
	args ...any,
) Future {
	return w.Next.ExecuteLocalActivity(ctx, activityType, args...)
}

// ExecuteChildWorkflow implements WorkflowOutboundInterceptor.ExecuteChildWorkflow.
func (w *WorkflowOutboundInterceptorBase) ExecuteChildWorkflow(
	ctx Context,
	childWorkflowType string,
	args ...any,
) ChildWorkflowFuture {
	return w.Next.ExecuteChildWorkflow(ctx, childWorkflowType, args...)
}

// GetInfo implements WorkflowOutboundInterceptor.GetInfo.
func (w *WorkflowOutboundInterceptorBase) GetInfo(ctx Context) *WorkflowInfo {
	return w.Next.GetInfo(ctx)
}

// GetTypedSearchAttributes implements WorkflowOutboundInterceptor.GetTypedSearchAttributes.
func (w *WorkflowOutboundInterceptorBase) GetTypedSearchAttributes(ctx Context) SearchAttributes {
	return w.Next.GetTypedSearchAttributes(ctx)
}

// GetCurrentUpdateInfo implements WorkflowOutboundInterceptor.GetCurrentUpdateInfo.
func (w *WorkflowOutboundInterceptorBase) GetCurrentUpdateInfo(ctx Context) *UpdateInfo {
	return w.Next.GetCurrentUpdateInfo(ctx)
}

// GetLogger implements WorkflowOutboundInterceptor.GetLogger.
func (w *WorkflowOutboundInterceptorBase) GetLogger(ctx Context) log.Logger {
	return w.Next.GetLogger(ctx)
}

// GetMetricsHandler implements WorkflowOutboundInterceptor.GetMetricsHandler.
func (w *WorkflowOutboundInterceptorBase) GetMetricsHandler(ctx Context) metrics.Handler {
	return w.Next.GetMetricsHandler(ctx)
}

// Now implements WorkflowOutboundInterceptor.Now.
func (w *WorkflowOutboundInterceptorBase) Now(ctx Context) time.Time {
	return w.Next.Now(ctx)
}

// NewTimer implements WorkflowOutboundInterceptor.NewTimer.
func (w *WorkflowOutboundInterceptorBase) NewTimer(ctx Context, d time.Duration) Future {
	return w.Next.NewTimer(ctx, d)
}

// NewTimerWithOptions implements WorkflowOutboundInterceptor.NewTimerWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) NewTimerWithOptions(
	ctx Context,
	d time.Duration,
	options TimerOptions,
) Future {
	return w.Next.NewTimerWithOptions(ctx, d, options)
}

// Sleep implements WorkflowOutboundInterceptor.Sleep.
func (w *WorkflowOutboundInterceptorBase) Sleep(ctx Context, d time.Duration) (err error) {
	return w.Next.Sleep(ctx, d)
}

// RequestCancelExternalWorkflow implements
// WorkflowOutboundInterceptor.RequestCancelExternalWorkflow.
func (w *WorkflowOutboundInterceptorBase) RequestCancelExternalWorkflow(
	ctx Context,
	workflowID string,
	runID string,
) Future {
	return w.Next.RequestCancelExternalWorkflow(ctx, workflowID, runID)
}

// RequestCancelExternalWorkflowWithOptions implements
// WorkflowOutboundInterceptor.RequestCancelExternalWorkflowWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) RequestCancelExternalWorkflowWithOptions(
	ctx Context,
	workflowID string,
	runID string,
	options CancelExternalWorkflowOptions,
) Future {
	return w.Next.RequestCancelExternalWorkflowWithOptions(ctx, workflowID, runID, options)
}

// SignalExternalWorkflow implements
// WorkflowOutboundInterceptor.SignalExternalWorkflow.
func (w *WorkflowOutboundInterceptorBase) SignalExternalWorkflow(
	ctx Context,
	workflowID string,
	runID string,
	signalName string,
	arg any,
) Future {
	return w.Next.SignalExternalWorkflow(ctx, workflowID, runID, signalName, arg)
}

// SignalExternalWorkflowWithOptions implements
// WorkflowOutboundInterceptor.SignalExternalWorkflowWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) SignalExternalWorkflowWithOptions(
	ctx Context,
	workflowID string,
	runID string,
	signalName string,
	arg any,
	options SignalExternalWorkflowOptions,
) Future {
	return w.Next.SignalExternalWorkflowWithOptions(ctx, workflowID, runID, signalName, arg, options)
}

// SignalChildWorkflow implements
// WorkflowOutboundInterceptor.SignalChildWorkflow.
func (w *WorkflowOutboundInterceptorBase) SignalChildWorkflow(
	ctx Context,
	workflowID string,
	signalName string,
	arg any,
) Future {
	return w.Next.SignalChildWorkflow(ctx, workflowID, signalName, arg)
}

// SignalChildWorkflowWithOptions implements
// WorkflowOutboundInterceptor.SignalChildWorkflowWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) SignalChildWorkflowWithOptions(
	ctx Context,
	workflowID string,
	signalName string,
	arg any,
	options SignalChildWorkflowOptions,
) Future {
	return w.Next.SignalChildWorkflowWithOptions(ctx, workflowID, signalName, arg, options)
}

// UpsertSearchAttributes implements
// WorkflowOutboundInterceptor.UpsertSearchAttributes.
func (w *WorkflowOutboundInterceptorBase) UpsertSearchAttributes(ctx Context, attributes map[string]any) error {
	return w.Next.UpsertSearchAttributes(ctx, attributes)
}

// UpsertTypedSearchAttributes implements
// WorkflowOutboundInterceptor.UpsertTypedSearchAttributes.
func (w *WorkflowOutboundInterceptorBase) UpsertTypedSearchAttributes(ctx Context, attributes ...SearchAttributeUpdate) error {
	return w.Next.UpsertTypedSearchAttributes(ctx, attributes...)
}

// UpsertTypedSearchAttributesWithOptions implements
// WorkflowOutboundInterceptor.UpsertTypedSearchAttributesWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) UpsertTypedSearchAttributesWithOptions(
	ctx Context,
	attributes []SearchAttributeUpdate,
	options UpsertSearchAttributesOptions,
) error {
	return w.Next.UpsertTypedSearchAttributesWithOptions(ctx, attributes, options)
}

// UpsertMemo implements
// WorkflowOutboundInterceptor.UpsertMemo.
func (w *WorkflowOutboundInterceptorBase) UpsertMemo(ctx Context, memo map[string]any) error {
	return w.Next.UpsertMemo(ctx, memo)
}

// UpsertMemoWithOptions implements
// WorkflowOutboundInterceptor.UpsertMemoWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) UpsertMemoWithOptions(
	ctx Context,
	memo map[string]any,
	options UpsertMemoOptions,
) error {
	return w.Next.UpsertMemoWithOptions(ctx, memo, options)
}

// GetSignalChannel implements WorkflowOutboundInterceptor.GetSignalChannel.
func (w *WorkflowOutboundInterceptorBase) GetSignalChannel(ctx Context, signalName string) ReceiveChannel {
	return w.Next.GetSignalChannel(ctx, signalName)
}

// GetSignalChannelWithOptions implements WorkflowOutboundInterceptor.GetSignalChannelWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) GetSignalChannelWithOptions(
	ctx Context,
	signalName string,
	options SignalChannelOptions,
) ReceiveChannel {
	return w.Next.GetSignalChannelWithOptions(ctx, signalName, options)
}

// SideEffect implements WorkflowOutboundInterceptor.SideEffect.
func (w *WorkflowOutboundInterceptorBase) SideEffect(
	ctx Context,
	f func(ctx Context) any,
) converter.EncodedValue {
	return w.Next.SideEffect(ctx, f)
}

// SideEffectWithOptions implements WorkflowOutboundInterceptor.SideEffectWithOptions.
func (w *WorkflowOutboundInterceptorBase) SideEffectWithOptions(
	ctx Context,
	options SideEffectOptions,
	f func(ctx Context) any,
) converter.EncodedValue {
	return w.Next.SideEffectWithOptions(ctx, options, f)
}

// MutableSideEffect implements WorkflowOutboundInterceptor.MutableSideEffect.
func (w *WorkflowOutboundInterceptorBase) MutableSideEffect(
	ctx Context,
	id string,
	f func(ctx Context) any,
	equals func(a, b any) bool,
) converter.EncodedValue {
	return w.Next.MutableSideEffect(ctx, id, f, equals)
}

// MutableSideEffectWithOptions implements WorkflowOutboundInterceptor.MutableSideEffectWithOptions.
func (w *WorkflowOutboundInterceptorBase) MutableSideEffectWithOptions(
	ctx Context,
	id string,
	options MutableSideEffectOptions,
	f func(ctx Context) any,
	equals func(a, b any) bool,
) converter.EncodedValue {
	return w.Next.MutableSideEffectWithOptions(ctx, id, options, f, equals)
}

// GetVersion implements WorkflowOutboundInterceptor.GetVersion.
func (w *WorkflowOutboundInterceptorBase) GetVersion(
	ctx Context,
	changeID string,
	minSupported Version,
	maxSupported Version,
) Version {
	return w.Next.GetVersion(ctx, changeID, minSupported, maxSupported)
}

// GetVersionWithOptions implements WorkflowOutboundInterceptor.GetVersionWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) GetVersionWithOptions(
	ctx Context,
	changeID string,
	minSupported Version,
	maxSupported Version,
	options GetVersionOptions,
) Version {
	return w.Next.GetVersionWithOptions(ctx, changeID, minSupported, maxSupported, options)
}

// SetQueryHandler implements WorkflowOutboundInterceptor.SetQueryHandler.
func (w *WorkflowOutboundInterceptorBase) SetQueryHandler(ctx Context, queryType string, handler any) error {
	return w.Next.SetQueryHandler(ctx, queryType, handler)
}

// SetQueryHandlerWithOptions implements WorkflowOutboundInterceptor.SetQueryHandlerWithOptions.
//
// NOTE: Experimental
func (w *WorkflowOutboundInterceptorBase) SetQueryHandlerWithOptions(
	ctx Context,
	queryType string,
	handler any,
	options QueryHandlerOptions,
) error {
	return w.Next.SetQueryHandlerWithOptions(ctx, queryType, handler, options)
}

// SetUpdateHandler implements WorkflowOutboundInterceptor.SetUpdateHandler.
func (w *WorkflowOutboundInterceptorBase) SetUpdateHandler(ctx Context, updateName string, handler any, opts UpdateHandlerOptions) error {
	return w.Next.SetUpdateHandler(ctx, updateName, handler, opts)
}

// IsReplaying implements WorkflowOutboundInterceptor.IsReplaying.
func (w *WorkflowOutboundInterceptorBase) IsReplaying(ctx Context) bool {
	return w.Next.IsReplaying(ctx)
}

// HasLastCompletionResult implements
// WorkflowOutboundInterceptor.HasLastCompletionResult.
func (w *WorkflowOutboundInterceptorBase) HasLastCompletionResult(ctx Context) bool {
	return w.Next.HasLastCompletionResult(ctx)
}

// GetLastCompletionResult implements
// WorkflowOutboundInterceptor.GetLastCompletionResult.
func (w *WorkflowOutboundInterceptorBase) GetLastCompletionResult(ctx Context, d ...any) error {
	return w.Next.GetLastCompletionResult(ctx, d...)
}

// GetLastError implements WorkflowOutboundInterceptor.GetLastError.
func (w *WorkflowOutboundInterceptorBase) GetLastError(ctx Context) error {
	return w.Next.GetLastError(ctx)
}

// NewContinueAsNewError implements
// WorkflowOutboundInterceptor.NewContinueAsNewError.
func (w *WorkflowOutboundInterceptorBase) NewContinueAsNewError(
	ctx Context,
	wfn any,
	args ...any,
) error {
	return w.Next.NewContinueAsNewError(ctx, wfn, args...)
}

// NewContinueAsNewErrorWithOptions implements
// WorkflowOutboundInterceptor.NewContinueAsNewErrorWithOptions.
func (w *WorkflowOutboundInterceptorBase) NewContinueAsNewErrorWithOptions(
	ctx Context,
	options ContinueAsNewErrorOptions,
	wfn any,
	args ...any,
) error {
	return w.Next.NewContinueAsNewErrorWithOptions(ctx, options, wfn, args...)
}

// ExecuteNexusOperation implements
// WorkflowOutboundInterceptor.ExecuteNexusOperation.
func (w *WorkflowOutboundInterceptorBase) ExecuteNexusOperation(
	ctx Context,
	input ExecuteNexusOperationInput,
) NexusOperationFuture {
	return w.Next.ExecuteNexusOperation(ctx, input)
}

// RequestCancelNexusOperation implements
// WorkflowOutboundInterceptor.RequestCancelNexusOperation.
func (w *WorkflowOutboundInterceptorBase) RequestCancelNexusOperation(ctx Context, input RequestCancelNexusOperationInput) {
	w.Next.RequestCancelNexusOperation(ctx, input)
}

func (*WorkflowOutboundInterceptorBase) mustEmbedWorkflowOutboundInterceptorBase() {}

// ClientInterceptorBase is a default implementation of ClientInterceptor meant
// for embedding. See documentation in the interceptor package for more details.
//
// Exposed as: [go.temporal.io/sdk/interceptor.ClientInterceptorBase]
type ClientInterceptorBase struct{}

// Exposed as: [go.temporal.io/sdk/interceptor.ClientInterceptor]
var _ ClientInterceptor = &ClientInterceptorBase{}

// InterceptClient implements ClientInterceptor.InterceptClient.
func (*ClientInterceptorBase) InterceptClient(
	next ClientOutboundInterceptor,
) ClientOutboundInterceptor {
	return &ClientOutboundInterceptorBase{Next: next}
}

func (*ClientInterceptorBase) mustEmbedClientInterceptorBase() {}

// ClientOutboundInterceptorBase is a default implementation of
// ClientOutboundInterceptor meant for embedding. See documentation in the
// interceptor package for more details.
//
// Exposed as: [go.temporal.io/sdk/interceptor.ClientOutboundInterceptorBase]
type ClientOutboundInterceptorBase struct {
	// Next is the next interceptor in the chain.
	Next ClientOutboundInterceptor
}

// Exposed as: [go.temporal.io/sdk/interceptor.ClientOutboundInterceptor]
var _ ClientOutboundInterceptor = &ClientOutboundInterceptorBase{}

func (c *ClientOutboundInterceptorBase) UpdateWorkflow(
	ctx context.Context,
	in *ClientUpdateWorkflowInput,
) (WorkflowUpdateHandle, error) {
	return c.Next.UpdateWorkflow(ctx, in)
}

func (c *ClientOutboundInterceptorBase) PollWorkflowUpdate(
	ctx context.Context,
	in *ClientPollWorkflowUpdateInput,
) (*ClientPollWorkflowUpdateOutput, error) {
	return c.Next.PollWorkflowUpdate(ctx, in)
}

func (c *ClientOutboundInterceptorBase) UpdateWithStartWorkflow(
	ctx context.Context,
	in *ClientUpdateWithStartWorkflowInput,
) (WorkflowUpdateHandle, error) {
	return c.Next.UpdateWithStartWorkflow(ctx, in)
}

// ExecuteWorkflow implements ClientOutboundInterceptor.ExecuteWorkflow.
func (c *ClientOutboundInterceptorBase) ExecuteWorkflow(
	ctx context.Context,
	in *ClientExecuteWorkflowInput,
) (WorkflowRun, error) {
	return c.Next.ExecuteWorkflow(ctx, in)
}

// GetWorkflowRun implements ClientOutboundInterceptor.GetWorkflowRun.
func (c *ClientOutboundInterceptorBase) GetWorkflowRun(
	ctx context.Context,
	in *ClientGetWorkflowRunInput,
) WorkflowRun {
	return c.Next.GetWorkflowRun(ctx, in)
}

// GetWorkflowResult implements ClientOutboundInterceptor.GetWorkflowResult.
func (c *ClientOutboundInterceptorBase) GetWorkflowResult(
	ctx context.Context,
	in *ClientGetWorkflowResultInput,
) (*ClientGetWorkflowResultOutput, error) {
	return c.Next.GetWorkflowResult(ctx, in)
}

// GetWorkflowHistory implements ClientOutboundInterceptor.GetWorkflowHistory.
func (c *ClientOutboundInterceptorBase) GetWorkflowHistory(
	ctx context.Context,
	in *ClientGetWorkflowHistoryInput,
) *ClientGetWorkflowHistoryOutput {
	return c.Next.GetWorkflowHistory(ctx, in)
}

// SignalWorkflow implements ClientOutboundInterceptor.SignalWorkflow.
func (c *ClientOutboundInterceptorBase) SignalWorkflow(ctx context.Context, in *ClientSignalWorkflowInput) error {
	return c.Next.SignalWorkflow(ctx, in)
}

// SignalWithStartWorkflow implements
// ClientOutboundInterceptor.SignalWithStartWorkflow.
func (c *ClientOutboundInterceptorBase) SignalWithStartWorkflow(
	ctx context.Context,
	in *ClientSignalWithStartWorkflowInput,
) (WorkflowRun, error) {
	return c.Next.SignalWithStartWorkflow(ctx, in)
}

// CancelWorkflow implements ClientOutboundInterceptor.CancelWorkflow.
func (c *ClientOutboundInterceptorBase) CancelWorkflow(ctx context.Context, in *ClientCancelWorkflowInput) error {
	return c.Next.CancelWorkflow(ctx, in)
}

// TerminateWorkflow implements ClientOutboundInterceptor.TerminateWorkflow.
func (c *ClientOutboundInterceptorBase) TerminateWorkflow(ctx context.Context, in *ClientTerminateWorkflowInput) error {
	return c.Next.TerminateWorkflow(ctx, in)
}

// QueryWorkflow implements ClientOutboundInterceptor.QueryWorkflow.
func (c *ClientOutboundInterceptorBase) QueryWorkflow(
	ctx context.Context,
	in *ClientQueryWorkflowInput,
) (converter.EncodedValue, error) {
	return c.Next.QueryWorkflow(ctx, in)
}

// DescribeWorkflow implements ClientOutboundInterceptor.DescribeWorkflow.
func (c *ClientOutboundInterceptorBase) DescribeWorkflow(
	ctx context.Context,
	in *ClientDescribeWorkflowInput,
) (*ClientDescribeWorkflowOutput, error) {
	return c.Next.DescribeWorkflow(ctx, in)
}

// CreateSchedule implements ClientOutboundInterceptor.CreateSchedule.
func (c *ClientOutboundInterceptorBase) CreateSchedule(ctx context.Context, in *ScheduleClientCreateInput) (ScheduleHandle, error) {
	return c.Next.CreateSchedule(ctx, in)
}

// ExecuteActivity implements ClientOutboundInterceptor.ExecuteActivity.
func (c *ClientOutboundInterceptorBase) ExecuteActivity(
	ctx context.Context,
	in *ClientExecuteActivityInput,
) (ClientActivityHandle, error) {
	return c.Next.ExecuteActivity(ctx, in)
}

// GetActivityHandle implements ClientOutboundInterceptor.GetActivityHandle.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) GetActivityHandle(
	in *ClientGetActivityHandleInput,
) ClientActivityHandle {
	return c.Next.GetActivityHandle(in)
}

// CancelActivity implements ClientOutboundInterceptor.CancelActivity.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) CancelActivity(
	ctx context.Context,
	in *ClientCancelActivityInput,
) error {
	return c.Next.CancelActivity(ctx, in)
}

// TerminateActivity implements ClientOutboundInterceptor.TerminateActivity.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) TerminateActivity(
	ctx context.Context,
	in *ClientTerminateActivityInput,
) error {
	return c.Next.TerminateActivity(ctx, in)
}

// PauseActivity implements ClientOutboundInterceptor.PauseActivity.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) PauseActivity(
	ctx context.Context,
	in *ClientPauseActivityInput,
) error {
	return c.Next.PauseActivity(ctx, in)
}

// UnpauseActivity implements ClientOutboundInterceptor.UnpauseActivity.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) UnpauseActivity(
	ctx context.Context,
	in *ClientUnpauseActivityInput,
) error {
	return c.Next.UnpauseActivity(ctx, in)
}

// UpdateActivityOptions implements ClientOutboundInterceptor.UpdateActivityOptions.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) UpdateActivityOptions(
	ctx context.Context,
	in *ClientUpdateActivityOptionsInput,
) (*ClientUpdateActivityOptionsOutput, error) {
	return c.Next.UpdateActivityOptions(ctx, in)
}

// DescribeActivity implements ClientOutboundInterceptor.DescribeActivity.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) DescribeActivity(
	ctx context.Context,
	in *ClientDescribeActivityInput,
) (*ClientDescribeActivityOutput, error) {
	return c.Next.DescribeActivity(ctx, in)
}

// PollActivityResult implements ClientOutboundInterceptor.PollActivityResult.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) PollActivityResult(
	ctx context.Context,
	in *ClientPollActivityResultInput,
) (*ClientPollActivityResultOutput, error) {
	return c.Next.PollActivityResult(ctx, in)
}

// ExecuteNexusOperation implements ClientOutboundInterceptor.ExecuteNexusOperation.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) ExecuteNexusOperation(
	ctx context.Context,
	in *ClientExecuteNexusOperationInput,
) (ClientNexusOperationHandle, error) {
	return c.Next.ExecuteNexusOperation(ctx, in)
}

// GetNexusOperationHandle implements ClientOutboundInterceptor.GetNexusOperationHandle.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) GetNexusOperationHandle(
	in *ClientGetNexusOperationHandleInput,
) ClientNexusOperationHandle {
	return c.Next.GetNexusOperationHandle(in)
}

// CancelNexusOperation implements ClientOutboundInterceptor.CancelNexusOperation.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) CancelNexusOperation(
	ctx context.Context,
	in *ClientCancelNexusOperationInput,
) error {
	return c.Next.CancelNexusOperation(ctx, in)
}

// TerminateNexusOperation implements ClientOutboundInterceptor.TerminateNexusOperation.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) TerminateNexusOperation(
	ctx context.Context,
	in *ClientTerminateNexusOperationInput,
) error {
	return c.Next.TerminateNexusOperation(ctx, in)
}

// DescribeNexusOperation implements ClientOutboundInterceptor.DescribeNexusOperation.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) DescribeNexusOperation(
	ctx context.Context,
	in *ClientDescribeNexusOperationInput,
) (*ClientDescribeNexusOperationOutput, error) {
	return c.Next.DescribeNexusOperation(ctx, in)
}

// PollNexusOperationResult implements ClientOutboundInterceptor.PollNexusOperationResult.
//
// NOTE: Experimental
func (c *ClientOutboundInterceptorBase) PollNexusOperationResult(
	ctx context.Context,
	in *ClientPollNexusOperationResultInput,
) (*ClientPollNexusOperationResultOutput, error) {
	return c.Next.PollNexusOperationResult(ctx, in)
}

func (*ClientOutboundInterceptorBase) mustEmbedClientOutboundInterceptorBase() {}

// NexusOperationInboundInterceptorBase is a default implementation of [NexusOperationInboundInterceptor] that
// forwards calls to the next inbound interceptor.
//
// Note: Experimental
type NexusOperationInboundInterceptorBase struct {
	// Next is the next interceptor in the chain.
	Next NexusOperationInboundInterceptor
}

// CancelOperation implements NexusOperationInboundInterceptor.
func (n *NexusOperationInboundInterceptorBase) CancelOperation(ctx context.Context, input NexusCancelOperationInput) error {
	return n.Next.CancelOperation(ctx, input)
}

// Init implements NexusOperationInboundInterceptor.
func (n *NexusOperationInboundInterceptorBase) Init(ctx context.Context, outbound NexusOperationOutboundInterceptor) error {
	return n.Next.Init(ctx, outbound)
}

// StartOperation implements NexusOperationInboundInterceptor.
func (n *NexusOperationInboundInterceptorBase) StartOperation(ctx context.Context, input NexusStartOperationInput) (nexus.HandlerStartOperationResult[any], error) {
	return n.Next.StartOperation(ctx, input)
}

// mustEmbedNexusOperationInboundInterceptorBase implements NexusOperationInboundInterceptor.
func (n *NexusOperationInboundInterceptorBase) mustEmbedNexusOperationInboundInterceptorBase() {}

var _ NexusOperationInboundInterceptor = &NexusOperationInboundInterceptorBase{}

// NexusOperationOutboundInterceptorBase is a default implementation of [NexusOperationOutboundInterceptor] that
// forwards calls to the next outbound interceptor.
//
// Note: Experimental
type NexusOperationOutboundInterceptorBase struct {
	// Next is the next interceptor in the chain.
	Next NexusOperationOutboundInterceptor
}

// GetOperationInfo implements NexusOperationOutboundInterceptor.
func (n *NexusOperationOutboundInterceptorBase) GetOperationInfo(ctx context.Context) NexusOperationInfo {
	return n.Next.GetOperationInfo(ctx)
}

// GetClient implements NexusOperationOutboundInterceptor.
func (n *NexusOperationOutboundInterceptorBase) GetClient(ctx context.Context) Client {
	return n.Next.GetClient(ctx)
}

// GetLogger implements NexusOperationOutboundInterceptor.
func (n *NexusOperationOutboundInterceptorBase) GetLogger(ctx context.Context) log.Logger {
	return n.Next.GetLogger(ctx)
}

// GetMetricsHandler implements NexusOperationOutboundInterceptor.
func (n *NexusOperationOutboundInterceptorBase) GetMetricsHandler(ctx context.Context) metrics.Handler {
	return n.Next.GetMetricsHandler(ctx)
}

// mustEmbedNexusOperationOutboundInterceptorBase implements NexusOperationOutboundInterceptor.
func (n *NexusOperationOutboundInterceptorBase) mustEmbedNexusOperationOutboundInterceptorBase() {}

var _ NexusOperationOutboundInterceptor = &NexusOperationOutboundInterceptorBase{}
