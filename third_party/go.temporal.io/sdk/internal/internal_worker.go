package internal

// All code in this file is private to the package.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang/mock/gomock"
	"github.com/google/uuid"
	"github.com/nexus-rpc/sdk-go/nexus"
	commonpb "go.temporal.io/api/common/v1"
	deploymentpb "go.temporal.io/api/deployment/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/temporalproto"
	workerpb "go.temporal.io/api/worker/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/api/workflowservicemock/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/internal/common/metrics"
	"go.temporal.io/sdk/internal/common/serializer"
	"go.temporal.io/sdk/internal/common/util"
	"go.temporal.io/sdk/internal/extstore"
	ilog "go.temporal.io/sdk/internal/log"
	"go.temporal.io/sdk/log"
)

const (
	// Set to 2 pollers for now, can adjust later if needed. The typical RTT (round-trip time) is below 1ms within data
	// center. And the poll API latency is about 5ms. With 2 poller, we could achieve around 300~400 RPS.
	defaultConcurrentPollRoutineSize = 2

	defaultAutoscalingInitialNumberOfPollers = 5   // Default initial number of pollers when using autoscaling.
	defaultAutoscalingMinimumNumberOfPollers = 1   // Default minimum number of pollers when using autoscaling.
	defaultAutoscalingMaximumNumberOfPollers = 100 // Default maximum number of pollers when using autoscaling.

	defaultMaxConcurrentActivityExecutionSize = 1000   // Large concurrent activity execution size (1k)
	defaultWorkerActivitiesPerSecond          = 100000 // Large activity executions/sec (unlimited)

	defaultMaxConcurrentLocalActivityExecutionSize = 1000   // Large concurrent activity execution size (1k)
	defaultWorkerLocalActivitiesPerSecond          = 100000 // Large activity executions/sec (unlimited)

	defaultTaskQueueActivitiesPerSecond = 100000.0 // Large activity executions/sec (unlimited)

	defaultMaxConcurrentTaskExecutionSize = 1000   // hardcoded max task execution size.
	defaultWorkerTaskExecutionRate        = 100000 // Large task execution rate (unlimited)

	defaultPollerRate = 1000

	defaultMaxConcurrentSessionExecutionSize = 1000 // Large concurrent session execution size (1k)

	defaultMaxEagerActivityReservationsPerWorkflowTask = 3

	defaultDeadlockDetectionTimeout = time.Second // By default kill workflow tasks that are running more than 1 sec.
	// Unlimited deadlock detection timeout is used when we want to allow workflow tasks to run indefinitely, such
	// as during debugging.
	unlimitedDeadlockDetectionTimeout = math.MaxInt64

	testTagsContextKey = "temporal-testTags"

	workflowLiteralRegistrationHint = "It looks like you registered a function literal (closure) without giving it an alias. " +
		"Register it with RegisterWorkflowWithOptions and set Name to a stable, unique name."

	activityLiteralRegistrationHint = "It looks like you registered a function literal (closure) without giving it an alias. " +
		"Register it with RegisterActivityWithOptions and set Name to a stable, unique name."
)

type (
	// WorkflowWorker wraps the code for hosting workflow types.
	// And worker is mapped 1:1 with task queue. If the user want's to poll multiple
	// task queue names they might have to manage 'n' workers for 'n' task queues.
	workflowWorker struct {
		executionParameters workerExecutionParameters
		workflowService     workflowservice.WorkflowServiceClient
		taskProcessor       *workflowTaskProcessor
		worker              *baseWorker
		localActivityWorker *baseWorker
		identity            string
		// stopC is created by newWorkflowWorkerInternal, exposed through
		// WorkerStopChannel to workflow task handling, passed to local activity
		// contexts as the worker stop channel, and closed by workflowWorker.Stop().
		stopC chan struct{}
		// localActivityStopC is created by newWorkflowTaskWorkerInternal and exposed
		// to the local activity tunnel. workflowWorker.Stop() closes it after the
		// workflow worker stops, causing the tunnel to stop accepting local activity work.
		localActivityStopC chan struct{}
		stickyUUID         string // Used for ShutdownWorker call
	}

	// ActivityWorker wraps the code for hosting activity types.
	// TODO: Worker doing heartbeating automatically while activity task is running
	activityWorker struct {
		executionParameters workerExecutionParameters
		workflowService     workflowservice.WorkflowServiceClient
		poller              taskPoller
		worker              *baseWorker
		identity            string
		// stopC is created by newActivityWorker, exposed through WorkerStopChannel
		// to activity task polling/handling, and closed by activityWorker.Stop().
		stopC chan struct{}
	}

	// sessionWorker wraps the code for hosting session creation, completion and
	// activities within a session. The creationWorker polls from a global taskqueue,
	// while the activityWorker polls from a resource specific taskqueue.
	sessionWorker struct {
		creationWorker *activityWorker
		activityWorker *activityWorker
	}

	// Worker overrides.
	workerOverrides struct {
		workflowTaskHandler WorkflowTaskHandler
		activityTaskHandler ActivityTaskHandler
		slotSupplier        SlotSupplier
	}

	// workerExecutionParameters defines worker configure/execution options.
	workerExecutionParameters struct {
		// Namespace name.
		Namespace string

		RPCTimeout time.Duration

		// Task queue name to poll.
		TaskQueue string

		// The tuner for the worker.
		Tuner WorkerTuner

		// Defines rate limiting on number of activity tasks that can be executed per second per worker.
		WorkerActivitiesPerSecond float64

		// Defines rate limiting on number of local activities that can be executed per second per worker.
		WorkerLocalActivitiesPerSecond float64

		// TaskQueueActivitiesPerSecond is the throttling limit for activity tasks controlled by the server.
		TaskQueueActivitiesPerSecond float64

		// User can provide an identity for the debuggability. If not provided the framework has
		// a default option.
		Identity string

		// The worker's build ID used for versioning, if one was set.
		//
		// Deprecated: use DeploymentOptions.Version for versioning instead.
		WorkerBuildID string

		// If true the worker is opting in to build ID based versioning.
		//
		// Deprecated: use DeploymentOptions.UseVersioning for versioning instead.
		UseBuildIDForVersioning bool

		// Worker deployment options containing all deployment versioning configuration.
		DeploymentOptions WorkerDeploymentOptions

		PreferredVersionProvider PreferredVersionProvider

		MetricsHandler metrics.Handler

		Logger log.Logger

		// Enable logging in replay mode
		EnableLoggingInReplay bool

		// Context to store user provided key/value pairs
		BackgroundContext context.Context

		// Context cancel function to cancel user context
		BackgroundContextCancel context.CancelCauseFunc

		StickyScheduleToStartTimeout time.Duration

		// WorkflowPanicPolicy is used for configuring how client's workflow task handler deals with workflow
		// code panicking which includes non backwards compatible changes to the workflow code without appropriate
		// versioning (see workflow.GetVersion).
		// The default behavior is to block workflow execution until the problem is fixed.
		WorkflowPanicPolicy WorkflowPanicPolicy

		DataConverter converter.DataConverter

		FailureConverter converter.FailureConverter

		// WorkerStopTimeout is the time delay before hard terminate worker
		WorkerStopTimeout time.Duration

		// WorkerStopChannel is a read only channel listen on worker close. The worker will close the channel before exit.
		WorkerStopChannel <-chan struct{}

		// WorkerFatalErrorCallback is a callback for fatal errors that should stop
		// the worker.
		WorkerFatalErrorCallback func(error)

		// noRepoll is shared by the aggregate worker's remote-task pollers.
		// Local activities keep polling so accepted workflow tasks can finish.
		noRepoll *atomic.Bool

		// SessionResourceID is a unique identifier of the resource the session will consume
		SessionResourceID string

		ContextPropagators []ContextPropagator

		// DeadlockDetectionTimeout specifies workflow task timeout.
		DeadlockDetectionTimeout time.Duration

		DefaultHeartbeatThrottleInterval time.Duration

		MaxHeartbeatThrottleInterval time.Duration

		// WorkflowTaskPollerBehavior defines the behavior of the workflow task poller.
		WorkflowTaskPollerBehavior PollerBehavior

		// ActivityTaskPollerBehavior defines the behavior of the activity task poller.
		ActivityTaskPollerBehavior PollerBehavior

		// NexusTaskPollerBehavior defines the behavior of the nexus task poller.
		NexusTaskPollerBehavior PollerBehavior

		// pollerAutoEnrollEligibility records, per poller type, whether the poller
		// was left at its default and is therefore eligible for poller-autoscaling
		// auto-enrollment when the namespace advertises the
		// PollerAutoscalingAutoEnroll capability.
		pollerAutoEnrollEligibility autoEnrollEligibility

		// Pointer to the shared worker cache
		cache *WorkerCache

		eagerActivityExecutor *eagerActivityExecutor

		capabilities *workflowservice.GetSystemInfoResponse_Capabilities

		pollTimeTracker *pollTimeTracker

		workerInstanceKey string

		workerControlTaskQueue   string
		pollerGroupSnapshotStore *pollerGroupSnapshotStore

		activityCancellationCallbacks *activityCancellationCallbacks

		workerPollCompleteOnShutdown *atomic.Bool

		// Set to true during start() when the namespace has the poller_autoscaling capability.
		serverSupportsAutoscaling *atomic.Bool

		// Resolved during start() from the namespace's pagination capability and size limit.
		workflowTaskCompletionPagination *workflowTaskCompletionPaginationConfig

		inboundPayloadVisitor PayloadVisitor

		outboundPayloadVisitor PayloadVisitor

		storageParams extstore.StorageParameters

		setErrorLimits func(*payloadLimits)
	}

	// HistoryJSONOptions are options for HistoryFromJSON.
	HistoryJSONOptions struct {
		// LastEventID, if set, will only load history up to this ID (inclusive).
		LastEventID int64
	}

	// Represents the version of a specific worker deployment.
	//
	// Exposed as: [go.temporal.io/sdk/worker.WorkerDeploymentVersion]
	WorkerDeploymentVersion struct {
		// The name of the deployment this worker version belongs to
		DeploymentName string
		// The build id specific to this worker
		BuildID string
	}
)

var debugMode = os.Getenv("TEMPORAL_DEBUG") != ""

// newWorkflowWorker returns an instance of the workflow worker.
func newWorkflowWorker(client *WorkflowClient, params workerExecutionParameters, ppMgr pressurePointMgr, registry *registry) *workflowWorker {
	return newWorkflowWorkerInternal(client, params, ppMgr, nil, registry)
}

func ensureRequiredParams(params *workerExecutionParameters) {
	if params.Identity == "" {
		params.Identity = getWorkerIdentity(params.TaskQueue)
	}
	if params.Logger == nil {
		// create default logger if user does not supply one (should happen in tests only).
		params.Logger = ilog.NewDefaultLogger()
	}
	if params.MetricsHandler == nil {
		params.MetricsHandler = metrics.NopHandler
		params.Logger.Info("No metrics handler configured for temporal worker. Use NopHandler as default.")
	}
	if params.DataConverter == nil {
		params.DataConverter = converter.GetDefaultDataConverter()
		params.Logger.Info("No DataConverter configured for temporal worker. Use default one.")
	}
	if params.FailureConverter == nil {
		params.FailureConverter = GetDefaultFailureConverter()
	}
	if params.Tuner == nil {
		// Err cannot happen since these slot numbers are guaranteed valid
		params.Tuner, _ = NewFixedSizeTuner(
			FixedSizeTunerOptions{
				NumWorkflowSlots:      defaultMaxConcurrentTaskExecutionSize,
				NumActivitySlots:      defaultMaxConcurrentActivityExecutionSize,
				NumLocalActivitySlots: defaultMaxConcurrentLocalActivityExecutionSize,
				NumNexusSlots:         defaultMaxConcurrentTaskExecutionSize,
			})
	}
	if params.pollTimeTracker == nil {
		params.pollTimeTracker = &pollTimeTracker{}
	}
}

// getBuildID returns either the user-defined build ID if it was provided, or an autogenerated one
// using getBinaryChecksum
func (params *workerExecutionParameters) getBuildID() string {
	if params.WorkerBuildID != "" {
		return params.WorkerBuildID
	}
	return getBinaryChecksum()
}

// Returns true if this worker is part of our system namespace or per-namespace system task queue
func (params *workerExecutionParameters) isInternalWorker() bool {
	return params.Namespace == "temporal-system" || params.TaskQueue == "temporal-sys-per-ns-tq"
}

func workerControlTaskQueue(namespace, groupingKey string) string {
	return fmt.Sprintf("temporal-sys/worker-commands/%s/%s", namespace, groupingKey)
}

func newWorkflowWorkerInternal(client *WorkflowClient, params workerExecutionParameters, ppMgr pressurePointMgr, overrides *workerOverrides, registry *registry) *workflowWorker {
	workerStopChannel := make(chan struct{})
	params.WorkerStopChannel = getReadOnlyChannel(workerStopChannel)
	// Get a workflow task handler.
	ensureRequiredParams(&params)
	var taskHandler WorkflowTaskHandler
	if overrides != nil && overrides.workflowTaskHandler != nil {
		taskHandler = overrides.workflowTaskHandler
	} else {
		taskHandler = newWorkflowTaskHandler(params, ppMgr, registry)
	}
	return newWorkflowTaskWorkerInternal(taskHandler, taskHandler, client, params, workerStopChannel, registry.interceptors)
}

func newWorkflowTaskWorkerInternal(
	taskHandler WorkflowTaskHandler,
	contextManager WorkflowContextManager,
	client *WorkflowClient,
	params workerExecutionParameters,
	stopC chan struct{},
	interceptors []WorkerInterceptor,
) *workflowWorker {
	ensureRequiredParams(&params)
	var service workflowservice.WorkflowServiceClient
	if client != nil {
		service = client.workflowService
		params.RPCTimeout = client.rpcTimeout
	}
	// Generate stickyUUID here so it can be stored in workflowWorker for ShutdownWorker call
	stickyUUID := uuid.NewString()
	taskProcessor := newWorkflowTaskProcessor(taskHandler, contextManager, service, params, stickyUUID)

	bwo := baseWorkerOptions{
		pollerRate:                   defaultPollerRate,
		slotSupplier:                 params.Tuner.GetWorkflowTaskSlotSupplier(),
		maxTaskPerSecond:             defaultWorkerTaskExecutionRate,
		taskProcessor:                taskProcessor,
		workerType:                   "WorkflowWorker",
		identity:                     params.Identity,
		buildId:                      params.getBuildID(),
		deploymentOptions:            params.DeploymentOptions,
		logger:                       params.Logger,
		stopTimeout:                  params.WorkerStopTimeout,
		fatalErrCb:                   params.WorkerFatalErrorCallback,
		noRepoll:                     params.noRepoll,
		metricsHandler:               params.MetricsHandler,
		workerPollCompleteOnShutdown: params.workerPollCompleteOnShutdown,
		slotReservationData: slotReservationData{
			taskQueue:     params.TaskQueue,
			taskQueueKind: enumspb.TASK_QUEUE_KIND_UNSPECIFIED,
		},
	}

	worker := newBaseWorker(bwo)

	// We want a separate stop channel for local activities because when a worker shuts down,
	// we need to allow pending local activities to finish running for that workflow task.
	// After all pending local activities are handled, we then close the local activity stop channel.
	laStopChannel := make(chan struct{})
	laParams := params
	laParams.WorkerStopChannel = laStopChannel

	// laTunnel is the glue that hookup 3 parts
	laTunnel := newLocalActivityTunnel(getReadOnlyChannel(laStopChannel))

	// 1) workflow handler will send local activity task to laTunnel
	if handlerImpl, ok := taskHandler.(*workflowTaskHandlerImpl); ok {
		handlerImpl.laTunnel = laTunnel
	}

	// 2) local activity task poller will poll from laTunnel, and result will be pushed to laTunnel
	localActivityTaskPoller := newLocalActivityPoller(laParams, laTunnel, interceptors, client, stopC)
	localActivityWorker := newBaseWorker(baseWorkerOptions{
		slotSupplier:     laParams.Tuner.GetLocalActivitySlotSupplier(),
		maxTaskPerSecond: laParams.WorkerLocalActivitiesPerSecond,
		taskPollers: []scalableTaskPoller{
			newScalableTaskPoller(
				localActivityTaskPoller,
				params.Logger,
				NewPollerBehaviorSimpleMaximum(
					PollerBehaviorSimpleMaximumOptions{
						MaximumNumberOfPollers: 2,
					},
				),
				"",
				nil,
				nil,
			),
		},
		taskProcessor:  localActivityTaskPoller,
		workerType:     "LocalActivityWorker",
		identity:       laParams.Identity,
		buildId:        laParams.getBuildID(),
		logger:         laParams.Logger,
		stopTimeout:    laParams.WorkerStopTimeout,
		fatalErrCb:     laParams.WorkerFatalErrorCallback,
		metricsHandler: laParams.MetricsHandler,
		slotReservationData: slotReservationData{
			taskQueue:     params.TaskQueue,
			taskQueueKind: enumspb.TASK_QUEUE_KIND_NORMAL,
		},
	},
	)

	// 3) the result pushed to laTunnel will be sent as task to workflow worker to process.
	worker.taskQueueCh = laTunnel.resultCh

	return &workflowWorker{
		executionParameters: params,
		workflowService:     service,
		taskProcessor:       taskProcessor,
		worker:              worker,
		localActivityWorker: localActivityWorker,
		identity:            params.Identity,
		stopC:               stopC,
		localActivityStopC:  laStopChannel,
		stickyUUID:          stickyUUID,
	}
}

