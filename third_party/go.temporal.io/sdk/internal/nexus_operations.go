package internal

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/nexus-rpc/sdk-go/nexus"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	nexuspb "go.temporal.io/api/nexus/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/internal/common/metrics"
	"go.temporal.io/sdk/log"
)

// NexusOperationInfo contains information about a currently executing Nexus operation.
//
// Exposed as: [go.temporal.io/sdk/temporalnexus.OperationInfo]
type NexusOperationInfo struct {
	// The namespace of the worker handling this Nexus operation.
	Namespace string
	// The task queue of the worker handling this Nexus operation.
	TaskQueue string
	// The endpoint this request was addressed to before forwarding to the worker.
	// Supported from server version 1.30.0.
	Endpoint string
}

// NexusOperationContext is an internal only struct that holds fields used by the temporalnexus functions.
type NexusOperationContext struct {
	client                    Client
	RequestID                 string
	Namespace                 string
	TaskQueue                 string
	Endpoint                  string
	nexusSerializationContext converter.NexusSerializationContext
	metricsHandler            metrics.Handler
	log                       log.Logger
	registry                  *registry

	// responseLinksMu guards responseLinks. A Nexus operation handler is invoked from a single
	// goroutine, but handlers are free to issue RPCs from other goroutines they spawn, so the
	// accumulator is synchronized.
	responseLinksMu sync.Mutex
	// responseLinks holds the response links returned by outbound RPCs the operation handler issues
	// (such as SignalWorkflowExecutionResponse.link or
	// SignalWithStartWorkflowExecutionResponse.signal_link). One entry per outbound RPC that
	// returned a link. Drained by the task handler when building the StartOperationResponse so each
	// RPC the handler issued gets a corresponding link on the caller workflow's history event.
	responseLinks []*commonpb.Link
}

func nexusSerializationContextToProto(ctx converter.NexusSerializationContext) *nexuspb.PropagatedSerializationContext {
	return &nexuspb.PropagatedSerializationContext{
		Endpoint:  ctx.Endpoint,
		Service:   ctx.Service,
		Operation: ctx.Operation,
	}
}

func nexusSerializationContextFromProto(ctx *nexuspb.PropagatedSerializationContext) converter.NexusSerializationContext {
	return converter.NexusSerializationContext{
		Endpoint:  ctx.GetEndpoint(),
		Service:   ctx.GetService(),
		Operation: ctx.GetOperation(),
	}
}

// serializationContextFor returns propagated if set, otherwise defaultContext. Executions and updates
// started by a Nexus handler carry the handler's context, and the results and failures they return to
// the caller must use it on both encode and decode.
func serializationContextFor(
	defaultContext converter.SerializationContext,
	propagated *nexuspb.PropagatedSerializationContext,
) converter.SerializationContext {
	if propagated == nil {
		return defaultContext
	}
	return nexusSerializationContextFromProto(propagated)
}

func propagatedNexusSerializationContextFromGoContext(ctx context.Context) *nexuspb.PropagatedSerializationContext {
	if nctx, ok := NexusOperationContextFromGoContext(ctx); ok {
		return nexusSerializationContextToProto(nctx.nexusSerializationContext)
	}
	return nil
}

// AddResponseLink appends a response link returned by an outbound RPC the operation handler issued
// (e.g. signal, signalWithStart). nil links are ignored. The task handler drains the accumulated
// response links when building the operation's StartOperationResponse.
func (nc *NexusOperationContext) AddResponseLink(link *commonpb.Link) {
	if link == nil {
		return
	}
	nc.responseLinksMu.Lock()
	defer nc.responseLinksMu.Unlock()
	nc.responseLinks = append(nc.responseLinks, link)
}

// ResponseLinks returns a copy of the response links accumulated from every outbound RPC the handler
// issued, in call order.
func (nc *NexusOperationContext) ResponseLinks() []*commonpb.Link {
	nc.responseLinksMu.Lock()
	defer nc.responseLinksMu.Unlock()
	out := make([]*commonpb.Link, len(nc.responseLinks))
	copy(out, nc.responseLinks)
	return out
}

