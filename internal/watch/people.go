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
//
// The Person informer asks for metadata only (a PartialObjectMetadata watch): all a signal
// needs is the name, UID, generation, one annotation and whether a delete is under way, and a
// Person's status carries its thumbnail, tens of kilobytes of JSON that every create and every
// status write would otherwise send the watcher to decode and drop. The one rule that reads
// the spec, a running baker pod's source against the Person's picture, reads the Person itself.
package watch

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// PeopleConfig is what the people watcher needs.
type PeopleConfig struct {
	// Dynamic reads a Person's spec for a running baker pod's rule; Metadata watches them.
	Dynamic  dynamic.Interface
	Metadata metadata.Interface
	Kube     kubernetes.Interface
	Temporal Signaller
	// TaskQueue is where a Person's workflow runs when a signal starts it.
	TaskQueue string
	// Workers is the number of signals in flight at once; 0 means DefaultWorkers. The people
	// side holds changesPerWorker times as many changes at once, which its shards' batches
	// are made of (a shard has one signal in flight).
	Workers int
	// Resync re-signals every Person and looks at every baker pod again this often, the
	// safety net under the events; 0 turns it off.
	Resync time.Duration
	Log    *slog.Logger
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
	return r == nil || r.q.idle()
}

// peopleRun is one term of leadership: its own informers and queue, dropped at the end, so a
// copy that leads again starts from a fresh list.
type peopleRun struct {
	*People
	// ctx bounds the reads the event handlers make (a baker pod's Person).
	ctx context.Context
	// q holds Person names, with the word for each (see contract.PersonChange.Why).
	q *signalQueue[string]
	// shards batches the changes per shard workflow.
	shards  *batcher[int, contract.PersonChange]
	persons cache.GenericLister
	// gone remembers a deleted Person until its Deleted signal lands.
	gone tombstones[string]
}

// Run watches until ctx ends, then takes no new work and returns once the signals in hand
// are done. A context ended with a cause other than leader.ErrStopping (a lost Lease, or a
// plain cancel) aborts the signals in hand too.
func (p *People) Run(ctx context.Context) error {
	r := &peopleRun{
		People: p,
		ctx:    ctx,
		q:      newSignalQueue[string]("people", &p.Stats, p.cfg.Log),
		shards: newBatcher[int, contract.PersonChange](),
	}
	p.mu.Lock()
	p.cur = r
	p.mu.Unlock()
	defer r.q.shutDown()

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
			r.q.shutDown()
		case <-stop:
		}
	}()

	personFactory := metadatainformer.NewFilteredSharedInformerFactory(p.cfg.Metadata, p.cfg.Resync, metav1.NamespaceAll, nil)
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
	r.q.work(ctx, p.cfg.Workers*changesPerWorker, r.signal)
	return nil
}

// changesPerWorker: 16 workers hold 512 changes, so a burst's batches hold up to 64 Persons
// per shard, and a signal stays far below Temporal's 2 MB payload limit (a change is about
// 150 bytes).
const changesPerWorker = 32

// Words for PersonChange.Why.
const (
	whyAdded   = "added"
	whyUpdated = "updated"
	whyDeleted = "deleted"
	whyResync  = contract.WhyResync // the shards hand a Person heard of only so on as a start
	whyBaker   = "baker"
)

// enqueue queues a look at a Person. The last word wins, except that a resync does not
// hide a real change still queued.
func (r *peopleRun) enqueue(name, why string) {
	if name == "" {
		return
	}
	r.q.add(name, why)
}

func (r *peopleRun) personAdded(obj any, initial bool) {
	u, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return
	}
	r.gone.forget(u.GetName())
	if initial {
		r.enqueue(u.GetName(), whyResync)
		return
	}
	r.enqueue(u.GetName(), whyAdded)
}