// Start the worker.
func (ww *workflowWorker) Start() error {
	// AggregatedWorker initializes pollers after resolving namespace capabilities.
	// Fall back to the configured behavior for direct internal starts.
	if ww.worker.options.taskPollers == nil {
		ww.initializeTaskPollers(ww.executionParameters.WorkflowTaskPollerBehavior)
	}
	ww.localActivityWorker.Start()
	ww.worker.Start()
	return nil // TODO: propagate error
}

// Stop the worker.
func (ww *workflowWorker) Stop() {
	close(ww.stopC)
	// TODO: remove the stop methods in favor of the workerStopChannel
	ww.worker.Stop()
	close(ww.localActivityStopC)
	ww.localActivityWorker.Stop()
}

// buildWorkflowScalableTaskPollers builds the set of workflow task pollers for
// the given behavior. A simple-maximum behavior uses a single Mixed poller,
// while an autoscaling behavior uses a NonSticky poller plus a Sticky poller
// when the sticky cache is enabled. Each returned poller is a reusable object
// with independent concurrency control, not one object per poll attempt.
func buildWorkflowScalableTaskPollers(
	taskProcessor *workflowTaskProcessor,
	behavior PollerBehavior,
	params workerExecutionParameters,
	maxSlots int,
) []scalableTaskPoller {
	switch behavior := behavior.(type) {
	case *pollerBehaviorAutoscaling:
		var pollerGroups *pollerGroupManager
		if taskProcessor.stickyCacheSize <= 0 && params.pollerGroupSnapshotStore != nil {
			pollerGroups = newPollerGroupManager(params.pollerGroupSnapshotStore)
		}

		normalTaskPoller := taskProcessor.createPoller(NonSticky, pollerGroups)
		normalScalablePoller := newScalableTaskPoller(
			normalTaskPoller,
			params.Logger,
			behavior,
			metrics.PollerTypeWorkflowTask,
			params.serverSupportsAutoscaling,
			pollerGroups,
		)
		if taskProcessor.stickyCacheSize <= 0 {
			return []scalableTaskPoller{normalScalablePoller}
		}

		balancer := newWorkflowAutoscalingBalancer(
			maxSlots,
			int64(behavior.initialNumberOfPollers),
			params.pollerGroupSnapshotStore,
		)
		stickyTaskPoller := taskProcessor.createPoller(Sticky, nil)
		stickyScalablePoller := newScalablePollerWithTarget(
			stickyTaskPoller,
			params.Logger,
			behavior,
			metrics.PollerTypeWorkflowStickyTask,
			params.serverSupportsAutoscaling,
			nil,
			balancer.setStickyTarget,
		)
		normalScalablePoller.autoscalingBalancer = balancer
		normalScalablePoller.pollKind = enumspb.TASK_QUEUE_KIND_NORMAL
		stickyScalablePoller.autoscalingBalancer = balancer
		stickyScalablePoller.pollKind = enumspb.TASK_QUEUE_KIND_STICKY
		normalTaskPoller.autoscalingBalancer = balancer
		stickyTaskPoller.autoscalingBalancer = balancer

		return []scalableTaskPoller{normalScalablePoller, stickyScalablePoller}
	default: // *pollerBehaviorSimpleMaximum
		mixedScalablePoller := newScalableTaskPoller(
			taskProcessor.createPoller(Mixed, nil),
			params.Logger,
			behavior,
			metrics.PollerTypeWorkflowTask,
			params.serverSupportsAutoscaling,
			nil,
		)
		if taskProcessor.stickyCacheSize > 0 {
			// One pool polls both queues, so the heartbeat's sticky slot reports the same
			// target. Leaving it unset would pair a real current_pollers with a zero target.
			mixedScalablePoller.alsoTargetsPollerType = metrics.PollerTypeWorkflowStickyTask
		}
		return []scalableTaskPoller{mixedScalablePoller}
	}
}

func (ww *workflowWorker) initializeTaskPollers(behavior PollerBehavior) {
	taskProcessor := ww.worker.options.taskProcessor.(*workflowTaskProcessor)
	ww.executionParameters.WorkflowTaskPollerBehavior = behavior
	ww.worker.initializeTaskPollers(buildWorkflowScalableTaskPollers(
		taskProcessor,
		behavior,
		ww.executionParameters,
		ww.worker.slotSupplier.inner.MaxSlots(),
	))
}

func newSessionWorker(client *WorkflowClient, params workerExecutionParameters, env *registry, maxConcurrentSessionExecutionSize int) *sessionWorker {
	if params.Identity == "" {
		params.Identity = getWorkerIdentity(params.TaskQueue)
	}
	// For now resourceID is hidden from user so we will always create a unique one for each worker.
	if params.SessionResourceID == "" {
		params.SessionResourceID = uuid.NewString()
	}
	sessionEnvironment := newSessionEnvironment(params.SessionResourceID, maxConcurrentSessionExecutionSize)

	creationTaskqueue := getCreationTaskqueue(params.TaskQueue)
	params.BackgroundContext = context.WithValue(params.BackgroundContext, sessionEnvironmentContextKey, sessionEnvironment)
	params.TaskQueue = sessionEnvironment.GetResourceSpecificTaskqueue()
	params.pollerGroupSnapshotStore = newPollerGroupSnapshotStore()
	// For the resource specific task queue, we don't need to include deployment options
	// Save them to restore later
	deployments := params.DeploymentOptions
	useBuildIDForVersioning := params.UseBuildIDForVersioning
	// Disable versioning for activity worker within session, but still send deployment name for debug purpose
	params.DeploymentOptions.UseVersioning = false
	params.UseBuildIDForVersioning = false
	activityWorker := newActivityWorker(client, params,
		&workerOverrides{
			slotSupplier: params.Tuner.GetSessionActivitySlotSupplier(),
		}, env, nil)

	params.ActivityTaskPollerBehavior = NewPollerBehaviorSimpleMaximum(
		PollerBehaviorSimpleMaximumOptions{
			MaximumNumberOfPollers: 1,
		},
	)
	params.TaskQueue = creationTaskqueue
	params.pollerGroupSnapshotStore = nil
	params.DeploymentOptions = deployments
	params.UseBuildIDForVersioning = useBuildIDForVersioning
	// Although we have session token bucket to limit session size across creation
	// and recreation, we also limit it here for creation only
	overrides := &workerOverrides{}
	overrides.slotSupplier, _ = NewFixedSizeSlotSupplier(maxConcurrentSessionExecutionSize)
	creationWorker := newActivityWorker(client, params, overrides, env, sessionEnvironment.GetTokenBucket())

	return &sessionWorker{
		creationWorker: creationWorker,
		activityWorker: activityWorker,
	}
}

func (sw *sessionWorker) Start() error {
	err := sw.creationWorker.Start()
	if err != nil {
		return err
	}

	err = sw.activityWorker.Start()
	if err != nil {
		sw.creationWorker.Stop()
		return err
	}
	return nil
}

func (sw *sessionWorker) Stop() {
	sw.creationWorker.Stop()
	sw.activityWorker.Stop()
}

func (sw *sessionWorker) getCreationWorkerTaskQueue() string {
	return sw.creationWorker.executionParameters.TaskQueue
}

func (sw *sessionWorker) getActivityWorkerTaskQueue() string {
	return sw.activityWorker.executionParameters.TaskQueue
}

func newActivityWorker(
	client *WorkflowClient,
	params workerExecutionParameters,
	overrides *workerOverrides,
	env *registry,
	sessionTokenBucket *sessionTokenBucket,
) *activityWorker {
	var service workflowservice.WorkflowServiceClient
	if client != nil {
		service = client.workflowService
		params.RPCTimeout = client.rpcTimeout
	}
	workerStopChannel := make(chan struct{}, 1)
	params.WorkerStopChannel = getReadOnlyChannel(workerStopChannel)
	ensureRequiredParams(&params)

	// Get a activity task handler.
	var taskHandler ActivityTaskHandler
	if overrides != nil && overrides.activityTaskHandler != nil {
		taskHandler = overrides.activityTaskHandler
	} else {
		taskHandler = newActivityTaskHandler(client, params, env)
	}

	poller := newActivityTaskPoller(taskHandler, service, params, nil)
	var slotSupplier SlotSupplier
	if overrides != nil && overrides.slotSupplier != nil {
		slotSupplier = overrides.slotSupplier
	} else {
		slotSupplier = params.Tuner.GetActivityTaskSlotSupplier()
	}
	bwo := baseWorkerOptions{
		pollerRate:                   defaultPollerRate,
		slotSupplier:                 slotSupplier,
		maxTaskPerSecond:             params.WorkerActivitiesPerSecond,
		taskProcessor:                poller,
		workerType:                   "ActivityWorker",
		identity:                     params.Identity,
		buildId:                      params.getBuildID(),
		logger:                       params.Logger,
		stopTimeout:                  params.WorkerStopTimeout,
		fatalErrCb:                   params.WorkerFatalErrorCallback,
		noRepoll:                     params.noRepoll,
		backgroundContextCancel:      params.BackgroundContextCancel,
		metricsHandler:               params.MetricsHandler,
		sessionTokenBucket:           sessionTokenBucket,
		workerPollCompleteOnShutdown: params.workerPollCompleteOnShutdown,
		slotReservationData: slotReservationData{
			taskQueue:     params.TaskQueue,
			taskQueueKind: enumspb.TASK_QUEUE_KIND_NORMAL,
		},
	}

	base := newBaseWorker(bwo)
	return &activityWorker{
		executionParameters: params,
		workflowService:     service,
		worker:              base,
		poller:              poller,
		identity:            params.Identity,
		stopC:               workerStopChannel,
	}
}

// Start the worker.
func (aw *activityWorker) Start() error {
	// AggregatedWorker initializes pollers after resolving namespace capabilities.
	// Fall back to the configured behavior for direct internal starts.
	if aw.worker.options.taskPollers == nil {
		aw.initializeTaskPollers(aw.executionParameters.ActivityTaskPollerBehavior)
	}
	aw.worker.Start()
	return nil // TODO: propagate errors
}

// Stop the worker.
func (aw *activityWorker) Stop() {
	close(aw.stopC)
	aw.worker.Stop()
}

func (aw *activityWorker) initializeTaskPollers(behavior PollerBehavior) {
	aw.executionParameters.ActivityTaskPollerBehavior = behavior
	var pollerGroups *pollerGroupManager
	if _, ok := behavior.(*pollerBehaviorAutoscaling); ok {
		pollerGroups = newPollerGroupManager(aw.executionParameters.pollerGroupSnapshotStore)
	}
	if poller, ok := aw.poller.(*activityTaskPoller); ok {
		poller.pollerGroups = pollerGroups
	}
	aw.worker.initializeTaskPollers([]scalableTaskPoller{
		newScalableTaskPoller(
			aw.poller,
			aw.executionParameters.Logger,
			behavior,
			metrics.PollerTypeActivityTask,
			aw.executionParameters.serverSupportsAutoscaling,
			pollerGroups,
		),
	})
}

type registry struct {
	sync.Mutex
	nexusServices                 map[string]*nexus.Service
	workflowFuncMap               map[string]any
	workflowAliasMap              map[string]string
	workflowVersioningBehaviorMap map[string]VersioningBehavior
	activityFuncMap               map[string]activity
	activityAliasMap              map[string]string
	dynamicWorkflow               any
	dynamicWorkflowOptions        DynamicRegisterWorkflowOptions
	dynamicActivity               activity
	_                             DynamicRegisterActivityOptions
	interceptors                  []WorkerInterceptor
}

type registryOptions struct {
	disableAliasing bool
}

func (r *registry) RegisterWorkflow(af any) {
	r.RegisterWorkflowWithOptions(af, RegisterWorkflowOptions{})
}

func (r *registry) RegisterWorkflowWithOptions(
	wf any,
	options RegisterWorkflowOptions,
) {
	// Support direct registration of WorkflowDefinition
	factory, ok := wf.(WorkflowDefinitionFactory)
	if ok {
		if len(options.Name) == 0 {
			panic("WorkflowDefinitionFactory must be registered with a name")
		}
		if strings.HasPrefix(options.Name, temporalPrefix) {
			panic(temporalPrefixError)
		}
		r.Lock()
		defer r.Unlock()
		r.workflowFuncMap[options.Name] = factory
		r.workflowVersioningBehaviorMap[options.Name] = options.VersioningBehavior
		return
	}
	// Validate that it is a function
	fnType := reflect.TypeOf(wf)
	if err := validateFnFormat(fnType, true, false); err != nil {
		panic(err)
	}
	fnName, _ := getFunctionName(wf)
	alias := options.Name
	registerName := fnName
	if len(alias) > 0 {
		registerName = alias
	}

	if strings.HasPrefix(alias, temporalPrefix) || strings.HasPrefix(registerName, temporalPrefix) {
		panic(temporalPrefixError)
	}

	r.Lock()
	defer r.Unlock()

	if !options.DisableAlreadyRegisteredCheck {
		if _, ok := r.workflowFuncMap[registerName]; ok {
			message := fmt.Sprintf("workflow name \"%v\" is already registered", registerName)
			if mightBeFunctionLiteral(wf) && len(alias) == 0 {
				message += ". " + workflowLiteralRegistrationHint
			}
			panic(message)
		}
	}
	r.workflowFuncMap[registerName] = wf
	r.workflowVersioningBehaviorMap[registerName] = options.VersioningBehavior

	if len(alias) > 0 && r.workflowAliasMap != nil {
		r.workflowAliasMap[fnName] = alias
	}
}

func (r *registry) RegisterDynamicWorkflow(wf any, options DynamicRegisterWorkflowOptions) {
	r.Lock()
	defer r.Unlock()
	// Support direct registration of WorkflowDefinition
	factory, ok := wf.(WorkflowDefinitionFactory)
	if ok {
		r.dynamicWorkflow = factory
		r.dynamicWorkflowOptions = options
		return
	}

	// Validate that it is a function
	fnType := reflect.TypeOf(wf)
	if err := validateFnFormat(fnType, true, true); err != nil {
		panic(err)
	}
	if r.dynamicWorkflow != nil {
		panic("dynamic workflow already registered")
	}
	r.dynamicWorkflow = wf
	r.dynamicWorkflowOptions = options
}