func (nc *NexusOperationContext) ResolveWorkflowName(wf any) (string, error) {
	return GetWorkflowFunctionName(nc.registry, wf)
}

// ResolveActivityName returns the registered name of the given activity function reference (or
// string name) by consulting the worker's registry, so that activities registered under a custom
// name via [RegisterActivityOptions.Name] are resolved to that name rather than the raw Go
// function name.
func (nc *NexusOperationContext) ResolveActivityName(activity any, args []any) (string, error) {
	at, err := getValidatedActivityFunction(activity, args, nc.registry)
	if err != nil {
		return "", err
	}
	return at.Name, nil
}

// NewTemporalOperationClient is called by temporalnexus when it builds the NexusClient for a
// Temporal operation handler. NexusClient.GetWorkflowClient is the only wrapped path;
// temporalnexus.GetClient is unwrapped for every operation type.
func NewTemporalOperationClient(c Client, requestID string) Client {
	return &temporalOperationClient{Client: c, requestID: requestID}
}

// temporalOperationClient wraps the client for one Temporal operation invocation. Signals carry the
// operation's request ID so a retried Nexus task doesn't deliver them twice; because they all share
// that ID, a second signal to the same workflow would be silently dropped by the server, so any
// second signal is rejected instead.
type temporalOperationClient struct {
	Client

	requestID string
	signaled  atomic.Bool
}

func (c *temporalOperationClient) claimSignal() error {
	if !c.signaled.CompareAndSwap(false, true) {
		return nexus.NewHandlerErrorf(nexus.HandlerErrorTypeBadRequest,
			"only one signal can be sent per Nexus operation invocation")
	}
	return nil
}

func (c *temporalOperationClient) SignalWorkflow(ctx context.Context, workflowID string, runID string, signalName string, arg any) error {
	if err := c.claimSignal(); err != nil {
		return err
	}
	ctx = context.WithValue(ctx, NexusOperationRequestIDKey, c.requestID)
	err := c.Client.SignalWorkflow(ctx, workflowID, runID, signalName, arg)
	if err != nil {
		c.signaled.Store(false)
	}
	return err
}

func (c *temporalOperationClient) SignalWithStartWorkflow(ctx context.Context, workflowID string, signalName string, signalArg any,
	options StartWorkflowOptions, workflow any, workflowArgs ...any) (WorkflowRun, error) {
	// An empty ID is defaulted to a fresh UUID per call, so the server has no record to dedupe
	// against and every retried Nexus task starts another workflow.
	if workflowID == "" {
		return nil, nexus.NewHandlerErrorf(nexus.HandlerErrorTypeBadRequest,
			"signalWithStart from a Nexus operation handler requires a workflow ID")
	}
	if err := c.claimSignal(); err != nil {
		return nil, err
	}
	ctx = context.WithValue(ctx, NexusOperationRequestIDKey, c.requestID)
	run, err := c.Client.SignalWithStartWorkflow(ctx, workflowID, signalName, signalArg, options, workflow, workflowArgs...)
	if err != nil {
		c.signaled.Store(false)
	}
	return run, err
}

type nexusOperationEnvironment struct {
	NexusOperationOutboundInterceptorBase
}

func (nc *nexusOperationEnvironment) GetOperationInfo(ctx context.Context) NexusOperationInfo {
	nctx, ok := NexusOperationContextFromGoContext(ctx)
	if !ok {
		panic("temporalnexus GetInfo: Not a valid Nexus context")
	}
	return NexusOperationInfo{
		Endpoint:  nctx.Endpoint,
		Namespace: nctx.Namespace,
		TaskQueue: nctx.TaskQueue,
	}
}

func (nc *nexusOperationEnvironment) GetMetricsHandler(ctx context.Context) metrics.Handler {
	nctx, ok := NexusOperationContextFromGoContext(ctx)
	if !ok {
		panic("temporalnexus GetMetricsHandler: Not a valid Nexus context")
	}
	return nctx.metricsHandler
}

