// The machinery both sides of the watcher share: a rate-limited work queue of keys (a
// Person's name, a Reservation's namespace/name), each with the word saying why it is queued,
// worked by N signallers. A key queued many times before a signaller takes it becomes one
// signal; a signal that fails goes back on the queue with back-off and is never dropped; and
// the queue knows when every change it was given has reached Temporal (idle), which the tests
// wait on.
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/client"
	"golang.org/x/time/rate"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"liken.sh/runner/internal/leader"
)

// DefaultWorkers is how many signals are in flight at once. A SignalWithStart takes a few
// milliseconds on a healthy frontend, so 16 clear a burst of thousands in seconds without
// crowding a Temporal that is also serving the workers.
const DefaultWorkers = 16

// signalTimeout bounds one SignalWithStart. A healthy frontend answers in milliseconds; the
// SDK retries an unavailable one within this deadline, which rides over a frontend restart,
// and a worker is held no longer when Temporal is down. It is longer than leader.DefaultGrace
// on purpose: a call still running 5 s after a stop means Temporal is unwell, and the
// leader then exits without releasing the Lease, as the install guide says.
var signalTimeout = 10 * time.Second

// Back-off of a signal that failed: per key (a Person, a Reservation) from 0.5 s doubling to 30 s, so a Temporal
// that comes back is reached again within half a minute, and at most 50 retries a second
// overall, so thousands of objects do not hammer a frontend that is refusing them.
var (
	retryBase    = 500 * time.Millisecond
	retryMax     = 30 * time.Second
	retryRate    = rate.Limit(50)
	retryBurst   = 300
	cacheTimeout = 2 * time.Minute
)

// Signaller is the part of the Temporal client the watcher uses.
type Signaller interface {
	SignalWithStartWorkflow(ctx context.Context, workflowID string, signalName string, signalArg any,
		options client.StartWorkflowOptions, workflow any, workflowArgs ...any) (client.WorkflowRun, error)
}

// Stats are the watcher's counters, cheap to read at any time.
type Stats struct {
	// Signalled counts signals Temporal accepted; Failed counts attempts it did not.
	Signalled atomic.Int64
	Failed    atomic.Int64
	// Ignored counts updates that changed nothing a workflow cares about (status).
	Ignored atomic.Int64
	// InFlight is the number of signals being sent now.
	InFlight atomic.Int64
}

// waitForCache waits for an informer's first list, bounded by cacheTimeout.
func waitForCache(ctx context.Context, what string, synced cache.InformerSynced) error {
	wctx, cancel := context.WithTimeout(ctx, cacheTimeout)
	defer cancel()
	if cache.WaitForCacheSync(wctx.Done(), synced) {
		return nil
	}
	if ctx.Err() != nil {
		return nil // stopping; Run returns before it starts any work
	}
	return fmt.Errorf("the %s informer did not sync within %s: is the CRD installed and may the watcher list it?", what, cacheTimeout)
}

// inFlight is the context of one signal. A stop (leader.ErrStopping) lets it finish within
// signalTimeout; anything else, such as a lost Lease, ends it at once.
func inFlight(ctx context.Context) (context.Context, context.CancelFunc) {
	call, cancel := context.WithTimeout(context.WithoutCancel(ctx), signalTimeout)
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(context.Cause(ctx), leader.ErrStopping) {
			cancel()
		}
	})
	return call, func() { stop(); cancel() }
}

// signalQueue is one term of leadership's queue; a new term makes a new one.
type signalQueue[K comparable] struct {
	queue workqueue.TypedRateLimitingInterface[K]
	stats *Stats
	log   *slog.Logger

	mu sync.Mutex
	// why holds the word for each queued key until a signaller takes it.
	why      map[K]string
	inFlight int
}

// newSignalQueue makes a queue with the back-off of retryBase..retryMax per key under the
// overall retryRate.
func newSignalQueue[K comparable](name string, stats *Stats, log *slog.Logger) *signalQueue[K] {
	limiter := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[K](retryBase, retryMax),
		&workqueue.TypedBucketRateLimiter[K]{Limiter: rate.NewLimiter(retryRate, retryBurst)},
	)
	return &signalQueue[K]{
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[K]{Name: name}),
		stats: stats,
		log:   log,
		why:   map[K]string{},
	}
}

// add queues a look at key. The last word wins, except that a resync does not hide a real
// change still queued.
func (q *signalQueue[K]) add(key K, why string) {
	q.mu.Lock()
	if prev, ok := q.why[key]; !ok || why != whyResync || prev == whyResync {
		q.why[key] = why
	}
	q.mu.Unlock()
	q.queue.Add(key)
}

// idle tells whether nothing is queued, in flight or waiting to be tried again.
func (q *signalQueue[K]) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	// A queued key has a word in why until a signaller takes it, in the same critical section
	// that counts it in flight; a failed one gets its word back before it leaves the count.
	return len(q.why) == 0 && q.inFlight == 0
}

// shutDown takes no new work: idle signallers return at once, busy ones after their call.
func (q *signalQueue[K]) shutDown() { q.queue.ShutDown() }

// work runs n signallers until the queue is shut down or ctx ends. send makes one signal in
// the context it is given (see inFlight) and says whether Temporal took it.
func (q *signalQueue[K]) work(ctx context.Context, n int, send func(ctx context.Context, key K, why string) error) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for q.next(ctx, send) {
			}
		})
	}
	wg.Wait()
}

// next signals one queued key; it returns false when the queue is shut down or the run is
// stopping.
func (q *signalQueue[K]) next(ctx context.Context, send func(context.Context, K, string) error) bool {
	key, quit := q.queue.Get()
	if quit {
		return false
	}
	defer q.queue.Done(key)
	if ctx.Err() != nil {
		// Stopping: what is still queued is left to the next leader's first list.
		return false
	}
	q.signal(ctx, key, send)
	return true
}

func (q *signalQueue[K]) signal(ctx context.Context, key K, send func(context.Context, K, string) error) {
	q.mu.Lock()
	why, ok := q.why[key]
	delete(q.why, key)
	q.inFlight++
	q.mu.Unlock()
	q.stats.InFlight.Add(1)
	defer func() {
		q.stats.InFlight.Add(-1)
		q.mu.Lock()
		q.inFlight--
		q.mu.Unlock()
	}()
	if !ok {
		why = whyResync
	}

	call, cancel := inFlight(ctx)
	defer cancel()
	err := send(call, key, why)
	if err != nil && ctx.Err() != nil {
		// Stopping: the queue takes nothing back, and the next leader's first list signals
		// this key again.
		q.log.Info("a signal was cut short by the stop; the next leader sends it again", "key", key, "err", err)
		return
	}
	if err != nil {
		q.stats.Failed.Add(1)
		q.mu.Lock()
		if _, newer := q.why[key]; !newer {
			q.why[key] = why
		}
		q.mu.Unlock()
		q.log.Warn("could not signal a workflow; trying again", "key", key, "why", why,
			"attempt", q.queue.NumRequeues(key)+1, "err", err)
		q.queue.AddRateLimited(key)
		return
	}
	q.queue.Forget(key)
	q.stats.Signalled.Add(1)
}