func (r *registry) RegisterActivity(af any) {
	r.RegisterActivityWithOptions(af, RegisterActivityOptions{})
}

func (r *registry) RegisterActivityWithOptions(
	af any,
	options RegisterActivityOptions,
) {
	// Support direct registration of activity
	a, ok := af.(activity)
	if ok {
		if options.Name == "" {
			panic("registration of activity interface requires name")
		}
		if strings.HasPrefix(options.Name, temporalPrefix) {
			panic(temporalPrefixError)
		}
		r.addActivityWithLock(options.Name, a)
		return
	}
	// Validate that it is a function
	fnType := reflect.TypeOf(af)
	if fnType.Kind() == reflect.Pointer && fnType.Elem().Kind() == reflect.Struct {
		registerErr := r.registerActivityStructWithOptions(af, options)
		if registerErr != nil {
			panic(registerErr)
		}
		return
	}
	if err := validateFnFormat(fnType, false, false); err != nil {
		panic(err)
	}
	fnName, _ := getFunctionName(af)
	alias := options.Name
	registerName := fnName
	if len(alias) > 0 {
		registerName = alias
	}

	if strings.HasPrefix(alias, temporalPrefix) || strings.HasPrefix(registerName, temporalPrefix) {
		panic(temporalPrefixError)
	}

	r.Lock()
	defer r.Unlock()

	if !options.DisableAlreadyRegisteredCheck {
		if _, ok := r.activityFuncMap[registerName]; ok {
			message := fmt.Sprintf("activity type \"%v\" is already registered", registerName)
			if mightBeFunctionLiteral(af) && len(alias) == 0 {
				message += ". " + activityLiteralRegistrationHint
			}
			panic(message)
		}
	}
	r.activityFuncMap[registerName] = &activityExecutor{name: registerName, fn: af}
	if len(alias) > 0 && r.activityAliasMap != nil {
		r.activityAliasMap[fnName] = alias
	}
}

func (r *registry) registerActivityStructWithOptions(aStruct any, options RegisterActivityOptions) error {
	r.Lock()
	defer r.Unlock()

	structValue := reflect.ValueOf(aStruct)
	structType := structValue.Type()
	count := 0
	for i := 0; i < structValue.NumMethod(); i++ {
		methodValue := structValue.Method(i)
		method := structType.Method(i)
		// skip private method
		if method.PkgPath != "" {
			continue
		}
		name := method.Name
		if err := validateFnFormat(method.Type, false, false); err != nil {
			if options.SkipInvalidStructFunctions {
				continue
			}

			return fmt.Errorf("method %s of %s: %w", name, structType.Name(), err)
		}
		registerName := options.Name + name
		if !options.DisableAlreadyRegisteredCheck {
			if _, ok := r.getActivityNoLock(registerName); ok {
				return fmt.Errorf("activity type \"%v\" is already registered", registerName)
			}
		}
		r.activityFuncMap[registerName] = &activityExecutor{name: registerName, fn: methodValue.Interface()}
		count++
	}
	if count == 0 {
		return fmt.Errorf("no activities (public methods) found at %v structure", structType.Name())
	}
	return nil
}

func (r *registry) RegisterDynamicActivity(af any, options DynamicRegisterActivityOptions) {
	r.Lock()
	defer r.Unlock()
	// Support direct registration of activity
	a, ok := af.(activity)
	if ok {
		r.dynamicActivity = a
		return
	}
	// Validate that it is a function
	fnType := reflect.TypeOf(af)
	if err := validateFnFormat(fnType, false, true); err != nil {
		panic(err)
	}
	if r.dynamicActivity != nil {
		panic("dynamic activity already registered")
	}
	r.dynamicActivity = &activityExecutor{name: "", fn: af, dynamic: true}
}

func (r *registry) RegisterNexusService(service *nexus.Service) {
	if service.Name == "" {
		panic(fmt.Errorf("tried to register a service with no name"))
	}

	r.Lock()
	defer r.Unlock()

	if _, ok := r.nexusServices[service.Name]; ok {
		panic(fmt.Sprintf("service name \"%v\" is already registered", service.Name))
	}
	r.nexusServices[service.Name] = service
}

func (r *registry) getWorkflowAlias(fnName string) (string, bool) {
	r.Lock()
	defer r.Unlock()
	alias, ok := r.workflowAliasMap[fnName]
	return alias, ok
}

func (r *registry) getWorkflowFn(fnName string) (any, bool) {
	r.Lock()
	defer r.Unlock()
	if fn, ok := r.workflowFuncMap[fnName]; ok {
		return fn, ok
	}

	if r.dynamicWorkflow != nil {
		return "dynamic", true
	}
	return nil, false
}

func (r *registry) getRegisteredWorkflowTypes() []string {
	r.Lock()
	defer r.Unlock()
	var result []string
	for t := range r.workflowFuncMap {
		result = append(result, t)
	}
	return result
}

func (r *registry) getActivityAlias(fnName string) (string, bool) {
	r.Lock()
	defer r.Unlock()
	alias, ok := r.activityAliasMap[fnName]
	return alias, ok
}

func (r *registry) addActivityWithLock(fnName string, a activity) {
	r.Lock()
	defer r.Unlock()
	r.activityFuncMap[fnName] = a
}

func (r *registry) GetActivity(fnName string) (activity, bool) {
	r.Lock()
	defer r.Unlock()
	if a, ok := r.activityFuncMap[fnName]; ok {
		return a, ok
	}
	if r.dynamicActivity != nil {
		return r.dynamicActivity, true
	}
	return nil, false
}

func (r *registry) getActivityNoLock(fnName string) (activity, bool) {
	a, ok := r.activityFuncMap[fnName]
	return a, ok
}

func (r *registry) getRegisteredActivities() []activity {
	r.Lock()
	defer r.Unlock()
	numActivities := len(r.activityFuncMap)
	if r.dynamicActivity != nil {
		numActivities++
	}
	activities := make([]activity, 0, numActivities)
	for _, a := range r.activityFuncMap {
		activities = append(activities, a)
	}
	if r.dynamicActivity != nil {
		activities = append(activities, r.dynamicActivity)
	}
	return activities
}

func (r *registry) getRegisteredActivityTypes() []string {
	r.Lock()
	defer r.Unlock()
	var result []string
	for name := range r.activityFuncMap {
		result = append(result, name)
	}
	return result
}

func (r *registry) getWorkflowDefinition(wt WorkflowType) (WorkflowDefinition, error) {
	lookup := wt.Name
	if alias, ok := r.getWorkflowAlias(lookup); ok {
		lookup = alias
	}
	wf, ok := r.getWorkflowFn(lookup)
	if !ok {
		supported := strings.Join(r.getRegisteredWorkflowTypes(), ", ")
		return nil, fmt.Errorf("unable to find workflow type: %v. Supported types: [%v]", lookup, supported)
	}
	wdf, ok := wf.(WorkflowDefinitionFactory)
	if ok {
		return wdf.NewWorkflowDefinition(), nil
	}
	var dynamic bool
	if d, ok := wf.(string); ok && d == "dynamic" {
		r.Lock()
		wf = r.dynamicWorkflow
		r.Unlock()
		dynamic = true
	}
	// A dynamic workflow may itself be a WorkflowDefinitionFactory (e.g. the
	// RoadRunner PHP host process registers one shared factory). Honor it here,
	// as the named-workflow path above does, rather than wrapping it in a
	// reflection-based workflowExecutor, which panics on the non-func value.
	if wdf, ok := wf.(WorkflowDefinitionFactory); ok {
		return wdf.NewWorkflowDefinition(), nil
	}
	executor := &workflowExecutor{workflowType: lookup, fn: wf, interceptors: r.interceptors, dynamic: dynamic}
	return newSyncWorkflowDefinition(executor), nil
}

func (r *registry) getWorkflowVersioningBehavior(wt WorkflowType) (VersioningBehavior, bool) {
	lookup := wt.Name
	if alias, ok := r.getWorkflowAlias(lookup); ok {
		lookup = alias
	}
	r.Lock()
	defer r.Unlock()
	if behavior, ok := r.workflowVersioningBehaviorMap[lookup]; ok {
		return behavior, behavior != VersioningBehaviorUnspecified
	}
	if r.dynamicWorkflowOptions.LoadDynamicRuntimeOptions != nil {
		config := LoadDynamicRuntimeOptionsDetails{WorkflowType: wt}
		if behavior, err := r.dynamicWorkflowOptions.LoadDynamicRuntimeOptions(config); err == nil {
			return behavior.VersioningBehavior, true
		}
	}
	return VersioningBehaviorUnspecified, false
}

func (r *registry) getNexusService(service string) *nexus.Service {
	r.Lock()
	defer r.Unlock()
	return r.nexusServices[service]
}

func (r *registry) getRegisteredNexusServices() []*nexus.Service {
	r.Lock()
	defer r.Unlock()
	result := make([]*nexus.Service, 0, len(r.nexusServices))
	for _, s := range r.nexusServices {
		result = append(result, s)
	}
	return result
}

// Validate function parameters.
func validateFnFormat(fnType reflect.Type, isWorkflow, isDynamic bool) error {
	if fnType.Kind() != reflect.Func {
		return fmt.Errorf("expected a func as input but was %s", fnType.Kind())
	}
	if isWorkflow {
		if fnType.NumIn() < 1 {
			return fmt.Errorf(
				"expected at least one argument of type workflow.Context in function, found %d input arguments",
				fnType.NumIn(),
			)
		}
		if !isWorkflowContext(fnType.In(0)) {
			return fmt.Errorf("expected first argument to be workflow.Context but found %s", fnType.In(0))
		}
	} else {
		// For activities, check that workflow context is not accidentally provided
		// Activities registered with structs will have their receiver as the first argument so confirm it is not
		// in the first two arguments
		for i := 0; i < fnType.NumIn() && i < 2; i++ {
			if isWorkflowContext(fnType.In(i)) {
				return fmt.Errorf("unexpected use of workflow context for an activity")
			}
		}
	}

	if isDynamic {
		if fnType.NumIn() != 2 {
			return fmt.Errorf(
				"expected function to have two arguments, first being workflow.Context and second being an EncodedValues type, found %d arguments", fnType.NumIn(),
			)
		}
		if fnType.In(1) != reflect.TypeFor[converter.EncodedValues]() {
			return fmt.Errorf("expected function to EncodedValues as second argument, got %s", fnType.In(1).Elem())
		}
	}

	// Return values
	// We expect either
	// 	<result>, error
	//	(or) just error
	if fnType.NumOut() < 1 || fnType.NumOut() > 2 {
		return fmt.Errorf(
			"expected function to return result, error or just error, but found %d return values", fnType.NumOut(),
		)
	}
	if fnType.NumOut() > 1 && !isValidResultType(fnType.Out(0)) {
		return fmt.Errorf(
			"expected function first return value to return valid type but found: %v", fnType.Out(0).Kind(),
		)
	}
	if !isError(fnType.Out(fnType.NumOut() - 1)) {
		return fmt.Errorf(
			"expected function second return value to return error but found %v", fnType.Out(fnType.NumOut()-1).Kind(),
		)
	}
	return nil
}

func newRegistry() *registry { return newRegistryWithOptions(registryOptions{}) }

func newRegistryWithOptions(options registryOptions) *registry {
	r := &registry{
		workflowFuncMap:               make(map[string]any),
		workflowVersioningBehaviorMap: make(map[string]VersioningBehavior),
		activityFuncMap:               make(map[string]activity),
		nexusServices:                 make(map[string]*nexus.Service),
	}
	if !options.disableAliasing {
		r.workflowAliasMap = make(map[string]string)
		r.activityAliasMap = make(map[string]string)
	}
	return r
}

// Wrapper to execute workflow functions.
type workflowExecutor struct {
	workflowType string
	fn           any
	interceptors []WorkerInterceptor
	dynamic      bool
}

func (we *workflowExecutor) Execute(ctx Context, input *commonpb.Payloads) (*commonpb.Payloads, error) {
	dataConverter := WithWorkflowContext(ctx, getWorkflowEnvOptions(ctx).DataConverter)
	fnType := reflect.TypeOf(we.fn)

	var args []any
	var err error
	if we.dynamic {
		// Dynamic workflows take in a single EncodedValues, encode all data into single EncodedValues
		args = []any{newEncodedValues(input, dataConverter)}
	} else {
		args, err = decodeArgsToRawValues(dataConverter, fnType, input)
		if err != nil {
			return nil, fmt.Errorf(
				"unable to decode the workflow function input payload with error: %w, function name: %v",
				err, we.workflowType)
		}
	}

	envInterceptor := getWorkflowEnvironmentInterceptor(ctx)
	envInterceptor.fn = we.fn

	// Execute and serialize result
	result, err := envInterceptor.inboundInterceptor.ExecuteWorkflow(ctx, &ExecuteWorkflowInput{Args: args})
	var serializedResult *commonpb.Payloads
	if err == nil && result != nil {
		serializedResult, err = encodeArg(resultDataConverter(ctx), result)
	}
	return serializedResult, err
}

// Wrapper to execute activity functions.
type activityExecutor struct {
	name             string
	fn               any
	skipInterceptors bool
	dynamic          bool
}

func (ae *activityExecutor) ActivityType() ActivityType {
	return ActivityType{Name: ae.name}
}

func (ae *activityExecutor) GetFunction() any {
	return ae.fn
}

func (ae *activityExecutor) Execute(ctx context.Context, input *commonpb.Payloads) (*commonpb.Payloads, error) {
	fnType := reflect.TypeOf(ae.fn)
	dataConverter := getDataConverterFromActivityCtx(ctx)

	var args []any
	var err error
	if ae.dynamic {
		// Dynamic activities take in a single EncodedValues, encode all data into single EncodedValues
		args = []any{newEncodedValues(input, dataConverter)}
	} else {
		args, err = decodeArgsToRawValues(dataConverter, fnType, input)
		if err != nil {
			return nil, fmt.Errorf(
				"unable to decode the activity function input payload with error: %w for function name: %v",
				err, ae.name)
		}
	}

	return ae.ExecuteWithActualArgs(ctx, args)
}

func (ae *activityExecutor) ExecuteWithActualArgs(ctx context.Context, args []any) (*commonpb.Payloads, error) {
	dataConverter := callerFacingDataConverterFromActivityCtx(ctx)

	envInterceptor := getActivityEnvironmentInterceptor(ctx)
	envInterceptor.fn = ae.fn

	// Execute and serialize result
	interceptor := envInterceptor.inboundInterceptor
	if ae.skipInterceptors {
		interceptor = envInterceptor
	}
	result, resultErr := interceptor.ExecuteActivity(ctx, &ExecuteActivityInput{Args: args})
	var serializedResult *commonpb.Payloads
	if result != nil {
		// As a special case, if the result is already a payload, just use it
		var ok bool
		if serializedResult, ok = result.(*commonpb.Payloads); !ok {
			var err error
			if serializedResult, err = encodeArg(dataConverter, result); err != nil {
				return nil, err
			}
		}
	}
	return serializedResult, resultErr
}

func getDataConverterFromActivityCtx(ctx context.Context) converter.DataConverter {
	var dataConverter converter.DataConverter

	env := getActivityEnvironmentFromCtx(ctx)
	if env != nil && env.dataConverter != nil {
		dataConverter = env.dataConverter
	} else {
		dataConverter = converter.GetDefaultDataConverter()
	}
	return WithContext(ctx, dataConverter)
}