// GetLogger returns a logger to be used in a Nexus operation's context.
func (nc *nexusOperationEnvironment) GetLogger(ctx context.Context) log.Logger {
	nctx, ok := NexusOperationContextFromGoContext(ctx)
	if !ok {
		panic("temporalnexus GetMetricsHandler: Not a valid Nexus context")
	}
	return nctx.log
}

// GetClient returns a client to be used in a Nexus operation's context, this is the same client that the worker was
// created with. Client methods will panic when called from the test environment.
func (nc *nexusOperationEnvironment) GetClient(ctx context.Context) Client {
	nctx, ok := NexusOperationContextFromGoContext(ctx)
	if !ok {
		panic("temporalnexus GetMetricsHandler: Not a valid Nexus context")
	}
	return nctx.client
}

type nexusOperationOutboundInterceptorKeyType struct{}

// nexusOperationOutboundInterceptorKey is a key for associating a [NexusOperationOutboundInterceptor] with a [context.Context].
var nexusOperationOutboundInterceptorKey = nexusOperationOutboundInterceptorKeyType{}

// nexusOperationOutboundInterceptorFromGoContext gets the [NexusOperationOutboundInterceptor] associated with the given [context.Context].
func nexusOperationOutboundInterceptorFromGoContext(ctx context.Context) (nctx NexusOperationOutboundInterceptor, ok bool) {
	nctx, ok = ctx.Value(nexusOperationOutboundInterceptorKey).(NexusOperationOutboundInterceptor)
	return
}

// IsNexusOperation checks if the provided context is a Nexus operation context.
//
// Exposed as: [go.temporal.io/sdk/temporalnexus.IsNexusOperation]
func IsNexusOperation(ctx context.Context) bool {
	_, ok := NexusOperationContextFromGoContext(ctx)
	return ok
}

// GetNexusOperationInfo returns information about the currently executing Nexus operation.
//
// Exposed as: [go.temporal.io/sdk/temporalnexus.GetOperationInfo]
func GetNexusOperationInfo(ctx context.Context) NexusOperationInfo {
	interceptor, ok := nexusOperationOutboundInterceptorFromGoContext(ctx)
	if !ok {
		panic("temporalnexus GetOperationInfo: Not a valid Nexus context")
	}
	return interceptor.GetOperationInfo(ctx)
}

// GetNexusOperationMetricsHandler returns a metrics handler to be used in a Nexus operation's context.
//
// Exposed as: [go.temporal.io/sdk/temporalnexus.GetMetricsHandler]
func GetNexusOperationMetricsHandler(ctx context.Context) metrics.Handler {
	interceptor, ok := nexusOperationOutboundInterceptorFromGoContext(ctx)
	if !ok {
		panic("temporalnexus GetMetricsHandler: Not a valid Nexus context")
	}
	return interceptor.GetMetricsHandler(ctx)
}

// GetNexusOperationLogger returns a logger to be used in a Nexus operation's context.
//
// Exposed as: [go.temporal.io/sdk/temporalnexus.GetLogger]
func GetNexusOperationLogger(ctx context.Context) log.Logger {
	interceptor, ok := nexusOperationOutboundInterceptorFromGoContext(ctx)
	if !ok {
		panic("temporalnexus GetLogger: Not a valid Nexus context")
	}
	return interceptor.GetLogger(ctx)
}

// GetNexusOperationClient returns a client to be used in a Nexus operation's context, this is the same client that the
// worker was created with. Client methods will panic when called from the test environment.
//
// Exposed as: [go.temporal.io/sdk/temporalnexus.GetClient]
func GetNexusOperationClient(ctx context.Context) Client {
	interceptor, ok := nexusOperationOutboundInterceptorFromGoContext(ctx)
	if !ok {
		panic("temporalnexus GetClient: Not a valid Nexus context")
	}
	return interceptor.GetClient(ctx)
}

type nexusOperationContextKeyType struct{}

// nexusOperationContextKey is a key for associating a [NexusOperationContext] with a [context.Context].
var nexusOperationContextKey = nexusOperationContextKeyType{}

type isWorkflowRunOpContextKeyType struct{}