func (r *peopleRun) personUpdated(oldObj, newObj any) {
	o, n, ok := updatedObjects[*metav1.PartialObjectMetadata](oldObj, newObj)
	if !ok {
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
func personUpdate(o, n metav1.Object) string {
	return specUpdate(o, n, kube.AnnotationCheckAvatar)
}

func (r *peopleRun) personDeleted(obj any) {
	u, ok := deletedObject[*metav1.PartialObjectMetadata](obj)
	if !ok {
		return
	}
	r.gone.bury(u.GetName(), u)
	r.enqueue(u.GetName(), whyDeleted)
}

func (r *peopleRun) podAdded(obj any) {
	if pod, ok := obj.(*corev1.Pod); ok && r.bakerNeedsALook(pod) {
		r.enqueue(pod.Annotations[kube.AnnotationPerson], whyBaker)
	}
}

func (r *peopleRun) podUpdated(oldObj, newObj any) {
	o, n, ok := updatedObjects[*corev1.Pod](oldObj, newObj)
	if !ok {
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
	if pod, ok := deletedObject[*corev1.Pod](obj); ok {
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
	if done := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed; done {
		return bakerWantsALook(pod, nil)
	}
	if _, err := r.persons.Get(name); apierrors.IsNotFound(err) {
		return bakerWantsALook(pod, nil)
	} else if err != nil {
		return false
	}
	// A pod at work: its source is judged against the spec, which the cache does not hold.
	// Baker pods are few (nfs:// and claim:// pictures, one at a time), so this read is rare;
	// the watch cache answers it (resourceVersion 0).
	ctx, cancel := context.WithTimeout(r.ctx, specReadTimeout)
	defer cancel()
	person, err := r.cfg.Dynamic.Resource(peoplev1.PersonResource).Get(ctx, name, metav1.GetOptions{ResourceVersion: "0"})
	switch {
	case apierrors.IsNotFound(err):
		person = nil
	case err != nil:
		// In doubt, a look: it costs the Person's workflow one pass.
		r.cfg.Log.Warn("could not read a baker pod's Person; signalling it to look", "person", name, "err", err)
		return true
	}
	return bakerWantsALook(pod, person)
}

// specReadTimeout bounds bakerNeedsALook's read of a Person, which holds up the pod events.
const specReadTimeout = 5 * time.Second

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

// signal sends one Person's change to its shard, in the call's context, batched with the
// other changes for that shard; the queue retries it if it fails.
func (r *peopleRun) signal(call context.Context, name, why string) error {
	change := r.changeFor(name, why)
	shard := contract.ShardOf(name)
	err := r.shards.send(call, shard, change, func(call context.Context, changes []contract.PersonChange) error {
		opts := contract.PeopleStartOptions(r.cfg.TaskQueue, shard)
		_, err := r.cfg.Temporal.SignalWithStartWorkflow(call, opts.ID, contract.PeopleChanged, changes, opts,
			contract.PeopleShardWorkflow, contract.PeopleInput{Shard: shard})
		return err
	})
	if err != nil {
		return err
	}
	if change.Deleted {
		r.gone.landed(name, change.UID)
	}
	r.cfg.Log.Debug("signalled a Person's change", "person", name, "shard", shard, "why", change.Why,
		"uid", change.UID, "generation", change.Generation, "deleted", change.Deleted)
	return nil
}

// changeFor reads the Person as the cache has it now (level-triggered: what was queued only
// says that something changed).
func (r *peopleRun) changeFor(name, why string) contract.PersonChange {
	obj, err := r.persons.Get(name)
	u, ok := obj.(*metav1.PartialObjectMetadata)
	if err != nil || !ok {
		g := r.gone.of(name)
		c := contract.PersonChange{Name: name, UID: g.UID, Generation: g.Generation, Deleted: true, Why: why}
		if why != whyBaker {
			c.Why = whyDeleted
		}
		return c
	}
	if why == whyDeleted {
		why = whyAdded // deleted and created again before we looked
	}
	return contract.PersonChange{
		Name:        name,
		UID:         string(u.GetUID()),
		Generation:  u.GetGeneration(),
		CheckAvatar: u.GetAnnotations()[kube.AnnotationCheckAvatar],
		Why:         why,
	}
}

// trimPerson keeps what the watcher reads of a Person's metadata: its identity, generation,
// deletion and the check-avatar annotation. The managed fields, labels, owners and other
// annotations (a client-side kubectl apply's copy of the whole spec among them) go.
func trimPerson(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	out := &metav1.PartialObjectMetadata{
		TypeMeta: m.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion, Generation: m.Generation,
			DeletionTimestamp: m.DeletionTimestamp,
		},
	}
	if v, ok := m.Annotations[kube.AnnotationCheckAvatar]; ok {
		out.Annotations = map[string]string{kube.AnnotationCheckAvatar: v}
	}
	return out, nil
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