// callerFacingDataConverterFromActivityCtx returns the data converter for payloads that may reach the Nexus
// caller when the activity was started by a Nexus handler. This includes heartbeat details, since the server
// includes the last ones in timeout failures. See serializationContextFor.
func callerFacingDataConverterFromActivityCtx(ctx context.Context) converter.DataConverter {
	if env := getActivityEnvironmentFromCtx(ctx); env != nil && env.callerFacingDataConverter != nil {
		return WithContext(ctx, env.callerFacingDataConverter)
	}
	return getDataConverterFromActivityCtx(ctx)
}

func getActivityEnvironmentFromCtx(ctx context.Context) *activityEnvironment {
	if ctx == nil || ctx.Value(activityEnvContextKey) == nil {
		return nil
	}
	return ctx.Value(activityEnvContextKey).(*activityEnvironment)
}

// AggregatedWorker combines management of both workflowWorker and activityWorker worker lifecycle.
type AggregatedWorker struct {
	// Stored for creating a nexus worker on Start.
	executionParams workerExecutionParameters
	// Memoized start function. Ensures start runs once and returns the same error when called multiple times.
	memoizedStart func() error

	client         *WorkflowClient
	workflowWorker *workflowWorker
	activityWorker *activityWorker
	sessionWorker  *sessionWorker
	nexusWorker    *nexusWorker
	logger         log.Logger
	registry       *registry
	// Stores a boolean indicating whether the worker has already been started.
	started      atomic.Bool
	shuttingDown atomic.Bool
	// stopC is created in NewAggregatedWorker and closed when stopping begins,
	// to notify Run() and prevent restart. Stop() joins the entire cleanup.
	// Child worker stop channels are closed later by their own Stop methods.
	stopC    chan struct{}
	stopOnce sync.Once
	// stopDone closes after the selected Stop caller finishes all worker cleanup.
	// Other Stop callers wait here without holding the owner selection lock.
	stopDone     chan struct{}
	fatalErr     error
	fatalErrLock sync.Mutex
	capabilities *workflowservice.GetSystemInfoResponse_Capabilities

	workerInstanceKey     string
	plugins               []WorkerPlugin
	pluginRegistryOptions *WorkerPluginConfigureWorkerRegistryOptions // Never nil

	heartbeatMetrics             *heartbeatMetricsHandler
	heartbeatCallback            func() *workerpb.WorkerHeartbeat
	workerPollCompleteOnShutdown *atomic.Bool
	cacheLease                   *workerCacheLease

	// pendingEnvironment is attached to every heartbeat (periodic and shutdown) until the server
	// accepts one, at which point heartbeatSuccess clears it.
	pendingEnvironment atomic.Pointer[workerpb.EnvironmentInfo]
}

// RegisterWorkflow registers workflow implementation with the AggregatedWorker
func (aw *AggregatedWorker) RegisterWorkflow(w any) {
	if aw.workflowWorker == nil {
		panic("workflow worker disabled, cannot register workflow")
	}
	if aw.executionParams.UseBuildIDForVersioning &&
		(aw.executionParams.DeploymentOptions.Version != WorkerDeploymentVersion{}) &&
		aw.executionParams.DeploymentOptions.DefaultVersioningBehavior == VersioningBehaviorUnspecified {
		panic("workflow type does not have a versioning behavior")
	}
	if aw.pluginRegistryOptions.OnRegisterWorkflow != nil {
		aw.pluginRegistryOptions.OnRegisterWorkflow(w, RegisterWorkflowOptions{})
	}
	aw.registry.RegisterWorkflow(w)
}

// RegisterWorkflowWithOptions registers workflow implementation with the AggregatedWorker
func (aw *AggregatedWorker) RegisterWorkflowWithOptions(w any, options RegisterWorkflowOptions) {
	if aw.workflowWorker == nil {
		panic("workflow worker disabled, cannot register workflow")
	}
	if options.VersioningBehavior == VersioningBehaviorUnspecified &&
		(aw.executionParams.DeploymentOptions.Version != WorkerDeploymentVersion{}) &&
		aw.executionParams.UseBuildIDForVersioning &&
		aw.executionParams.DeploymentOptions.DefaultVersioningBehavior == VersioningBehaviorUnspecified {
		panic("workflow type does not have a versioning behavior")
	}
	if aw.pluginRegistryOptions.OnRegisterWorkflow != nil {
		aw.pluginRegistryOptions.OnRegisterWorkflow(w, options)
	}
	aw.registry.RegisterWorkflowWithOptions(w, options)
}

// RegisterDynamicWorkflow registers dynamic workflow implementation with the AggregatedWorker
func (aw *AggregatedWorker) RegisterDynamicWorkflow(w any, options DynamicRegisterWorkflowOptions) {
	if aw.workflowWorker == nil {
		panic("workflow worker disabled, cannot register workflow")
	}
	if options.LoadDynamicRuntimeOptions == nil && aw.executionParams.UseBuildIDForVersioning &&
		(aw.executionParams.DeploymentOptions.Version != WorkerDeploymentVersion{}) &&
		aw.executionParams.DeploymentOptions.DefaultVersioningBehavior == VersioningBehaviorUnspecified {
		panic("dynamic workflow does not have a versioning behavior")
	}
	if aw.pluginRegistryOptions.OnRegisterDynamicWorkflow != nil {
		aw.pluginRegistryOptions.OnRegisterDynamicWorkflow(w, options)
	}
	aw.registry.RegisterDynamicWorkflow(w, options)
}

// RegisterActivity registers activity implementation with the AggregatedWorker
func (aw *AggregatedWorker) RegisterActivity(a any) {
	if aw.pluginRegistryOptions.OnRegisterActivity != nil {
		aw.pluginRegistryOptions.OnRegisterActivity(a, RegisterActivityOptions{})
	}
	aw.registry.RegisterActivity(a)
}

// RegisterActivityWithOptions registers activity implementation with the AggregatedWorker
func (aw *AggregatedWorker) RegisterActivityWithOptions(a any, options RegisterActivityOptions) {
	if aw.pluginRegistryOptions.OnRegisterActivity != nil {
		aw.pluginRegistryOptions.OnRegisterActivity(a, options)
	}
	aw.registry.RegisterActivityWithOptions(a, options)
}

// RegisterDynamicActivity registers the dynamic activity function with options.
// Registering activities via a structure is not supported for dynamic activities.
func (aw *AggregatedWorker) RegisterDynamicActivity(a any, options DynamicRegisterActivityOptions) {
	if aw.pluginRegistryOptions.OnRegisterDynamicActivity != nil {
		aw.pluginRegistryOptions.OnRegisterDynamicActivity(a, options)
	}
	aw.registry.RegisterDynamicActivity(a, options)
}

func (aw *AggregatedWorker) RegisterNexusService(service *nexus.Service) {
	if aw.started.Load() {
		panic(errors.New("cannot register Nexus services after worker start"))
	}
	if aw.pluginRegistryOptions.OnRegisterNexusService != nil {
		aw.pluginRegistryOptions.OnRegisterNexusService(service)
	}
	aw.registry.RegisterNexusService(service)
}

// Start the worker in a non-blocking fashion.
// The actual work is done in the memoized "start" function to ensure duplicate calls are returned a consistent error.
func (aw *AggregatedWorker) Start() error {
	aw.assertNotStopped()
	return aw.memoizedStart()
}

// start the worker. This method is memoized using sync.OnceValue in memoizedStart.
func (aw *AggregatedWorker) start() error {
	aw.started.Store(true)

	if err := initBinaryChecksum(); err != nil {
		return fmt.Errorf("failed to get executable checksum: %v", err)
	} else if err = aw.client.ensureInitialized(context.Background()); err != nil {
		return err
	}
	// Populate the capabilities. This should be the only time it is written too.
	capabilities, err := aw.client.loadCapabilities(context.Background())
	if err != nil {
		return err
	}
	proto.Merge(aw.capabilities, capabilities)

	nsData, err := aw.client.loadNamespaceData(aw.executionParams.MetricsHandler)
	if err != nil {
		return err
	}
	// Seed poller groups before the first poll.
	aw.executionParams.pollerGroupSnapshotStore.updateGroups(nsData.pollerGroupsInfo)
	if aw.sessionWorker != nil {
		aw.sessionWorker.activityWorker.executionParameters.pollerGroupSnapshotStore.updateGroups(nsData.pollerGroupsInfo)
	}

	if aw.executionParams.setErrorLimits != nil {
		payloadSizeError := int64(0)
		if nsData.limits.BlobSizeLimitError > 0 {
			payloadSizeError = nsData.limits.BlobSizeLimitError
		}
		memoSizeError := int64(0)
		if nsData.limits.MemoSizeLimitError > 0 {
			memoSizeError = nsData.limits.MemoSizeLimitError
		}
		aw.executionParams.setErrorLimits(&payloadLimits{
			payloadSize: payloadSizeError,
			memoSize:    memoSizeError,
		})
	}

	if nsData.capabilities.GetWorkerPollCompleteOnShutdown() {
		aw.workerPollCompleteOnShutdown.Store(true)
	}

	if nsData.capabilities.GetWorkflowTaskCompletionPagination() {
		aw.executionParams.workflowTaskCompletionPagination.enabled.Store(true)
		aw.executionParams.workflowTaskCompletionPagination.sizeLimit.Store(nsData.limits.GetWorkflowTaskCompletionSizeLimitError())
	}

	if nsData.capabilities.GetPollerAutoscaling() {
		aw.executionParams.serverSupportsAutoscaling.Store(true)
	}

	// If the namespace opts workers into poller autoscaling, auto-enroll any
	// poller type that was left at its default (the user set neither a fixed
	// poller count nor a poller behavior). Auto-enroll implies full autoscaling
	// support, including scaling down, so it also enables serverSupportsAutoscaling.
	if nsData.capabilities.GetPollerAutoscalingAutoEnroll() {
		aw.executionParams.serverSupportsAutoscaling.Store(true)
		autoscaling := NewPollerBehaviorAutoscaling(PollerBehaviorAutoscalingOptions{})
		if aw.executionParams.pollerAutoEnrollEligibility.nexusTask {
			aw.executionParams.NexusTaskPollerBehavior = autoscaling
		}
		if aw.executionParams.pollerAutoEnrollEligibility.workflowTask && !util.IsInterfaceNil(aw.workflowWorker) {
			aw.executionParams.WorkflowTaskPollerBehavior = autoscaling
		}
		if aw.executionParams.pollerAutoEnrollEligibility.activityTask {
			if !util.IsInterfaceNil(aw.activityWorker) {
				aw.executionParams.ActivityTaskPollerBehavior = autoscaling
			}
		}
	}

	// Poller behavior can depend on namespace capabilities, so workflow and
	// activity scalable task pollers are initialized only after those capabilities
	// have been resolved.
	if !util.IsInterfaceNil(aw.workflowWorker) {
		aw.workflowWorker.initializeTaskPollers(aw.executionParams.WorkflowTaskPollerBehavior)
	}

	if !util.IsInterfaceNil(aw.workflowWorker) {
		if err := aw.workflowWorker.Start(); err != nil {
			return err
		}
		if aw.client.eagerDispatcher != nil {
			aw.client.eagerDispatcher.registerWorker(aw.workflowWorker)
		}
	}
	if !util.IsInterfaceNil(aw.activityWorker) {
		aw.activityWorker.initializeTaskPollers(aw.executionParams.ActivityTaskPollerBehavior)
		if err := aw.activityWorker.Start(); err != nil {
			// stop workflow worker.
			if !util.IsInterfaceNil(aw.workflowWorker) {
				if aw.workflowWorker.worker.isWorkerStarted {
					if aw.client.eagerDispatcher != nil {
						aw.client.eagerDispatcher.deregisterWorker(aw.workflowWorker)
					}
					aw.workflowWorker.Stop()
				}
			}
			return err
		}
	}

	if !util.IsInterfaceNil(aw.sessionWorker) && len(aw.registry.getRegisteredActivities()) > 0 {
		aw.logger.Info("Starting session worker")
		// The session activity worker uses the effective activity poller behavior.
		// The session creation worker retains its fixed single-poller behavior.
		aw.sessionWorker.activityWorker.initializeTaskPollers(aw.executionParams.ActivityTaskPollerBehavior)
		aw.sessionWorker.creationWorker.initializeTaskPollers(
			aw.sessionWorker.creationWorker.executionParameters.ActivityTaskPollerBehavior,
		)
		if err := aw.sessionWorker.Start(); err != nil {
			// stop workflow worker and activity worker.
			if !util.IsInterfaceNil(aw.workflowWorker) {
				if aw.workflowWorker.worker.isWorkerStarted {
					aw.workflowWorker.Stop()
				}
			}
			if !util.IsInterfaceNil(aw.activityWorker) {
				if aw.activityWorker.worker.isWorkerStarted {
					aw.activityWorker.Stop()
				}
			}
			return err
		}
	}
	nexusServices := aw.registry.getRegisteredNexusServices()
	if len(nexusServices) > 0 {
		reg := nexus.NewServiceRegistry()
		for _, service := range nexusServices {
			if err := reg.Register(service); err != nil {
				return fmt.Errorf("failed to create a nexus worker: %w", err)
			}
		}
		reg.Use(nexusMiddleware(aw.registry.interceptors))
		handler, err := reg.NewHandler()
		if err != nil {
			return fmt.Errorf("failed to create a nexus worker: %w", err)
		}
		aw.nexusWorker, err = newNexusWorker(nexusWorkerOptions{
			executionParameters: aw.executionParams,
			client:              aw.client,
			workflowService:     aw.client.workflowService,
			handler:             handler,
			registry:            aw.registry,
		})
		if err != nil {
			return fmt.Errorf("failed to create a nexus worker: %w", err)
		}
		if err := aw.nexusWorker.Start(); err != nil {
			return fmt.Errorf("failed to start a nexus worker: %w", err)
		}
	}

	if aw.client.workerHeartbeatInterval > 0 {
		if err := aw.registerHeartbeatWorker(); err != nil {
			return fmt.Errorf("failed to register heartbeat worker: %w", err)
		}
	}
	aw.logger.Info("Started Worker")
	return nil
}

func (aw *AggregatedWorker) assertNotStopped() {
	stopped := true
	select {
	case <-aw.stopC:
	default:
		stopped = false
	}
	if stopped {
		panic("attempted to start a worker that has been stopped before")
	}
}

var (
	binaryChecksum     string
	binaryChecksumLock sync.Mutex
)

// SetBinaryChecksum sets the identifier of the binary(aka BinaryChecksum).
// The identifier is mainly used in recording reset points when respondWorkflowTaskCompleted. For each workflow, the very first
// workflow task completed by a binary will be associated as a auto-reset point for the binary. So that when a customer wants to
// mark the binary as bad, the workflow will be reset to that point -- which means workflow will forget all progress generated
// by the binary.
// On another hand, once the binary is marked as bad, the bad binary cannot poll workflow queue and make any progress any more.
func SetBinaryChecksum(checksum string) {
	binaryChecksumLock.Lock()
	defer binaryChecksumLock.Unlock()

	binaryChecksum = checksum
}

func initBinaryChecksum() error {
	binaryChecksumLock.Lock()
	defer binaryChecksumLock.Unlock()

	return initBinaryChecksumLocked()
}

func getBinaryChecksum() string {
	binaryChecksumLock.Lock()
	defer binaryChecksumLock.Unlock()

	if len(binaryChecksum) == 0 {
		err := initBinaryChecksumLocked()
		if err != nil {
			panic(err)
		}
	}

	return binaryChecksum
}