// IsWorkflowRunOpContextKey is a key to mark that the current context is used within a workflow run operation.
// The fake test env client verifies this key is set on the context to decide whether it should execute a method or
// panic as we don't want to expose a partial client to sync operations.
var IsWorkflowRunOpContextKey = isWorkflowRunOpContextKeyType{}

type nexusOperationRequestIDKeyType struct{}

var NexusOperationRequestIDKey = nexusOperationRequestIDKeyType{}

type nexusOperationRequestLinksKeyType struct{}

var NexusOperationRequestLinksKey = nexusOperationRequestLinksKeyType{}

// NexusOperationContextFromGoContext gets the [NexusOperationContext] associated with the given [context.Context].
func NexusOperationContextFromGoContext(ctx context.Context) (nctx *NexusOperationContext, ok bool) {
	nctx, ok = ctx.Value(nexusOperationContextKey).(*NexusOperationContext)
	return
}

// ContextWithNexusOperationContext adds the [NexusOperationContext] into the given [context.Context]
func ContextWithNexusOperationContext(ctx context.Context, nctx *NexusOperationContext) context.Context {
	if nctx == nil {
		return ctx
	}
	return context.WithValue(ctx, nexusOperationContextKey, nctx)
}

// nexusMiddleware constructs an adapter from Temporal WorkerInterceptors to a Nexus MiddlewareFunc.
func nexusMiddleware(interceptors []WorkerInterceptor) nexus.MiddlewareFunc {
	return func(ctx context.Context, next nexus.OperationHandler[any, any]) (nexus.OperationHandler[any, any], error) {
		root := &nexusInterceptorToMiddlewareAdapter{handler: next}
		var in NexusOperationInboundInterceptor = root
		for i := len(interceptors) - 1; i >= 0; i-- {
			interceptor := interceptors[i]
			in = interceptor.InterceptNexusOperation(ctx, in)
		}
		if err := in.Init(ctx, &nexusOperationEnvironment{}); err != nil {
			return nil, err
		}
		return newNexusHandler(in, root.outboundInterceptor), nil
	}
}

// nexusMiddlewareToInterceptorAdapter is an adapter from the Nexus Handler interface to the Temporal interceptor interface.
type nexusMiddlewareToInterceptorAdapter struct {
	nexus.UnimplementedOperation[any, any]
	inboundInterceptor  NexusOperationInboundInterceptor
	outboundInterceptor NexusOperationOutboundInterceptor
}

func newNexusHandler(inbound NexusOperationInboundInterceptor, outbound NexusOperationOutboundInterceptor) nexus.OperationHandler[any, any] {
	return &nexusMiddlewareToInterceptorAdapter{inboundInterceptor: inbound, outboundInterceptor: outbound}
}

func (h *nexusMiddlewareToInterceptorAdapter) Start(ctx context.Context, input any, options nexus.StartOperationOptions) (nexus.HandlerStartOperationResult[any], error) {
	ctx = context.WithValue(ctx, nexusOperationOutboundInterceptorKey, h.outboundInterceptor)
	return h.inboundInterceptor.StartOperation(ctx, NexusStartOperationInput{
		Input:   input,
		Options: options,
	})
}

func (h *nexusMiddlewareToInterceptorAdapter) Cancel(ctx context.Context, token string, options nexus.CancelOperationOptions) error {
	ctx = context.WithValue(ctx, nexusOperationOutboundInterceptorKey, h.outboundInterceptor)
	return h.inboundInterceptor.CancelOperation(ctx, NexusCancelOperationInput{
		Token:   token,
		Options: options,
	})
}

// nexusInterceptorToMiddlewareAdapter is an adapter from the Temporal interceptor interface to the Nexus Handler interface.
type nexusInterceptorToMiddlewareAdapter struct {
	NexusOperationInboundInterceptorBase
	handler             nexus.OperationHandler[any, any]
	outboundInterceptor NexusOperationOutboundInterceptor
}

// CancelOperation implements NexusOperationInboundInterceptor.
func (n *nexusInterceptorToMiddlewareAdapter) CancelOperation(ctx context.Context, input NexusCancelOperationInput) error {
	return n.handler.Cancel(ctx, input.Token, input.Options)
}

