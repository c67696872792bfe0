// Package watch turns what the cluster says into Temporal signals; it is the watcher's
// logic, run only by the copy that holds the Lease (see internal/leader).
//
// This file is the people side. Informers on Person and on baker pods feed a rate-limited
// work queue keyed by the Person's name, sample-controller style: a burst of changes to one
// Person becomes one signal, a signal means "look again" (the workflow reads the Person
// itself), and a signal that fails is tried again with back-off until it lands, never
// dropped. Status-only updates, which are mostly the worker's own writes, are ignored, so the
// worker does not wake itself. On start every Person is signalled once: the informer's first
// list does it, and Temporal keys the work by workflow ID, so a repeat costs one pass.
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
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"liken.sh/runner/internal/leader"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/workflows"
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

// Back-off of a signal that failed: per Person from 0.5 s doubling to 30 s, so a Temporal
// that comes back is reached again within half a minute, and at most 50 retries a second
// overall, so thousands of Persons do not hammer a frontend that is refusing them.
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

// PeopleConfig is what the people watcher needs.
type PeopleConfig struct {
	Dynamic  dynamic.Interface
	Kube     kubernetes.Interface
	Temporal Signaller
	// TaskQueue is where a Person's workflow runs when a signal starts it.
	TaskQueue string
	// Workers is the number of signals in flight at once; 0 means DefaultWorkers.
	Workers int
	// Resync re-signals every Person and looks at every baker pod again this often, the
	// safety net under the events; 0 turns it off.
	Resync time.Duration
	Log    *slog.Logger
}

// Stats are the watcher's counters, cheap to read at any time.
type Stats struct {
	// Signalled counts signals Temporal accepted; Failed counts attempts it did not.
	Signalled atomic.Int64
	Failed    atomic.Int64
	// Ignored counts Person updates that changed nothing a workflow cares about (status).
	Ignored atomic.Int64
	// InFlight is the number of signals being sent now.
	InFlight atomic.Int64
}

// People is the people side of the watcher.
type People struct {
	cfg   PeopleConfig
	Stats Stats

	mu  sync.Mutex
	cur *peopleRun // the run in progress, for Idle

	watching atomic.Bool
}

// Watching tells whether the caches are filled and changes are being signalled.
func (p *People) Watching() bool { return p.watching.Load() }

// NewPeople returns a watcher; Run starts it.
func NewPeople(cfg PeopleConfig) *People {
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &People{cfg: cfg}
}

// Idle tells whether nothing is queued, in flight or waiting to be tried again: every change
// seen so far has reached Temporal.
func (p *People) Idle() bool {
	p.mu.Lock()
	r := p.cur
	p.mu.Unlock()
	if r == nil {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// A queued Person has a word in why until a worker takes it, in the same critical section
	// that counts it in flight; a failed one gets its word back before it leaves the count.
	return len(r.why) == 0 && r.inFlight == 0
}

// peopleRun is one term of leadership: its own informers and queue, dropped at the end, so a
// copy that leads again starts from a fresh list.
type peopleRun struct {
	*People
	queue   workqueue.TypedRateLimitingInterface[string]
	persons cache.GenericLister

	mu sync.Mutex
	// why holds the word for each queued Person (see workflows.PersonChange.Why).
	why map[string]string
	// gone remembers a deleted Person's UID and generation until its Deleted signal lands.
	gone     map[string]workflows.PersonChange
	inFlight int
}

// Run watches until ctx ends, then takes no new work and returns once the signals in hand
// are done. A context ended with a cause other than leader.ErrStopping (a lost Lease, or a
// plain cancel) aborts the signals in hand too.
func (p *People) Run(ctx context.Context) error {
	limiter := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](retryBase, retryMax),
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(retryRate, retryBurst)},
	)
	r := &peopleRun{
		People: p,
		queue:  workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "people"}),
		why:    map[string]string{},
		gone:   map[string]workflows.PersonChange{},
	}
	p.mu.Lock()
	p.cur = r
	p.mu.Unlock()
	defer r.queue.ShutDown()

	// stop ends the informers; it closes before the factories' Shutdown, which waits for them.
	stop := make(chan struct{})
	var factories []interface{ Shutdown() }
	defer func() {
		close(stop)
		for _, f := range factories {
			f.Shutdown()
		}
	}()
	go func() {
		select {
		case <-ctx.Done():
			// Take no new work: idle workers return at once, busy ones after their call.
			r.queue.ShutDown()
		case <-stop:
		}
	}()

	personFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(p.cfg.Dynamic, p.cfg.Resync, metav1.NamespaceAll, nil)
	factories = append(factories, personFactory)
	personInf := personFactory.ForResource(peoplev1.PersonResource)
	r.persons = personInf.Lister()
	if err := personInf.Informer().SetTransform(trimPerson); err != nil {
		return err
	}
	if _, err := personInf.Informer().AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: r.personAdded, UpdateFunc: r.personUpdated, DeleteFunc: r.personDeleted,
	}); err != nil {
		return err
	}

	podFactory := informers.NewSharedInformerFactoryWithOptions(p.cfg.Kube, p.cfg.Resync,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = kube.BakerSelector }))
	factories = append(factories, podFactory)
	podInf := podFactory.Core().V1().Pods().Informer()
	if err := podInf.SetTransform(trimPod); err != nil {
		return err
	}
	if _, err := podInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: r.podAdded, UpdateFunc: r.podUpdated, DeleteFunc: r.podDeleted,
	}); err != nil {
		return err
	}

	// People first: a baker pod is judged against its Person, and a Person missing from a
	// cache still filling would look deleted.
	personFactory.Start(stop)
	if err := waitForCache(ctx, "Person", personInf.Informer().HasSynced); err != nil {
		return err
	}
	podFactory.Start(stop)
	if err := waitForCache(ctx, "baker pod", podInf.HasSynced); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return nil // stopped before the caches filled: nothing in hand
	}
	all, _ := r.persons.List(labels.Everything())
	p.cfg.Log.Info("watching people and baker pods", "people", len(all), "workers", p.cfg.Workers)

	p.watching.Store(true)
	defer p.watching.Store(false)
	var wg sync.WaitGroup
	for range p.cfg.Workers {
		wg.Go(func() {
			for r.next(ctx) {
			}
		})
	}
	wg.Wait()
	return nil
}

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