// Run the worker in a blocking fashion. Stop the worker when interruptCh receives signal.
// Pass worker.InterruptCh() to stop the worker with SIGINT or SIGTERM.
// Pass nil to stop the worker with external Stop() call.
// Pass any other `<-chan interface{}` and Run will wait for signal from that channel.
// Returns the startup error if Start fails. After a successful start, waits for
// worker cleanup and returns the first fatal error, even if interruption races
// with that error. Returns nil if no fatal error was recorded, even if cleanup
// encounters errors.
func (aw *AggregatedWorker) Run(interruptCh <-chan any) error {
	if err := aw.Start(); err != nil {
		return err
	}
	select {
	case s := <-interruptCh:
		aw.logger.Info("Worker has been stopped.", "Signal", s)
	case <-aw.stopC:
	}
	// Both stop requests join cleanup before reading the first fatal cause,
	// so an interrupt cannot turn a recorded worker failure into success.
	aw.Stop()
	aw.fatalErrLock.Lock()
	defer aw.fatalErrLock.Unlock()
	return aw.fatalErr
}

// Stop prevents new polling and waits for worker cleanup to return.
// Concurrent calls wait for the same cleanup operation.
func (aw *AggregatedWorker) Stop() {
	ownsStop := false
	aw.stopOnce.Do(func() { ownsStop = true })
	if ownsStop {
		aw.stop()
		close(aw.stopDone)
		return
	}
	<-aw.stopDone
}

func (aw *AggregatedWorker) stop() {
	// Prevent pollers from re-polling before closing stopC. There is a race
	// between stopC being closed and the ShutdownWorker RPC: a poll can
	// complete naturally (e.g. long-poll timeout) right after stopC fires
	// but before ShutdownWorker is sent, causing the poller to loop and
	// re-poll.
	aw.executionParams.noRepoll.Store(true)

	close(aw.stopC)

	aw.sendShutdownWorkerRPC()

	// Issue stop through plugins
	stop := func(context.Context, WorkerPluginStopWorkerOptions) {
		if !util.IsInterfaceNil(aw.workflowWorker) {
			if aw.client.eagerDispatcher != nil {
				aw.client.eagerDispatcher.deregisterWorker(aw.workflowWorker)
			}
			aw.workflowWorker.Stop()
		}
		if !util.IsInterfaceNil(aw.activityWorker) {
			aw.activityWorker.Stop()
		}
		if !util.IsInterfaceNil(aw.sessionWorker) {
			aw.sessionWorker.Stop()
		}
		if !util.IsInterfaceNil(aw.nexusWorker) {
			aw.nexusWorker.Stop()
		}
	}
	for i := len(aw.plugins) - 1; i >= 0; i-- {
		plugin := aw.plugins[i]
		next := stop
		stop = func(ctx context.Context, options WorkerPluginStopWorkerOptions) {
			plugin.StopWorker(ctx, options, next)
		}
	}
	stop(context.Background(), WorkerPluginStopWorkerOptions{
		WorkerInstanceKey: aw.workerInstanceKey,
	})

	aw.unregisterHeartbeatWorker()
	if aw.cacheLease != nil {
		aw.cacheLease.release()
	}

	aw.logger.Info("Stopped Worker")
}

// handleFatalError runs outside the polling goroutines that Stop waits for.
// It delivers the recorded cause to the caller's hook, then joins cleanup.
func (aw *AggregatedWorker) handleFatalError(err error, hook func(error)) {
	if hook != nil {
		hook(err)
	}
	aw.Stop()
}

// pollerTargets returns the target poller count per poller type across this worker's pollers.
func (aw *AggregatedWorker) pollerTargets() map[string]int32 {
	targets := make(map[string]int32, 4)
	if aw.workflowWorker != nil {
		aw.workflowWorker.worker.collectPollerTargets(targets)
	}
	if aw.activityWorker != nil {
		aw.activityWorker.worker.collectPollerTargets(targets)
	}
	if aw.nexusWorker != nil {
		aw.nexusWorker.worker.collectPollerTargets(targets)
	}
	return targets
}

func (aw *AggregatedWorker) registerHeartbeatWorker() error {
	if aw.client.heartbeatManager == nil {
		return nil
	}
	return aw.client.heartbeatManager.registerWorker(aw)
}

func (aw *AggregatedWorker) unregisterHeartbeatWorker() {
	if aw.client.heartbeatManager == nil {
		return
	}
	aw.client.heartbeatManager.unregisterWorker(aw)
}

// heartbeatSuccess is invoked by the shared namespace heartbeat worker once the server has
// accepted a heartbeat from this worker.
func (aw *AggregatedWorker) heartbeatSuccess() {
	aw.pendingEnvironment.Store(nil)
}

// sendShutdownWorkerRPC sends a ShutdownWorker RPC to notify the server that this worker is shutting down.
// When StickyTaskQueue is non-empty, this is a best-effort attempt to indicate to Matching service
// that this workflow task poller's sticky queue will no longer be polled.
//
// NOTE: errors are logged but don't fail the shutdown.
func (aw *AggregatedWorker) sendShutdownWorkerRPC() {
	aw.shuttingDown.Store(true)

	ctx := context.Background()
	grpcCtx, cancel := newGRPCContext(ctx, aw.client.rpcTimeout, grpcMetricsHandler(aw.executionParams.MetricsHandler))
	defer cancel()

	var heartbeat *workerpb.WorkerHeartbeat
	if aw.heartbeatCallback != nil {
		heartbeat = aw.heartbeatCallback()
	}

	var stickyTaskQueue string
	if aw.workflowWorker != nil && aw.workflowWorker.stickyUUID != "" {
		stickyTaskQueue = getWorkerTaskQueue(aw.workflowWorker.stickyUUID)
	}

	aw.sendShutdownWorkerRPCForTaskQueue(grpcCtx, aw.executionParams.TaskQueue, stickyTaskQueue, aw.activeTaskQueueTypes(), heartbeat)

	if util.IsInterfaceNil(aw.sessionWorker) {
		return
	}

	aw.sendShutdownWorkerRPCForTaskQueue(
		grpcCtx,
		aw.sessionWorker.getCreationWorkerTaskQueue(),
		"",
		[]enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_ACTIVITY},
		nil,
	)
	aw.sendShutdownWorkerRPCForTaskQueue(
		grpcCtx,
		aw.sessionWorker.getActivityWorkerTaskQueue(),
		"",
		[]enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_ACTIVITY},
		nil,
	)
}

func (aw *AggregatedWorker) sendShutdownWorkerRPCForTaskQueue(
	grpcCtx context.Context,
	taskQueue string,
	stickyTaskQueue string,
	taskQueueTypes []enumspb.TaskQueueType,
	heartbeat *workerpb.WorkerHeartbeat,
) {
	_, err := aw.client.workflowService.ShutdownWorker(grpcCtx, &workflowservice.ShutdownWorkerRequest{
		Namespace:         aw.executionParams.Namespace,
		StickyTaskQueue:   stickyTaskQueue,
		Identity:          aw.executionParams.Identity,
		Reason:            "graceful shutdown",
		WorkerHeartbeat:   heartbeat,
		WorkerInstanceKey: aw.workerInstanceKey,
		TaskQueue:         taskQueue,
		TaskQueueTypes:    taskQueueTypes,
	})

	// Ignore unimplemented (server doesn't support it)
	if _, isUnimplemented := err.(*serviceerror.Unimplemented); isUnimplemented {
		return
	}

	if err != nil {
		aw.logger.Warn("ShutdownWorker rpc errored during worker shutdown.", tagError, err)
	}
}

func (aw *AggregatedWorker) activeTaskQueueTypes() []enumspb.TaskQueueType {
	var types []enumspb.TaskQueueType
	if !util.IsInterfaceNil(aw.workflowWorker) {
		types = append(types, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	}
	if !util.IsInterfaceNil(aw.activityWorker) {
		types = append(types, enumspb.TASK_QUEUE_TYPE_ACTIVITY)
	}
	if !util.IsInterfaceNil(aw.nexusWorker) {
		types = append(types, enumspb.TASK_QUEUE_TYPE_NEXUS)
	}
	return types
}

// WorkflowReplayer is used to replay workflow code from an event history
type WorkflowReplayer struct {
	registry                    *registry
	dataConverter               converter.DataConverter
	failureConverter            converter.FailureConverter
	contextPropagators          []ContextPropagator
	enableLoggingInReplay       bool
	disableDeadlockDetection    bool
	inboundPayloadVisitor       PayloadVisitor
	storageParams               extstore.StorageParameters
	mu                          sync.Mutex
	workflowExecutionResults    map[string]*commonpb.Payloads
	workflowReplayerInstanceKey string
	plugins                     []WorkerPlugin
	pluginRegistryOptions       *WorkerPluginConfigureWorkflowReplayerRegistryOptions
}

// WorkflowReplayerOptions are options for creating a workflow replayer.
type WorkflowReplayerOptions struct {
	// Optional custom data converter to provide for replay. If not set, the
	// default converter is used.
	DataConverter converter.DataConverter

	FailureConverter converter.FailureConverter

	// Optional: Sets ContextPropagators that allows users to control the context information passed through a workflow
	//
	// default: nil
	ContextPropagators []ContextPropagator

	// Interceptors to apply to the worker. Earlier interceptors wrap later
	// interceptors.
	Interceptors []WorkerInterceptor

	// Disable aliasing during registration. This should be set if it was set on
	// worker.Options.DisableRegistrationAliasing when originally run. See
	// documentation for that field for more information.
	DisableRegistrationAliasing bool

	// Optional: Enable logging in replay.
	// In the workflow code you can use workflow.GetLogger(ctx) to write logs. By default, the logger will skip log
	// entry during replay mode so you won't see duplicate logs. This option will enable the logging in replay mode.
	// This is only useful for debugging purpose.
	//
	// default: false
	EnableLoggingInReplay bool

	// Optional: Disable the default 1 second deadlock detection timeout. This option can be used to step through
	// workflow code with multiple breakpoints in a debugger.
	DisableDeadlockDetection bool

	// Plugins that can configure options and intercept replays.
	//
	// Plugins themselves should never mutate this field, the behavior is
	// undefined.
	Plugins []WorkerPlugin

	// ExternalStorage configures external payload storage for replay.
	// Set this to the same ExternalStorage used by the original worker so that
	// externally stored payloads in the history are resolved before being
	// passed to the workflow code.
	//
	// NOTE: Experimental
	ExternalStorage converter.ExternalStorage
}

// ReplayWorkflowHistoryOptions are options for replaying a workflow.
type ReplayWorkflowHistoryOptions struct {
	// OriginalExecution - Overide the workflow execution details used for replay.
	// Optional
	OriginalExecution WorkflowExecution
}

// NewWorkflowReplayer creates an instance of the WorkflowReplayer.
func NewWorkflowReplayer(options WorkflowReplayerOptions) (*WorkflowReplayer, error) {
	// Configure replayer
	workflowReplayerInstanceKey := uuid.NewString()
	var pluginRegistryOptions WorkerPluginConfigureWorkflowReplayerRegistryOptions
	for _, plugin := range options.Plugins {
		if err := plugin.ConfigureWorkflowReplayer(context.Background(), WorkerPluginConfigureWorkflowReplayerOptions{
			WorkflowReplayerInstanceKey:     workflowReplayerInstanceKey,
			WorkflowReplayerOptions:         &options,
			WorkflowReplayerRegistryOptions: &pluginRegistryOptions,
		}); err != nil {
			return nil, err
		}
	}

	storageParams, err := extstore.ExternalStorageToParams(options.ExternalStorage)
	if err != nil {
		return nil, fmt.Errorf("invalid ExternalStorage options: %w", err)
	}

	registry := newRegistryWithOptions(registryOptions{disableAliasing: options.DisableRegistrationAliasing})
	registry.interceptors = options.Interceptors
	return &WorkflowReplayer{
		registry:                    registry,
		dataConverter:               MakeTransferAware(options.DataConverter),
		failureConverter:            options.FailureConverter,
		contextPropagators:          options.ContextPropagators,
		enableLoggingInReplay:       options.EnableLoggingInReplay,
		disableDeadlockDetection:    options.DisableDeadlockDetection,
		inboundPayloadVisitor:       extstore.NewExternalRetrievalVisitor(storageParams),
		storageParams:               storageParams,
		workflowExecutionResults:    make(map[string]*commonpb.Payloads),
		workflowReplayerInstanceKey: workflowReplayerInstanceKey,
		plugins:                     options.Plugins,
		pluginRegistryOptions:       &pluginRegistryOptions,
	}, nil
}

// RegisterWorkflow registers workflow function to replay
func (aw *WorkflowReplayer) RegisterWorkflow(w any) {
	if aw.pluginRegistryOptions.OnRegisterWorkflow != nil {
		aw.pluginRegistryOptions.OnRegisterWorkflow(w, RegisterWorkflowOptions{})
	}
	aw.registry.RegisterWorkflow(w)
}

// RegisterWorkflowWithOptions registers workflow function with custom workflow name to replay
func (aw *WorkflowReplayer) RegisterWorkflowWithOptions(w any, options RegisterWorkflowOptions) {
	if aw.pluginRegistryOptions.OnRegisterWorkflow != nil {
		aw.pluginRegistryOptions.OnRegisterWorkflow(w, options)
	}
	aw.registry.RegisterWorkflowWithOptions(w, options)
}

// RegisterDynamicWorkflow registers a dynamic workflow function to replay
func (aw *WorkflowReplayer) RegisterDynamicWorkflow(w any, options DynamicRegisterWorkflowOptions) {
	if aw.pluginRegistryOptions.OnRegisterDynamicWorkflow != nil {
		aw.pluginRegistryOptions.OnRegisterDynamicWorkflow(w, options)
	}
	aw.registry.RegisterDynamicWorkflow(w, options)
}

// ReplayWorkflowHistoryWithOptions executes a single workflow task for the given history.
// Use for testing the backwards compatibility of code changes and troubleshooting workflows in a debugger.
// The logger is an optional parameter. Defaults to the noop logger.
func (aw *WorkflowReplayer) ReplayWorkflowHistoryWithOptions(logger log.Logger, history *historypb.History, options ReplayWorkflowHistoryOptions) error {
	if logger == nil {
		logger = ilog.NewDefaultLogger()
	}

	controller := gomock.NewController(ilog.NewTestReporter(logger))
	service := workflowservicemock.NewMockWorkflowServiceClient(controller)

	return aw.replayWorkflowHistory(logger, service, ReplayNamespace, options.OriginalExecution, history)
}

// ReplayWorkflowHistory executes a single workflow task for the given history.
// Use for testing the backwards compatibility of code changes and troubleshooting workflows in a debugger.
// The logger is an optional parameter. Defaults to the noop logger.
func (aw *WorkflowReplayer) ReplayWorkflowHistory(logger log.Logger, history *historypb.History) error {
	return aw.ReplayWorkflowHistoryWithOptions(logger, history, ReplayWorkflowHistoryOptions{})
}

// ReplayWorkflowHistoryFromJSONFile executes a single workflow task for the given json history file.
// Use for testing the backwards compatibility of code changes and troubleshooting workflows in a debugger.
// The logger is an optional parameter. Defaults to the noop logger.
func (aw *WorkflowReplayer) ReplayWorkflowHistoryFromJSONFile(logger log.Logger, jsonfileName string) error {
	return aw.ReplayPartialWorkflowHistoryFromJSONFile(logger, jsonfileName, 0)
}

// ReplayPartialWorkflowHistoryFromJSONFile executes a single workflow task for the given json history file upto provided
// lastEventID(inclusive).
// Use for testing the backwards compatibility of code changes and troubleshooting workflows in a debugger.
// The logger is an optional parameter. Defaults to the noop logger.
func (aw *WorkflowReplayer) ReplayPartialWorkflowHistoryFromJSONFile(logger log.Logger, jsonfileName string, lastEventID int64) error {
	history, err := extractHistoryFromFile(jsonfileName, lastEventID)
	if err != nil {
		return err
	}

	if logger == nil {
		logger = ilog.NewDefaultLogger()
	}

	controller := gomock.NewController(ilog.NewTestReporter(logger))
	service := workflowservicemock.NewMockWorkflowServiceClient(controller)

	return aw.replayWorkflowHistory(logger, service, ReplayNamespace, WorkflowExecution{}, history)
}

// ReplayWorkflowExecution replays workflow execution loading it from Temporal service.
func (aw *WorkflowReplayer) ReplayWorkflowExecution(ctx context.Context, service workflowservice.WorkflowServiceClient, logger log.Logger, namespace string, execution WorkflowExecution) error {
	if logger == nil {
		logger = ilog.NewDefaultLogger()
	}

	sharedExecution := &commonpb.WorkflowExecution{
		RunId:      execution.RunID,
		WorkflowId: execution.ID,
	}
	request := &workflowservice.GetWorkflowExecutionHistoryRequest{
		Namespace: namespace,
		Execution: sharedExecution,
	}
	var history historypb.History
	for {
		resp, err := service.GetWorkflowExecutionHistory(ctx, request)
		if err != nil {
			return err
		}
		currHistory := resp.History
		if resp.RawHistory != nil {
			currHistory, err = serializer.DeserializeBlobDataToHistoryEvents(resp.RawHistory, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			if err != nil {
				return err
			}
		}
		if currHistory == nil {
			break
		}
		history.Events = append(history.Events, currHistory.Events...)
		if len(resp.NextPageToken) == 0 {
			break
		}
		request.NextPageToken = resp.NextPageToken
	}
	return aw.replayWorkflowHistory(logger, service, namespace, execution, &history)
}

// GetWorkflowResult get the result of a succesfully replayed workflow.
func (aw *WorkflowReplayer) GetWorkflowResult(workflowID string, valuePtr any) error {
	aw.mu.Lock()
	defer aw.mu.Unlock()
	if workflowID == "" {
		workflowID = "ReplayId"
	}
	payloads, ok := aw.workflowExecutionResults[workflowID]
	if !ok {
		return errors.New("workflow result not found")
	}
	dc := aw.dataConverter
	if dc == nil {
		dc = converter.GetDefaultDataConverter()
	}
	return dc.FromPayloads(payloads, valuePtr)
}

func (aw *WorkflowReplayer) replayWorkflowHistory(
	logger log.Logger,
	service workflowservice.WorkflowServiceClient,
	namespace string,
	originalExecution WorkflowExecution,
	history *historypb.History,
) error {
	replay := func(ctx context.Context, options WorkerPluginReplayWorkflowOptions) error {
		return aw.replayWorkflowHistoryRoot(
			options.Logger,
			options.WorkflowServiceClient,
			options.Namespace,
			options.OriginalExecution,
			options.History,
		)
	}
	for i := len(aw.plugins) - 1; i >= 0; i-- {
		plugin := aw.plugins[i]
		next := replay
		replay = func(ctx context.Context, options WorkerPluginReplayWorkflowOptions) error {
			return plugin.ReplayWorkflow(ctx, options, next)
		}
	}
	return replay(context.Background(), WorkerPluginReplayWorkflowOptions{
		WorkflowReplayerInstanceKey: aw.workflowReplayerInstanceKey,
		History:                     history,
		Logger:                      logger,
		WorkflowServiceClient:       service,
		Namespace:                   namespace,
		OriginalExecution:           originalExecution,
		WorkflowReplayRegistry:      aw,
	})
}

func (aw *WorkflowReplayer) replayWorkflowHistoryRoot(
	logger log.Logger,
	service workflowservice.WorkflowServiceClient,
	namespace string,
	originalExecution WorkflowExecution,
	history *historypb.History,
) error {
	taskQueue := "ReplayTaskQueue"
	events := history.Events
	if events == nil {
		return errors.New("empty events")
	}
	if len(events) < 3 {
		return errors.New("at least 3 events expected in the history")
	}
	first := events[0]
	if first.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED {
		return errors.New("first event is not WorkflowExecutionStarted")
	}
	last := events[len(events)-1]

	attr := first.GetWorkflowExecutionStartedEventAttributes()
	if attr == nil {
		return errors.New("corrupted WorkflowExecutionStarted")
	}
	workflowType := attr.WorkflowType
	execution := &commonpb.WorkflowExecution{
		RunId:      uuid.NewString(),
		WorkflowId: "ReplayId",
	}
	if originalExecution.ID != "" {
		execution.WorkflowId = originalExecution.ID
	}
	if originalExecution.RunID != "" {
		execution.RunId = originalExecution.RunID
	} else if first.GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId() != "" {
		execution.RunId = first.GetWorkflowExecutionStartedEventAttributes().GetOriginalExecutionRunId()
	}

	if first.GetWorkflowExecutionStartedEventAttributes().GetTaskQueue().GetName() != "" {
		taskQueue = first.GetWorkflowExecutionStartedEventAttributes().GetTaskQueue().GetName()
	}

	task := &workflowservice.PollWorkflowTaskQueueResponse{
		Attempt:                1,
		TaskToken:              []byte("ReplayTaskToken"),
		WorkflowType:           workflowType,
		WorkflowExecution:      execution,
		History:                history,
		PreviousStartedEventId: math.MaxInt64,
	}

	iterator := &retrievingHistoryIterator{
		inner: &historyIteratorImpl{
			nextPageToken: task.NextPageToken,
			execution:     task.WorkflowExecution,
			namespace:     ReplayNamespace,
			service:       service,
			taskQueue:     taskQueue,
		},
		inboundVisitor: aw.inboundPayloadVisitor,
		storageParams:  aw.storageParams,
	}
	cache, cacheLease := newWorkerCache(&sharedWorkerCache{}, &sync.Mutex{}, 0)
	defer cacheLease.release()
	params := workerExecutionParameters{
		Namespace:             namespace,
		TaskQueue:             taskQueue,
		Identity:              "replayID",
		Logger:                logger,
		cache:                 cache,
		DataConverter:         aw.dataConverter,
		FailureConverter:      aw.failureConverter,
		ContextPropagators:    aw.contextPropagators,
		EnableLoggingInReplay: aw.enableLoggingInReplay,
		// Hardcoding NopHandler avoids "No metrics handler configured for temporal worker"
		// logs during replay.
		MetricsHandler: metrics.NopHandler,
		capabilities: &workflowservice.GetSystemInfoResponse_Capabilities{
			SignalAndQueryHeader:            true,
			InternalErrorDifferentiation:    true,
			ActivityFailureIncludeHeartbeat: true,
			SupportsSchedules:               true,
			EncodedFailureAttributes:        true,
			UpsertMemo:                      true,
			EagerWorkflowStart:              true,
			SdkMetadata:                     true,
		},
	}
	if aw.disableDeadlockDetection {
		params.DeadlockDetectionTimeout = math.MaxInt64
	}
	// Resolve externally stored payloads in the history before passing to the
	// task handler. This mirrors what processWorkflowTask does for live workers.
	if err := visitProtoPayloads(context.Background(), aw.inboundPayloadVisitor, task, 0); err != nil {
		return err
	}

	taskHandler := newWorkflowTaskHandler(params, nil, aw.registry)
	wfctx, err := taskHandler.GetOrCreateWorkflowContext(task, iterator)
	defer wfctx.Unlock(err)
	if err != nil {
		return err
	}
	resp, err := taskHandler.ProcessWorkflowTask(&workflowTask{task: task, historyIterator: iterator}, wfctx, nil)
	if err != nil {
		return err
	}

	if resp != nil {
		if failedReq, ok := resp.rawRequest.(*workflowservice.RespondWorkflowTaskFailedRequest); ok {
			return fmt.Errorf("replay workflow failed with failure: %v", failedReq.GetFailure())
		}
	}

	if last.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED && last.GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
		return nil
	}

	var rawRequest proto.Message
	if resp != nil {
		completeReq, ok := resp.rawRequest.(*workflowservice.RespondWorkflowTaskCompletedRequest)
		if ok {
			for _, d := range completeReq.Commands {
				if d.GetCommandType() == enumspb.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION {
					if last.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
						return nil
					}
				}
				if d.GetCommandType() == enumspb.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION {
					if last.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED {
						aw.mu.Lock()
						defer aw.mu.Unlock()
						aw.workflowExecutionResults[execution.WorkflowId] = d.GetCompleteWorkflowExecutionCommandAttributes().Result
						return nil
					}
				}
			}
		}
		rawRequest = resp.rawRequest
	}
	return fmt.Errorf("replay workflow doesn't return the same result as the last event, resp: %[1]T{%[1]v}, last: %[2]T{%[2]v}", rawRequest, last)
}