// Init implements NexusOperationInboundInterceptor.
func (n *nexusInterceptorToMiddlewareAdapter) Init(ctx context.Context, outbound NexusOperationOutboundInterceptor) error {
	n.outboundInterceptor = outbound
	return nil
}

// StartOperation implements NexusOperationInboundInterceptor.
func (n *nexusInterceptorToMiddlewareAdapter) StartOperation(ctx context.Context, input NexusStartOperationInput) (nexus.HandlerStartOperationResult[any], error) {
	return n.handler.Start(ctx, input.Input, input.Options)
}

///////////////////////////////////////////////////////////////////////////////////////////////////////////
// Most of the helpers in this section were duplicated from the server codebase at common/nexus/failure.go.
///////////////////////////////////////////////////////////////////////////////////////////////////////////

var failureTypeString = string((&failurepb.Failure{}).ProtoReflect().Descriptor().FullName())

// ProtoFailureToNexusFailure converts a proto Nexus Failure to a Nexus SDK Failure.
func protoFailureToNexusFailure(failure *nexuspb.Failure) nexus.Failure {
	return nexus.Failure{
		Message:  failure.GetMessage(),
		Metadata: failure.GetMetadata(),
		Details:  failure.GetDetails(),
	}
}

// nexusOperationFailure is a utility in use by the test environment.
func nexusOperationFailure(params ExecuteNexusOperationParams, token string, cause *failurepb.Failure) *failurepb.Failure {
	return &failurepb.Failure{
		Message: "nexus operation completed unsuccessfully",
		FailureInfo: &failurepb.Failure_NexusOperationExecutionFailureInfo{
			NexusOperationExecutionFailureInfo: &failurepb.NexusOperationFailureInfo{
				Endpoint:       params.client.Endpoint(),
				Service:        params.client.Service(),
				Operation:      params.operation,
				OperationToken: token,
				//lint:ignore SA1019 preserve legacy operation ID behavior in the test environment
				OperationId: token, // Also populate ID for backwards compatibility.
			},
		},
		Cause: cause,
	}
}

// temporalFailureToNexusFailure converts an API proto Failure to a Nexus SDK Failure setting the metadata "type" field to
// the proto fullname of the temporal API Failure message or the standard Nexus SDK failure types.
// Returns an error if the failure cannot be converted.
func temporalFailureToNexusFailure(failure *failurepb.Failure) (*nexus.Failure, error) {
	message := failure.Message
	stackTrack := failure.StackTrace
	failure.Message = ""
	failure.StackTrace = ""
	b, err := protojson.Marshal(failure)
	if err != nil {
		return nil, err
	}
	failure.Message = message
	failure.StackTrace = stackTrack
	return &nexus.Failure{
		Message:    message,
		StackTrace: stackTrack,
		Metadata:   nexusFailureMetadata,
		Details:    b,
	}, nil

}

// nexusFailureToTemporalFailure converts a Nexus Failure to an API proto Failure.
// If the failure metadata "type" field is set to the fullname of the temporal API Failure message, the failure is
// reconstructed using protojson.Unmarshal on the failure details field.
func nexusFailureToTemporalFailure(failure nexus.Failure, retryable bool) (*failurepb.Failure, error) {
	apiFailure := &failurepb.Failure{}

	if failure.Metadata != nil && failure.Metadata["type"] == failureTypeString {
		if err := protojson.Unmarshal(failure.Details, apiFailure); err != nil {
			return nil, err
		}
	} else {
		payloads, err := nexusFailureMetadataToPayloads(failure)
		if err != nil {
			return nil, err
		}
		apiFailure.FailureInfo = &failurepb.Failure_ApplicationFailureInfo{
			ApplicationFailureInfo: &failurepb.ApplicationFailureInfo{
				// Make up a type here, it's not part of the Nexus Failure spec.
				Type:         "NexusFailure",
				Details:      payloads,
				NonRetryable: !retryable,
			},
		}
	}
	// Ensure this always gets written.
	apiFailure.Message = failure.Message
	apiFailure.StackTrace = failure.StackTrace
	return apiFailure, nil
}

