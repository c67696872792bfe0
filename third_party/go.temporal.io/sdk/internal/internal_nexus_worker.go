package internal

import (
	"github.com/nexus-rpc/sdk-go/nexus"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/internal/common/metrics"
)

type nexusWorkerOptions struct {
	executionParameters workerExecutionParameters
	client              Client
	workflowService     workflowservice.WorkflowServiceClient
	handler             nexus.Handler
	registry            *registry
}

type nexusWorker struct {
	executionParameters workerExecutionParameters
	workflowService     workflowservice.WorkflowServiceClient
	worker              *baseWorker
	// stopC is created by newNexusWorker, exposed to the Nexus task poller through
	// WorkerStopChannel, and closed by nexusWorker.Stop() during shutdown.
	stopC chan struct{}
}

func newNexusWorker(opts nexusWorkerOptions) (*nexusWorker, error) {
	workerStopChannel := make(chan struct{})
	params := opts.executionParameters
	params.WorkerStopChannel = getReadOnlyChannel(workerStopChannel)
	ensureRequiredParams(&params)
	var pollerGroups *pollerGroupManager
	if _, ok := params.NexusTaskPollerBehavior.(*pollerBehaviorAutoscaling); ok {
		pollerGroups = newPollerGroupManager(params.pollerGroupSnapshotStore)
	}
	poller := newNexusTaskPoller(
		newNexusTaskHandler(
			opts.handler,
			opts.executionParameters.Identity,
			opts.executionParameters.Namespace,
			opts.executionParameters.TaskQueue,
			opts.client,
			opts.executionParameters.DataConverter,
			opts.executionParameters.FailureConverter,
			opts.executionParameters.Logger,
			opts.executionParameters.MetricsHandler,
			opts.registry,
		),
		opts.workflowService,
		params,
		pollerGroups,
	)

	bwo := baseWorkerOptions{
		pollerRate:       defaultPollerRate,
		slotSupplier:     params.Tuner.GetNexusSlotSupplier(),
		maxTaskPerSecond: defaultWorkerTaskExecutionRate,
		taskPollers: []scalableTaskPoller{
			newScalableTaskPoller(
				poller,
				opts.executionParameters.Logger,
				params.NexusTaskPollerBehavior,
				metrics.PollerTypeNexusTask,
				params.serverSupportsAutoscaling,
				pollerGroups,
			),
		},
		taskProcessor:                poller,
		workerType:                   "NexusWorker",
		identity:                     params.Identity,
		buildId:                      params.getBuildID(),
		logger:                       params.Logger,
		stopTimeout:                  params.WorkerStopTimeout,
		fatalErrCb:                   params.WorkerFatalErrorCallback,
		noRepoll:                     params.noRepoll,
		metricsHandler:               params.MetricsHandler,
		workerPollCompleteOnShutdown: params.workerPollCompleteOnShutdown,
		slotReservationData: slotReservationData{
			taskQueue:     params.TaskQueue,
			taskQueueKind: enumspb.TASK_QUEUE_KIND_NORMAL,
		},
		isInternalWorker: params.isInternalWorker(),
	}

	baseWorker := newBaseWorker(bwo)

	return &nexusWorker{
		executionParameters: opts.executionParameters,
		workflowService:     opts.workflowService,
		worker:              baseWorker,
		stopC:               workerStopChannel,
	}, nil
}

// Start the worker.
func (w *nexusWorker) Start() error {
	w.worker.Start()
	return nil
}

// Stop the worker.
func (w *nexusWorker) Stop() {
	close(w.stopC)
	w.worker.Stop()
}