// Words for PersonChange.Why.
const (
	whyAdded   = "added"
	whyUpdated = "updated"
	whyDeleted = "deleted"
	whyResync  = "resync"
	whyBaker   = "baker"
)

// enqueue queues a look at a Person. The last word wins, except that a resync does not
// hide a real change still queued.
func (r *peopleRun) enqueue(name, why string) {
	if name == "" {
		return
	}
	r.mu.Lock()
	if prev, ok := r.why[name]; !ok || why != whyResync || prev == whyResync {
		r.why[name] = why
	}
	r.mu.Unlock()
	r.queue.Add(name)
}

func (r *peopleRun) personAdded(obj any, initial bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	r.mu.Lock()
	delete(r.gone, u.GetName())
	r.mu.Unlock()
	if initial {
		r.enqueue(u.GetName(), whyResync)
		return
	}
	r.enqueue(u.GetName(), whyAdded)
}

func (r *peopleRun) personUpdated(oldObj, newObj any) {
	o, ok1 := oldObj.(*unstructured.Unstructured)
	n, ok2 := newObj.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return
	}
	if why := personUpdate(o, n); why != "" {
		r.enqueue(n.GetName(), why)
		return
	}
	r.Stats.Ignored.Add(1)
}

// personUpdate says whether an update of a Person is worth a signal, and in which word: a
// resync (the same version again), or a change of what a pass acts on (UID, generation, the
// check-avatar annotation, a deletion under way). Status, labels and other annotations give "".
func personUpdate(o, n *unstructured.Unstructured) string {
	switch {
	case o.GetResourceVersion() == n.GetResourceVersion():
		return whyResync
	case o.GetUID() != n.GetUID(),
		o.GetGeneration() != n.GetGeneration(),
		o.GetAnnotations()[kube.AnnotationCheckAvatar] != n.GetAnnotations()[kube.AnnotationCheckAvatar],
		(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil):
		return whyUpdated
	}
	return ""
}

func (r *peopleRun) personDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	r.mu.Lock()
	r.gone[u.GetName()] = workflows.PersonChange{UID: string(u.GetUID()), Generation: u.GetGeneration()}
	r.mu.Unlock()
	r.enqueue(u.GetName(), whyDeleted)
}

func (r *peopleRun) podAdded(obj any) {
	if pod, ok := obj.(*corev1.Pod); ok && r.bakerNeedsALook(pod) {
		r.enqueue(pod.Annotations[kube.AnnotationPerson], whyBaker)
	}
}

func (r *peopleRun) podUpdated(oldObj, newObj any) {
	o, ok1 := oldObj.(*corev1.Pod)
	n, ok2 := newObj.(*corev1.Pod)
	if !ok1 || !ok2 {
		return
	}
	changed := o.ResourceVersion == n.ResourceVersion || // resync
		o.Status.Phase != n.Status.Phase ||
		o.Annotations[kube.AnnotationSource] != n.Annotations[kube.AnnotationSource] ||
		o.Annotations[kube.AnnotationPerson] != n.Annotations[kube.AnnotationPerson]
	if changed && r.bakerNeedsALook(n) {
		r.enqueue(n.Annotations[kube.AnnotationPerson], whyBaker)
	}
}

func (r *peopleRun) podDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if pod, ok := obj.(*corev1.Pod); ok {
		r.enqueue(pod.Annotations[kube.AnnotationPerson], whyBaker)
	}
}