func nexusFailureMetadataToPayloads(failure nexus.Failure) (*commonpb.Payloads, error) {
	if len(failure.Metadata) == 0 && len(failure.Details) == 0 {
		return nil, nil
	}
	// Delete before serializing.
	failure.Message = ""
	data, err := json.Marshal(failure)
	if err != nil {
		return nil, err
	}
	return &commonpb.Payloads{
		Payloads: []*commonpb.Payload{
			{
				Metadata: map[string][]byte{
					"encoding": []byte("json/plain"),
				},
				Data: data,
			},
		},
	}, err
}

func apiOperationErrorToNexusOperationError(opErr *nexuspb.UnsuccessfulOperationError) *nexus.OperationError {
	return &nexus.OperationError{
		State: nexus.OperationState(opErr.GetOperationState()),
		Cause: &nexus.FailureError{
			Failure: protoFailureToNexusFailure(opErr.GetFailure()),
		},
	}
}

func apiHandlerErrorToNexusHandlerError(apiErr *nexuspb.HandlerError, failureConverter converter.FailureConverter) (*nexus.HandlerError, error) {
	var retryBehavior nexus.HandlerErrorRetryBehavior
	// nolint:exhaustive // unspecified is the default
	switch apiErr.GetRetryBehavior() {
	case enums.NEXUS_HANDLER_ERROR_RETRY_BEHAVIOR_RETRYABLE:
		retryBehavior = nexus.HandlerErrorRetryBehaviorRetryable
	case enums.NEXUS_HANDLER_ERROR_RETRY_BEHAVIOR_NON_RETRYABLE:
		retryBehavior = nexus.HandlerErrorRetryBehaviorNonRetryable
	}

	nexusErr := &nexus.HandlerError{
		Type:          nexus.HandlerErrorType(apiErr.GetErrorType()),
		RetryBehavior: retryBehavior,
	}

	failure, err := nexusFailureToTemporalFailure(protoFailureToNexusFailure(apiErr.GetFailure()), nexusErr.Retryable())
	if err != nil {
		return nil, err
	}
	nexusErr.Cause = failureConverter.FailureToError(failure)
	return nexusErr, nil
}

func operationErrorToTemporalFailure(opErr *nexus.OperationError) (*failurepb.Failure, error) {
	var nexusFailure nexus.Failure
	failureErr, ok := opErr.Cause.(*nexus.FailureError)
	if ok {
		nexusFailure = failureErr.Failure
	} else if opErr.Cause != nil {
		nexusFailure = nexus.Failure{Message: opErr.Cause.Error()}
	}

	// Canceled must be translated into a CanceledFailure to match the SDK expectation.
	if opErr.State == nexus.OperationStateCanceled {
		if nexusFailure.Metadata != nil && nexusFailure.Metadata["type"] == failureTypeString {
			temporalFailure, err := nexusFailureToTemporalFailure(nexusFailure, false)
			if err != nil {
				return nil, err
			}
			if temporalFailure.GetCanceledFailureInfo() != nil {
				// We already have a CanceledFailure, use it.
				return temporalFailure, nil
			}
			// Fallback to encoding the Nexus failure into a Temporal canceled failure, we expect operations that end up
			// as canceled to have a CanceledFailureInfo object.
		}
		payloads, err := nexusFailureMetadataToPayloads(nexusFailure)
		if err != nil {
			return nil, err
		}
		return &failurepb.Failure{
			Message: nexusFailure.Message,
			FailureInfo: &failurepb.Failure_CanceledFailureInfo{
				CanceledFailureInfo: &failurepb.CanceledFailureInfo{
					Details: payloads,
				},
			},
		}, nil
	}

	return nexusFailureToTemporalFailure(nexusFailure, false)
}

///////////////////////////////////////////////////////////////////////////////////////////////////////////
// END Nexus failure section.
///////////////////////////////////////////////////////////////////////////////////////////////////////////