// HistoryFromJSON deserializes history from a reader of JSON bytes. This does
// not close the reader if it is closeable.
func HistoryFromJSON(r io.Reader, lastEventID int64) (*historypb.History, error) {
	// We set DiscardUnknown here because the history may have been created by a previous
	// version of our protos
	opts := temporalproto.CustomJSONUnmarshalOptions{
		DiscardUnknown: true,
	}
	bs, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}

	hist := &historypb.History{}
	if err := opts.Unmarshal(bs, hist); err != nil {
		return nil, err
	}

	// If there is a last event ID, slice the rest off
	if lastEventID > 0 {
		for i, event := range hist.Events {
			if event.EventId == lastEventID {
				// Inclusive
				hist.Events = hist.Events[:i+1]
				break
			}
		}
	}
	return hist, nil
}

func extractHistoryFromFile(jsonfileName string, lastEventID int64) (hist *historypb.History, err error) {
	reader, err := os.Open(jsonfileName)
	if err != nil {
		return nil, err
	}
	defer func() {
		closeErr := reader.Close()
		if closeErr != nil && err == nil {
			err = closeErr
		} else if closeErr != nil {
			ilog.NewDefaultLogger().Warn("failed to close json file", "path", jsonfileName, "error", closeErr)
		}
	}()

	opts := temporalproto.CustomJSONUnmarshalOptions{
		DiscardUnknown: true,
	}

	bs, err := io.ReadAll(reader)
	if err != nil {
		return nil, err
	}

	hist = &historypb.History{}
	if err := opts.Unmarshal(bs, hist); err != nil {
		return nil, err
	}

	// If there is a last event ID, slice the rest off
	if lastEventID > 0 {
		for i, event := range hist.Events {
			if event.EventId == lastEventID {
				// Inclusive
				hist.Events = hist.Events[:i+1]
				break
			}
		}
	}

	return hist, err
}