// bakerNeedsALook: the pod finished, or it reads a source its Person no longer has (or its
// Person is gone), so the Person's workflow must read the result or clean the pod up.
func (r *peopleRun) bakerNeedsALook(pod *corev1.Pod) bool {
	name := pod.Annotations[kube.AnnotationPerson]
	if name == "" {
		return false
	}
	obj, err := r.persons.Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return false
	}
	person, _ := obj.(*unstructured.Unstructured)
	return bakerWantsALook(pod, person)
}

// bakerWantsALook is the rule of bakerNeedsALook; person is nil when the Person is gone.
func bakerWantsALook(pod *corev1.Pod, person *unstructured.Unstructured) bool {
	if pod.Annotations[kube.AnnotationPerson] == "" {
		return false
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed || person == nil {
		return true
	}
	avatar, _, _ := unstructured.NestedString(person.Object, "spec", "avatar")
	return pod.Annotations[kube.AnnotationSource] != avatar
}

// next signals one queued Person; it returns false when the queue is shut down or the run
// is stopping.
func (r *peopleRun) next(ctx context.Context) bool {
	name, quit := r.queue.Get()
	if quit {
		return false
	}
	defer r.queue.Done(name)
	if ctx.Err() != nil {
		// Stopping: what is still queued is left to the next leader's first list.
		return false
	}
	r.signal(ctx, name)
	return true
}

func (r *peopleRun) signal(ctx context.Context, name string) {
	r.mu.Lock()
	why, ok := r.why[name]
	delete(r.why, name)
	r.inFlight++
	r.mu.Unlock()
	r.Stats.InFlight.Add(1)
	defer func() {
		r.Stats.InFlight.Add(-1)
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()
	if !ok {
		why = whyResync
	}

	change := r.changeFor(name, why)
	call, cancel := inFlight(ctx)
	defer cancel()
	_, err := r.cfg.Temporal.SignalWithStartWorkflow(call, workflows.PersonWorkflowID(name), workflows.PersonChanged, change,
		client.StartWorkflowOptions{ID: workflows.PersonWorkflowID(name), TaskQueue: r.cfg.TaskQueue},
		workflows.PersonWorkflow, workflows.PersonInput{Name: name})
	if err != nil && ctx.Err() != nil {
		// Stopping: the queue takes nothing back, and the next leader's first list signals
		// this Person again.
		r.cfg.Log.Info("a signal was cut short by the stop; the next leader sends it again", "person", name, "err", err)
		return
	}
	if err != nil {
		r.Stats.Failed.Add(1)
		r.mu.Lock()
		if _, newer := r.why[name]; !newer {
			r.why[name] = why
		}
		r.mu.Unlock()
		r.cfg.Log.Warn("could not signal a Person's workflow; trying again", "person", name, "why", change.Why,
			"attempt", r.queue.NumRequeues(name)+1, "err", err)
		r.queue.AddRateLimited(name)
		return
	}
	r.queue.Forget(name)
	r.Stats.Signalled.Add(1)
	if change.Deleted {
		r.mu.Lock()
		if g, ok := r.gone[name]; ok && g.UID == change.UID {
			delete(r.gone, name)
		}
		r.mu.Unlock()
	}
	r.cfg.Log.Debug("signalled a Person's workflow", "person", name, "why", change.Why,
		"uid", change.UID, "generation", change.Generation, "deleted", change.Deleted)
}

// changeFor reads the Person as the cache has it now (level-triggered: what was queued only
// says that something changed).
func (r *peopleRun) changeFor(name, why string) workflows.PersonChange {
	obj, err := r.persons.Get(name)
	u, ok := obj.(*unstructured.Unstructured)
	if err != nil || !ok {
		r.mu.Lock()
		c := r.gone[name]
		r.mu.Unlock()
		c.Deleted = true
		c.Why = why
		if why != whyBaker {
			c.Why = whyDeleted
		}
		return c
	}
	if why == whyDeleted {
		why = whyAdded // deleted and created again before we looked
	}
	return workflows.PersonChange{
		UID:         string(u.GetUID()),
		Generation:  u.GetGeneration(),
		CheckAvatar: u.GetAnnotations()[kube.AnnotationCheckAvatar],
		Why:         why,
	}
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

// trimPerson keeps what the watcher reads (metadata and spec) and drops the status, whose
// thumbnail is tens of kilobytes per Person, and the managed fields.
func trimPerson(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		delete(u.Object, "status")
		u.SetManagedFields(nil)
	}
	return obj, nil
}

// trimPod keeps a baker pod's identity, annotations and phase: all the watcher reads.
func trimPod(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, ResourceVersion: pod.ResourceVersion,
			Labels: pod.Labels, Annotations: pod.Annotations, DeletionTimestamp: pod.DeletionTimestamp,
		},
		Status: corev1.PodStatus{Phase: pod.Status.Phase},
	}, nil
}