// NewAggregatedWorker returns an instance to manage both activity and workflow workers
func NewAggregatedWorker(client *WorkflowClient, taskQueue string, options WorkerOptions) *AggregatedWorker {
	if strings.HasPrefix(taskQueue, temporalPrefix) {
		panic(temporalPrefixError)
	}

	// Combine client-provided worker plugins with current options set and apply to options
	workerInstanceKey := uuid.NewString()
	var pluginRegistryOptions WorkerPluginConfigureWorkerRegistryOptions
	plugins := append(append([]WorkerPlugin(nil), client.workerPlugins...), options.Plugins...)
	for _, plugin := range plugins {
		// No meaningful context to pass at this time, and all errors are panics when configuring worker
		if err := plugin.ConfigureWorker(context.Background(), WorkerPluginConfigureWorkerOptions{
			WorkerInstanceKey:     workerInstanceKey,
			TaskQueue:             taskQueue,
			WorkerOptions:         &options,
			WorkerRegistryOptions: &pluginRegistryOptions,
		}); err != nil {
			panic(err)
		}
	}

	setClientDefaults(client)
	pollerEligibility := setWorkerOptionsDefaults(&options)
	ctx := options.BackgroundActivityContext
	if ctx == nil {
		ctx = context.Background()
	}
	backgroundActivityContext, backgroundActivityContextCancel := context.WithCancelCause(ctx)

	// If max-concurrent workflow pollers is 1, the worker will only do
	// sticky-queue requests and never regular-queue requests. We disallow the
	// value of 1 here.
	if options.MaxConcurrentWorkflowTaskPollers == 1 {
		panic("cannot set MaxConcurrentWorkflowTaskPollers to 1")
	}

	// If max-concurrent workflow task execution size is 1, the worker will only do
	// sticky-queue requests and never regular-queue requests. This is because we
	// limit the number of running pollers to MaxConcurrentWorkflowTaskExecutionSize.
	// 	We disallow the value of 1 here.
	if options.MaxConcurrentWorkflowTaskExecutionSize == 1 {
		panic("cannot set MaxConcurrentWorkflowTaskExecutionSize to 1")
	}

	// Sessions are not currently compatible with worker versioning
	// See: https://github.com/temporalio/sdk-go/issues/1227
	if options.EnableSessionWorker && options.UseBuildIDForVersioning {
		panic("cannot set both EnableSessionWorker and UseBuildIDForVersioning")
	}

	if (options.DeploymentOptions.Version != WorkerDeploymentVersion{}) {
		options.BuildID = options.DeploymentOptions.Version.BuildID
	}
	if !options.DeploymentOptions.UseVersioning &&
		options.DeploymentOptions.DefaultVersioningBehavior != VersioningBehaviorUnspecified {
		panic("cannot set both DeploymentOptions.DefaultVersioningBehavior if DeploymentOptions.UseBuildIDForVersioning is false")
	}

	// Pollers retain this callback, keeping the worker and cache lease live until they stop.
	var aw *AggregatedWorker
	noRepoll := &atomic.Bool{}
	fatalErrorCallback := func(err error) {
		// Set the fatal error if not already set
		aw.fatalErrLock.Lock()
		alreadySet := aw.fatalErr != nil
		if !alreadySet {
			aw.fatalErr = err
			// A fatal error signals remote-task polling to stop before notification.
			// Workers created later during startup share this same flag.
			noRepoll.Store(true)
		}
		aw.fatalErrLock.Unlock()
		// Only do the rest if not already set
		if !alreadySet {
			// The poller must return before Stop can join it. Record its cause
			// above, then deliver the hook and stop on a separate goroutine.
			go aw.handleFatalError(err, options.OnFatalError)
		}
	}
	// Because of lazy clients we need to wait till the worker runs to fetch the capabilities.
	// All worker systems that depend on the capabilities to process workflow/activity tasks
	// should take a pointer to this struct and wait for it to be populated when the worker is run.
	var capabilities workflowservice.GetSystemInfoResponse_Capabilities
	var activityCancellationCallbacks *activityCancellationCallbacks
	if client.heartbeatManager != nil {
		activityCancellationCallbacks = client.heartbeatManager.
			sharedNamespaceWorkerFor(client.namespace).
			activityCancellationCallbacks
	}

	baseMetricsHandler := client.metricsHandler.WithTags(metrics.TaskQueueTags(taskQueue))
	var metricsHandler metrics.Handler
	var heartbeatMetrics *heartbeatMetricsHandler

	if client.workerHeartbeatInterval != 0 {
		heartbeatMetrics = newHeartbeatMetricsHandler(baseMetricsHandler)
		metricsHandler = heartbeatMetrics
	} else {
		metricsHandler = baseMetricsHandler
	}

	identity := client.identity
	if options.Identity != "" {
		identity = options.Identity
	}

	logger := client.logger
	if logger == nil {
		logger = ilog.NewDefaultLogger()
	}
	logger = log.With(logger,
		tagNamespace, client.namespace,
		tagTaskQueue, taskQueue,
		tagWorkerID, identity,
	)
	if options.BuildID != "" {
		// Add worker build ID to the logs if it's set by user
		logger = log.With(logger,
			tagBuildID, options.BuildID,
		)
	}

	payloadLimitVisitor, setErrorLimits := newPayloadLimitsVisitor(client.payloadWarningLimits, logger)
	workerStorageParams := client.storageParams.WithOwnDriverOperationLimit().WithLogger(logger)

	cache, cacheLease := NewWorkerCache()
	constructionComplete := false
	defer func() {
		if !constructionComplete {
			cacheLease.release()
		}
	}()
	workerPollCompleteOnShutdown := &atomic.Bool{}
	workerParams := workerExecutionParameters{
		Namespace:                        client.namespace,
		RPCTimeout:                       client.rpcTimeout,
		TaskQueue:                        taskQueue,
		Tuner:                            options.Tuner,
		WorkerActivitiesPerSecond:        options.WorkerActivitiesPerSecond,
		WorkerLocalActivitiesPerSecond:   options.WorkerLocalActivitiesPerSecond,
		Identity:                         identity,
		WorkerBuildID:                    options.BuildID,
		UseBuildIDForVersioning:          options.UseBuildIDForVersioning || options.DeploymentOptions.UseVersioning,
		DeploymentOptions:                options.DeploymentOptions,
		PreferredVersionProvider:         options.PreferredVersionProvider,
		MetricsHandler:                   metricsHandler,
		Logger:                           logger,
		EnableLoggingInReplay:            options.EnableLoggingInReplay,
		BackgroundContext:                backgroundActivityContext,
		BackgroundContextCancel:          backgroundActivityContextCancel,
		StickyScheduleToStartTimeout:     options.StickyScheduleToStartTimeout,
		TaskQueueActivitiesPerSecond:     options.TaskQueueActivitiesPerSecond,
		WorkflowPanicPolicy:              options.WorkflowPanicPolicy,
		DataConverter:                    client.dataConverter,
		FailureConverter:                 client.failureConverter,
		WorkerStopTimeout:                options.WorkerStopTimeout,
		WorkerFatalErrorCallback:         fatalErrorCallback,
		noRepoll:                         noRepoll,
		ContextPropagators:               client.contextPropagators,
		DeadlockDetectionTimeout:         options.DeadlockDetectionTimeout,
		DefaultHeartbeatThrottleInterval: options.DefaultHeartbeatThrottleInterval,
		MaxHeartbeatThrottleInterval:     options.MaxHeartbeatThrottleInterval,
		cache:                            cache,
		eagerActivityExecutor: newEagerActivityExecutor(eagerActivityExecutorOptions{
			disabled:       options.DisableEagerActivities,
			taskQueue:      taskQueue,
			metricsHandler: metricsHandler,
			maxConcurrent:  options.MaxConcurrentEagerActivityExecutionSize,
			maxPerTask:     *options.MaxEagerActivityReservationsPerWorkflowTask,
		}),
		capabilities:                     &capabilities,
		pollTimeTracker:                  &pollTimeTracker{},
		workerInstanceKey:                workerInstanceKey,
		workerControlTaskQueue:           workerControlTaskQueue(client.namespace, client.workerGroupingKey),
		pollerGroupSnapshotStore:         newPollerGroupSnapshotStore(),
		activityCancellationCallbacks:    activityCancellationCallbacks,
		workerPollCompleteOnShutdown:     workerPollCompleteOnShutdown,
		serverSupportsAutoscaling:        &atomic.Bool{},
		workflowTaskCompletionPagination: &workflowTaskCompletionPaginationConfig{},
		inboundPayloadVisitor:            extstore.NewExternalRetrievalVisitor(workerStorageParams),
		outboundPayloadVisitor: newCompositePayloadVisitor(
			extstore.NewExternalStorageVisitor(workerStorageParams),
			payloadLimitVisitor,
		),
		storageParams: workerStorageParams,
		setErrorLimits: func(limits *payloadLimits) {
			if !options.DisablePayloadErrorLimit {
				setErrorLimits(limits)
			}
		},
	}

	if options.MaxConcurrentWorkflowTaskPollers != 0 {
		workerParams.WorkflowTaskPollerBehavior = NewPollerBehaviorSimpleMaximum(PollerBehaviorSimpleMaximumOptions{
			MaximumNumberOfPollers: options.MaxConcurrentWorkflowTaskPollers,
		})
	} else if options.WorkflowTaskPollerBehavior != nil {
		workerParams.WorkflowTaskPollerBehavior = options.WorkflowTaskPollerBehavior
	} else {
		panic("must set either MaxConcurrentWorkflowTaskPollers or WorkflowTaskPollerBehavior")
	}

	if options.MaxConcurrentActivityTaskPollers != 0 {
		workerParams.ActivityTaskPollerBehavior = NewPollerBehaviorSimpleMaximum(PollerBehaviorSimpleMaximumOptions{
			MaximumNumberOfPollers: options.MaxConcurrentActivityTaskPollers,
		})
	} else if options.ActivityTaskPollerBehavior != nil {
		workerParams.ActivityTaskPollerBehavior = options.ActivityTaskPollerBehavior
	} else {
		panic("must set either MaxConcurrentActivityTaskPollers or ActivityTaskPollerBehavior")
	}

	if options.MaxConcurrentNexusTaskPollers != 0 {
		workerParams.NexusTaskPollerBehavior = NewPollerBehaviorSimpleMaximum(PollerBehaviorSimpleMaximumOptions{
			MaximumNumberOfPollers: options.MaxConcurrentNexusTaskPollers,
		})
	} else if options.NexusTaskPollerBehavior != nil {
		workerParams.NexusTaskPollerBehavior = options.NexusTaskPollerBehavior
	} else {
		panic("must set either MaxConcurrentNexusTaskPollers or NexusTaskPollerBehavior")
	}

	// Carry through which poller types are eligible for auto-enrollment so that
	// start() can enroll them into autoscaling when the namespace advertises the
	// PollerAutoscalingAutoEnroll capability.
	workerParams.pollerAutoEnrollEligibility = pollerEligibility

	ensureRequiredParams(&workerParams)

	processTestTags(&options, &workerParams)

	// worker specific registry
	registry := newRegistryWithOptions(registryOptions{disableAliasing: options.DisableRegistrationAliasing})
	// Build set of interceptors using the applicable client ones first (being
	// careful not to append to the existing slice)
	registry.interceptors = make([]WorkerInterceptor, 0, len(client.workerInterceptors)+len(options.Interceptors))
	registry.interceptors = append(append(registry.interceptors, client.workerInterceptors...), options.Interceptors...)

	// workflow factory.
	var workflowWorker *workflowWorker
	if !options.DisableWorkflowWorker {
		testTags := getTestTags(options.BackgroundActivityContext)
		if len(testTags) > 0 {
			workflowWorker = newWorkflowWorkerWithPressurePoints(client, workerParams, testTags, registry)
		} else {
			workflowWorker = newWorkflowWorker(client, workerParams, nil, registry)
		}
	}

	// activity types.
	var activityWorker *activityWorker
	if !options.LocalActivityWorkerOnly {
		activityWorker = newActivityWorker(client, workerParams, nil, registry, nil)
		workerParams.eagerActivityExecutor.activityWorker = activityWorker.worker
	}

	var sessionWorker *sessionWorker
	if options.EnableSessionWorker && !options.LocalActivityWorkerOnly {
		sessionWorker = newSessionWorker(client, workerParams, registry, options.MaxConcurrentSessionExecutionSize)
		registry.RegisterActivityWithOptions(sessionCreationActivity, RegisterActivityOptions{
			Name: sessionCreationActivityName,
		})
		registry.RegisterActivityWithOptions(sessionCompletionActivity, RegisterActivityOptions{
			Name: sessionCompletionActivityName,
		})
	}

	// Resolve the SysInfoProvider used for worker heartbeats. Prefer the explicit
	// WorkerOptions.SysInfoProvider; otherwise fall back to the tuner's slot supplier if it
	// implements HasSysInfoProvider. If both are set to different providers, that's a config
	// error. If neither is set, heartbeats report 0 for CPU/memory usage.
	var sysInfoProvider SysInfoProvider
	var tunerSysInfoProvider SysInfoProvider
	if sis, ok := options.Tuner.GetWorkflowTaskSlotSupplier().(HasSysInfoProvider); ok {
		tunerSysInfoProvider = sis.SysInfoProvider()
	}
	switch {
	case options.SysInfoProvider != nil && tunerSysInfoProvider != nil && options.SysInfoProvider != tunerSysInfoProvider:
		panic("WorkerOptions.SysInfoProvider conflicts with the SysInfoProvider exposed by the Tuner; " +
			"set only one, or set both to the same instance")
	case options.SysInfoProvider != nil:
		sysInfoProvider = options.SysInfoProvider
	default:
		sysInfoProvider = tunerSysInfoProvider
	}

	var heartbeatCallback func() *workerpb.WorkerHeartbeat
	if client.workerHeartbeatInterval != 0 {
		startTime := timestamppb.New(time.Now())
		hostname, _ := os.Hostname()
		pid := strconv.Itoa(os.Getpid())
		var previousHeartbeatTime time.Time
		pluginInfos := collectPluginInfos(client.clientPlugins, plugins)
		driverInfos := collectStorageDriverInfos(client.storageDriverTypes)

		var prevWorkflowProcessed, prevWorkflowFailed int64
		var prevActivityProcessed, prevActivityFailed int64
		var prevLocalActivityProcessed, prevLocalActivityFailed int64
		var prevNexusProcessed, prevNexusFailed int64

		populateOpts := &populateHeartbeatOptions{
			workflowPollerBehavior:     workerParams.WorkflowTaskPollerBehavior,
			activityPollerBehavior:     workerParams.ActivityTaskPollerBehavior,
			nexusPollerBehavior:        workerParams.NexusTaskPollerBehavior,
			prevWorkflowProcessed:      &prevWorkflowProcessed,
			prevWorkflowFailed:         &prevWorkflowFailed,
			prevActivityProcessed:      &prevActivityProcessed,
			prevActivityFailed:         &prevActivityFailed,
			prevLocalActivityProcessed: &prevLocalActivityProcessed,
			prevLocalActivityFailed:    &prevLocalActivityFailed,
			prevNexusProcessed:         &prevNexusProcessed,
			prevNexusFailed:            &prevNexusFailed,
			pollTimeTracker:            workerParams.pollTimeTracker,
		}

		var deploymentVersion *deploymentpb.WorkerDeploymentVersion
		if options.DeploymentOptions.UseVersioning {
			deploymentVersion = &deploymentpb.WorkerDeploymentVersion{
				DeploymentName: options.DeploymentOptions.Version.DeploymentName,
				BuildId:        options.DeploymentOptions.Version.BuildID,
			}
		}

		// The callback can be invoked concurrently from the heartbeat worker goroutine and the shutdown path
		var mu sync.Mutex
		heartbeatCallback = func() *workerpb.WorkerHeartbeat {
			cpuUsage := getCpuUsage(sysInfoProvider, workerParams.Logger)
			memUsage := getMemUsage(sysInfoProvider, workerParams.Logger)

			mu.Lock()
			defer mu.Unlock()
			// Read the poller behaviors live so heartbeats reflect any
			// auto-enrollment into poller autoscaling done during start().
			populateOpts.workflowPollerBehavior = aw.executionParams.WorkflowTaskPollerBehavior
			populateOpts.activityPollerBehavior = aw.executionParams.ActivityTaskPollerBehavior
			populateOpts.nexusPollerBehavior = aw.executionParams.NexusTaskPollerBehavior
			if aw.workflowWorker != nil {
				populateOpts.workflowSlotSupplierKind = aw.workflowWorker.worker.slotSupplier.GetSlotSupplierKind()
				populateOpts.localActivitySlotSupplierKind = aw.workflowWorker.localActivityWorker.slotSupplier.GetSlotSupplierKind()
			}
			if aw.activityWorker != nil {
				populateOpts.activitySlotSupplierKind = aw.activityWorker.worker.slotSupplier.GetSlotSupplierKind()
			}
			if aw.nexusWorker != nil {
				populateOpts.nexusSlotSupplierKind = aw.nexusWorker.worker.slotSupplier.GetSlotSupplierKind()
			}
			populateOpts.pollerTargets = aw.pollerTargets()
			heartbeatTime := time.Now()

			status := enumspb.WORKER_STATUS_RUNNING
			if aw.shuttingDown.Load() {
				status = enumspb.WORKER_STATUS_SHUTTING_DOWN
			}

			hb := &workerpb.WorkerHeartbeat{
				WorkerInstanceKey: aw.workerInstanceKey,
				WorkerIdentity:    aw.executionParams.Identity,
				HostInfo: &workerpb.WorkerHostInfo{
					HostName:            hostname,
					WorkerGroupingKey:   aw.client.workerGroupingKey,
					ProcessId:           pid,
					CurrentHostCpuUsage: cpuUsage,
					CurrentHostMemUsage: memUsage,
				},
				TaskQueue:         aw.executionParams.TaskQueue,
				DeploymentVersion: deploymentVersion,
				SdkName:           aw.client.sdkName,
				SdkVersion:        aw.client.sdkVersion,
				Status:            status,
				StartTime:         startTime,
				HeartbeatTime:     timestamppb.New(heartbeatTime),
				Plugins:           pluginInfos,
				Drivers:           driverInfos,
				Environment:       aw.pendingEnvironment.Load(),
			}
			if !previousHeartbeatTime.IsZero() {
				hb.ElapsedSinceLastHeartbeat = durationpb.New(heartbeatTime.Sub(previousHeartbeatTime))
			}
			previousHeartbeatTime = heartbeatTime
			aw.heartbeatMetrics.PopulateHeartbeat(hb, populateOpts)

			return hb
		}
	}

	aw = &AggregatedWorker{
		client:                       client,
		workflowWorker:               workflowWorker,
		activityWorker:               activityWorker,
		sessionWorker:                sessionWorker,
		logger:                       workerParams.Logger,
		registry:                     registry,
		stopC:                        make(chan struct{}),
		stopDone:                     make(chan struct{}),
		capabilities:                 &capabilities,
		executionParams:              workerParams,
		workerInstanceKey:            workerInstanceKey,
		plugins:                      plugins,
		pluginRegistryOptions:        &pluginRegistryOptions,
		heartbeatMetrics:             heartbeatMetrics,
		heartbeatCallback:            heartbeatCallback,
		workerPollCompleteOnShutdown: workerPollCompleteOnShutdown,
		cacheLease:                   cacheLease,
	}
	if client.heartbeatManager != nil {
		aw.pendingEnvironment.Store(client.heartbeatManager.environmentInfo)
	}

	// Set memoized start as a once-value that invokes plugins first
	aw.memoizedStart = sync.OnceValue(func() error {
		start := func(context.Context, WorkerPluginStartWorkerOptions) error { return aw.start() }
		for i := len(plugins) - 1; i >= 0; i-- {
			plugin := plugins[i]
			next := start
			start = func(ctx context.Context, options WorkerPluginStartWorkerOptions) error {
				return plugin.StartWorker(ctx, options, next)
			}
		}
		return start(context.Background(), WorkerPluginStartWorkerOptions{
			WorkerInstanceKey: workerInstanceKey,
			WorkerRegistry:    aw,
		})
	})
	constructionComplete = true
	return aw
}

func processTestTags(wOptions *WorkerOptions, ep *workerExecutionParameters) {
	testTags := getTestTags(wOptions.BackgroundActivityContext)
	if testTags != nil {
		if paramsOverride, ok := testTags[workerOptionsConfig]; ok {
			for key, val := range paramsOverride {
				switch key {
				case workerOptionsConfigConcurrentPollRoutineSize:
					if size, err := strconv.Atoi(val); err == nil {
						ep.ActivityTaskPollerBehavior = NewPollerBehaviorSimpleMaximum(
							PollerBehaviorSimpleMaximumOptions{
								MaximumNumberOfPollers: size,
							},
						)
						ep.WorkflowTaskPollerBehavior = NewPollerBehaviorSimpleMaximum(
							PollerBehaviorSimpleMaximumOptions{
								MaximumNumberOfPollers: size,
							},
						)
					}
				}
			}
		}
	}
}

func isWorkflowContext(inType reflect.Type) bool {
	// NOTE: We don't expect any one to derive from workflow context.
	return inType == reflect.TypeFor[Context]()
}

func isValidResultType(inType reflect.Type) bool {
	// https://golang.org/pkg/reflect/#Kind
	switch inType.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return false
	}

	return true
}

func isError(inType reflect.Type) bool {
	errorElem := reflect.TypeFor[error]()
	return inType != nil && inType.Implements(errorElem)
}

// mightBeFunctionLiteral returns true if the given function looks like a function literal.
// BEWARE: False positives are possible! Normal function declarations might look like literals.
// BEWARE: False negatives are possible! Future versions of Go may change the naming scheme.
func mightBeFunctionLiteral(fn any) bool {
	// Matches suffixes of the form funcN or funcN.M for some numbers N and M.
	var functionLiteralNamePattern = regexp.MustCompile(`func\d+(?:\.\d+)?$`)
	fullName := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return functionLiteralNamePattern.MatchString(fullName)
}

func getFunctionName(i any) (name string, isMethod bool) {
	if fullName, ok := i.(string); ok {
		return fullName, false
	}
	fullName := runtime.FuncForPC(reflect.ValueOf(i).Pointer()).Name()
	// Full function name that has a struct pointer receiver has the following format
	// <prefix>.(*<type>).<function>
	isMethod = strings.ContainsAny(fullName, "*")
	elements := strings.Split(fullName, ".")
	shortName := elements[len(elements)-1]
	// This allows to call activities by method pointer
	// Compiler adds -fm suffix to a function name which has a receiver
	// Note that this works even if struct pointer used to get the function is nil
	// It is possible because nil receivers are allowed.
	// For example:
	// var a *Activities
	// ExecuteActivity(ctx, a.Foo)
	// will call this function which is going to return "Foo"
	return strings.TrimSuffix(shortName, "-fm"), isMethod
}

func getActivityFunctionName(r *registry, i any) string {
	result, _ := getFunctionName(i)
	if alias, ok := r.getActivityAlias(result); ok {
		result = alias
	}
	return result
}

func GetWorkflowFunctionName(r *registry, workflowFunc any) (string, error) {
	fnName := ""
	fType := reflect.TypeOf(workflowFunc)
	switch getKind(fType) {
	case reflect.String:
		fnName = reflect.ValueOf(workflowFunc).String()
	case reflect.Func:
		fnName, _ = getFunctionName(workflowFunc)
		if alias, ok := r.getWorkflowAlias(fnName); ok {
			fnName = alias
		}
	default:
		return "", fmt.Errorf("invalid type 'workflowFunc' parameter provided, it can be either worker function or function name: %v", workflowFunc)
	}

	return fnName, nil
}

func getReadOnlyChannel(c chan struct{}) <-chan struct{} {
	return c
}

// autoEnrollEligibility records, per poller type, whether the poller behavior
// was left at its default (the user set neither a fixed poller count nor a
// poller behavior) and is therefore eligible for poller-autoscaling
// auto-enrollment when the namespace advertises the PollerAutoscalingAutoEnroll
// capability.
type autoEnrollEligibility struct {
	workflowTask bool
	activityTask bool
	nexusTask    bool
}

// setWorkerOptionsDefaults populates unset worker options with their defaults
// and reports which poller types are eligible for auto-enrollment (i.e. were
// left at their default).
func setWorkerOptionsDefaults(options *WorkerOptions) autoEnrollEligibility {
	var eligibility autoEnrollEligibility
	if options.Tuner != nil {
		if options.MaxConcurrentWorkflowTaskExecutionSize != 0 ||
			options.MaxConcurrentActivityExecutionSize != 0 ||
			options.MaxConcurrentLocalActivityExecutionSize != 0 ||
			options.MaxConcurrentNexusTaskExecutionSize != 0 {
			panic("cannot set MaxConcurrentWorkflowTaskExecutionSize, MaxConcurrentActivityExecutionSize, MaxConcurrentLocalActivityExecutionSize, or MaxConcurrentNexusTaskExecutionSize with Tuner")
		}
	}
	maxConcurrentWFT := options.MaxConcurrentWorkflowTaskExecutionSize
	maxConcurrentAct := options.MaxConcurrentActivityExecutionSize
	maxConcurrentLA := options.MaxConcurrentLocalActivityExecutionSize
	maxConcurrentNexus := options.MaxConcurrentNexusTaskExecutionSize
	if options.MaxConcurrentActivityExecutionSize <= 0 {
		maxConcurrentAct = defaultMaxConcurrentActivityExecutionSize
	}
	if options.WorkerActivitiesPerSecond == 0 {
		options.WorkerActivitiesPerSecond = defaultWorkerActivitiesPerSecond
	}
	if options.MaxConcurrentActivityTaskPollers != 0 && options.ActivityTaskPollerBehavior != nil {
		panic("cannot set both MaxConcurrentActivityTaskPollers and ActivityTaskPollerBehavior")
	} else if options.ActivityTaskPollerBehavior == nil && options.MaxConcurrentActivityTaskPollers <= 0 {
		options.MaxConcurrentActivityTaskPollers = defaultConcurrentPollRoutineSize
		eligibility.activityTask = true
	}
	if options.MaxConcurrentWorkflowTaskExecutionSize <= 0 {
		maxConcurrentWFT = defaultMaxConcurrentTaskExecutionSize
	}
	if options.MaxConcurrentWorkflowTaskPollers != 0 && options.WorkflowTaskPollerBehavior != nil {
		panic("cannot set both MaxConcurrentWorkflowTaskPollers and WorkflowTaskPollerBehavior")
	} else if options.WorkflowTaskPollerBehavior == nil && options.MaxConcurrentWorkflowTaskPollers <= 0 {
		options.MaxConcurrentWorkflowTaskPollers = defaultConcurrentPollRoutineSize
		eligibility.workflowTask = true
	}
	if options.MaxConcurrentLocalActivityExecutionSize <= 0 {
		maxConcurrentLA = defaultMaxConcurrentLocalActivityExecutionSize
	}
	if options.WorkerLocalActivitiesPerSecond == 0 {
		options.WorkerLocalActivitiesPerSecond = defaultWorkerLocalActivitiesPerSecond
	}
	if options.TaskQueueActivitiesPerSecond == 0 {
		options.TaskQueueActivitiesPerSecond = defaultTaskQueueActivitiesPerSecond
	} else {
		// Disable eager activities when the task queue rate limit is set because
		// the server does not rate limit eager activities.
		options.DisableEagerActivities = true
	}
	if options.MaxConcurrentNexusTaskPollers != 0 && options.NexusTaskPollerBehavior != nil {
		panic("cannot set both MaxConcurrentNexusTaskExecutionSize and NexusTaskPollerBehavior")
	} else if options.NexusTaskPollerBehavior == nil && options.MaxConcurrentNexusTaskPollers <= 0 {
		options.MaxConcurrentNexusTaskPollers = defaultConcurrentPollRoutineSize
		eligibility.nexusTask = true
	}
	if options.MaxConcurrentNexusTaskExecutionSize <= 0 {
		maxConcurrentNexus = defaultMaxConcurrentTaskExecutionSize
	}
	if options.StickyScheduleToStartTimeout.Seconds() == 0 {
		options.StickyScheduleToStartTimeout = stickyWorkflowTaskScheduleToStartTimeoutSeconds * time.Second
	}
	if options.MaxConcurrentSessionExecutionSize == 0 {
		options.MaxConcurrentSessionExecutionSize = defaultMaxConcurrentSessionExecutionSize
	}
	if options.MaxEagerActivityReservationsPerWorkflowTask == nil {
		defaultValue := defaultMaxEagerActivityReservationsPerWorkflowTask
		options.MaxEagerActivityReservationsPerWorkflowTask = &defaultValue
	} else if *options.MaxEagerActivityReservationsPerWorkflowTask <= 0 {
		panic("MaxEagerActivityReservationsPerWorkflowTask must be positive; set DisableEagerActivities to disable eager activity execution")
	}
	if options.DeadlockDetectionTimeout == 0 {
		if debugMode {
			options.DeadlockDetectionTimeout = unlimitedDeadlockDetectionTimeout
		} else {
			options.DeadlockDetectionTimeout = defaultDeadlockDetectionTimeout
		}
	}
	if options.DefaultHeartbeatThrottleInterval == 0 {
		options.DefaultHeartbeatThrottleInterval = defaultDefaultHeartbeatThrottleInterval
	}
	if options.MaxHeartbeatThrottleInterval == 0 {
		options.MaxHeartbeatThrottleInterval = defaultMaxHeartbeatThrottleInterval
	}
	if options.Tuner == nil {
		// Err cannot happen since these slot numbers are guaranteed valid
		options.Tuner, _ = NewFixedSizeTuner(FixedSizeTunerOptions{
			NumWorkflowSlots:      maxConcurrentWFT,
			NumActivitySlots:      maxConcurrentAct,
			NumLocalActivitySlots: maxConcurrentLA,
			NumNexusSlots:         maxConcurrentNexus})

	}
	return eligibility
}

func setClientDefaults(client *WorkflowClient) {
	if client.dataConverter == nil {
		client.dataConverter = converter.GetDefaultDataConverter()
	}
	if client.namespace == "" {
		client.namespace = DefaultNamespace
	}
	if client.metricsHandler == nil {
		client.metricsHandler = metrics.NopHandler
	}
}

// getTestTags returns the test tags in the context.
func getTestTags(ctx context.Context) map[string]map[string]string {
	if ctx != nil {
		env := ctx.Value(testTagsContextKey)
		if env != nil {
			return env.(map[string]map[string]string)
		}
	}
	return nil
}

// Same as executeFunction but injects the workflow context as the first
// parameter if the function takes it (regardless of existing parameters).
func executeFunctionWithWorkflowContext(ctx Context, fn any, args []any) (any, error) {
	if fnType := reflect.TypeOf(fn); fnType.NumIn() > 0 && isWorkflowContext(fnType.In(0)) {
		args = append([]any{ctx}, args...)
	}
	return executeFunction(fn, args)
}

// Same as executeFunction but injects the context as the first parameter if the
// function takes it (regardless of existing parameters).
func executeFunctionWithContext(ctx context.Context, fn any, args []any) (any, error) {
	if fnType := reflect.TypeOf(fn); fnType.NumIn() > 0 && isActivityContext(fnType.In(0)) {
		args = append([]any{ctx}, args...)
	}
	return executeFunction(fn, args)
}

// Executes function and ensures that there is always 1 or 2 results and second
// result is error.
func executeFunction(fn any, args []any) (any, error) {
	fnValue := reflect.ValueOf(fn)
	reflectArgs := make([]reflect.Value, len(args))
	for i, arg := range args {
		// If the argument is nil, use zero value
		if arg == nil {
			reflectArgs[i] = reflect.New(fnValue.Type().In(i)).Elem()
		} else {
			reflectArgs[i] = reflect.ValueOf(arg)
		}
	}
	retValues := fnValue.Call(reflectArgs)

	// Expect either error or (result, error)
	if len(retValues) == 0 || len(retValues) > 2 {
		fnName, _ := getFunctionName(fn)
		return nil, fmt.Errorf(
			"the function: %v signature returns %d results, it is expecting to return either error or (result, error)",
			fnName, len(retValues))
	}
	// Convert error
	var err error
	if errResult := retValues[len(retValues)-1].Interface(); errResult != nil {
		var ok bool
		if err, ok = errResult.(error); !ok {
			return nil, fmt.Errorf(
				"failed to serialize error result as it is not of error interface: %v",
				errResult)
		}
	}
	// If there are two results, convert the first only if it's not a nil pointer
	var res any
	if len(retValues) > 1 && (retValues[0].Kind() != reflect.Pointer || !retValues[0].IsNil()) {
		res = retValues[0].Interface()
	}
	return res, err
}

func workerDeploymentVersionFromProto(wd *deploymentpb.WorkerDeploymentVersion) WorkerDeploymentVersion {
	return WorkerDeploymentVersion{
		DeploymentName: wd.DeploymentName,
		BuildID:        wd.BuildId,
	}
}

func (wd *WorkerDeploymentVersion) toProto() *deploymentpb.WorkerDeploymentVersion {
	return &deploymentpb.WorkerDeploymentVersion{
		DeploymentName: wd.DeploymentName,
		BuildId:        wd.BuildID,
	}
}

func (wd *WorkerDeploymentVersion) toCanonicalString() string {
	return fmt.Sprintf("%s.%s", wd.DeploymentName, wd.BuildID)
}

func workerDeploymentVersionFromString(version string) *WorkerDeploymentVersion {
	if splitVersion := strings.SplitN(version, ".", 2); len(splitVersion) == 2 {
		return &WorkerDeploymentVersion{
			DeploymentName: splitVersion[0],
			BuildID:        splitVersion[1],
		}
	}
	return nil
}

func workerDeploymentVersionFromProtoOrString(wd *deploymentpb.WorkerDeploymentVersion, fallback string) *WorkerDeploymentVersion {
	if wd == nil {
		return workerDeploymentVersionFromString(fallback)
	}
	return &WorkerDeploymentVersion{
		DeploymentName: wd.DeploymentName,
		BuildID:        wd.BuildId,
	}
}

func getCpuUsage(supplier SysInfoProvider, logger log.Logger) float32 {
	if supplier == nil {
		return 0
	}
	cpu, err := supplier.CpuUsage(&SysInfoContext{Logger: logger})
	if err != nil {
		logger.Warn("Failed to get CPU usage for heartbeat", "error", err)
		return 0
	}
	return float32(cpu)
}

func getMemUsage(supplier SysInfoProvider, logger log.Logger) float32 {
	if supplier == nil {
		return 0
	}
	mem, err := supplier.MemoryUsage(&SysInfoContext{Logger: logger})
	if err != nil {
		logger.Warn("Failed to get memory usage for heartbeat", "error", err)
		return 0
	}
	return float32(mem)
}

// collectPluginInfos collects plugin names and versions from client and worker
// plugins, deduplicates them by name, and returns a slice of PluginInfo for
// heartbeat reporting.
func collectPluginInfos(clientPlugins []ClientPlugin, workerPlugins []WorkerPlugin) []*workerpb.PluginInfo {
	set := make(map[string]struct{}, len(clientPlugins)+len(workerPlugins))
	result := make([]*workerpb.PluginInfo, 0, len(clientPlugins)+len(workerPlugins))
	for _, plugin := range clientPlugins {
		if _, found := set[plugin.Name()]; !found {
			set[plugin.Name()] = struct{}{}
			result = append(result, &workerpb.PluginInfo{Name: plugin.Name(), Version: pluginVersion(plugin)})
		}
	}
	for _, plugin := range workerPlugins {
		if _, found := set[plugin.Name()]; !found {
			set[plugin.Name()] = struct{}{}
			result = append(result, &workerpb.PluginInfo{Name: plugin.Name(), Version: pluginVersion(plugin)})
		}
	}

	sort.Slice(result, func(i, j int) bool {
		return result[i].Name < result[j].Name
	})

	return result
}

// pluginVersion returns the result of the plugin's Version method, if it has
// one. Version is not on the plugin interfaces because a default on both plugin
// bases would be ambiguous for plugins that embed both.
func pluginVersion(plugin any) string {
	if p, ok := plugin.(interface{ Version() string }); ok {
		return p.Version()
	}
	return ""
}

func collectStorageDriverInfos(driverTypes []string) []*workerpb.StorageDriverInfo {
	if len(driverTypes) == 0 {
		return nil
	}
	result := make([]*workerpb.StorageDriverInfo, len(driverTypes))
	for i, t := range driverTypes {
		result[i] = &workerpb.StorageDriverInfo{Type: t}
	}
	return result
}
