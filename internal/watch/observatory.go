// This file is the observatory side. Informers on Reservation, Telescope and Observatory (in
// every namespace) feed the shared signal queue (queue.go), keyed by the Reservation's
// namespace/name: each key becomes one SignalWithStart of reservation/<ns>/<name>. A
// Reservation is worth a signal when it is created or deleted, when its spec changes (its
// generation), when the retry annotation is set or changed, and when its delete begins. A
// Telescope or Observatory matters only when its delete begins or it is gone, since that ends
// its reservations: each Reservation of the Telescope (of each Telescope of the Observatory)
// in the same namespace is signalled. Status-only updates, mostly the worker's own writes, are
// ignored. On becoming leader every Reservation is signalled once (the informer's first list).
// A deleted pod of the worker's signals every Reservation of its namespace, so the Ready one
// creates it again. The retry annotation set or changed on a device, a Telescope or an
// Observatory signals every Reservation of its namespace too, so the one holding the Failed
// trigger runs re-runs them. The 14 device kinds are watched for that and for devices that
// may join or leave a Ready reservation: one created or deleted, its spec changed (its
// generation: a parent edit) or its delete begun (observatory_devices.go).
//
// A Reservation at rest (Released, its finalizer gone: its workflow has ended) is signalled
// only for a change of its own spec, so the namespace of a year of reservations starts no
// workflow when a device changes. The same informers also tell each namespace's inventory
// when a status may have to change (inventory.go).
package watch

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/workflows"
)

// Words for ReservationChange.Why, beside the ones both sides use.
const (
	whyTelescope   = "telescope"
	whyObservatory = "observatory"
	whyPod         = "pod"
	// whyRetry: the retry annotation of a device, Telescope or Observatory was set or
	// changed. It is the signal's Why as is; a Reservation's own retry stays "updated".
	whyRetry = "resource-retry"
	// whyDevice: a device was created or deleted, its spec changed (its parent may have), or
	// its delete began: the Ready reservation there lets it join or leave.
	whyDevice = "device"
)

// podsResource is core/v1 pods, watched through the dynamic client like everything here.
var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Indexes of the informers: a Reservation by namespace/telescope, a Telescope by
// namespace/observatory, so a deleted parent finds its children without a scan.
const (
	byTelescope   = "telescope"
	byObservatory = "observatory"
)

// ObservatoryConfig is what the observatory watcher needs.
type ObservatoryConfig struct {
	Dynamic  dynamic.Interface
	Temporal Signaller
	// TaskQueue is where a Reservation's workflow runs when a signal starts it.
	TaskQueue string
	// Workers is the number of signals in flight at once; 0 means DefaultWorkers.
	Workers int
	// Resync re-signals every Reservation this often, the safety net under the events; 0
	// turns it off.
	Resync time.Duration
	Log    *slog.Logger
}

// Observatory is the observatory side of the watcher.
type Observatory struct {
	cfg   ObservatoryConfig
	Stats Stats

	mu  sync.Mutex
	cur *observatoryRun

	watching atomic.Bool
}

// NewObservatory returns a watcher; Run starts it.
func NewObservatory(cfg ObservatoryConfig) *Observatory {
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Observatory{cfg: cfg}
}

// Watching tells whether the caches are filled and changes are being signalled.
func (o *Observatory) Watching() bool { return o.watching.Load() }

// Idle tells whether every change seen so far has reached Temporal.
func (o *Observatory) Idle() bool {
	o.mu.Lock()
	r := o.cur
	o.mu.Unlock()
	return r == nil || (r.q.idle() && r.inv.idle())
}

// observatoryRun is one term of leadership, with its own informers and queue.
type observatoryRun struct {
	*Observatory
	q *signalQueue[cache.ObjectName]
	// inv holds namespaces whose inventory is to look again (inventory.go).
	inv           *signalQueue[string]
	reservations  cache.SharedIndexInformer
	telescopes    cache.SharedIndexInformer
	observatories cache.SharedIndexInformer

	mu sync.Mutex
	// gone remembers a deleted Reservation's UID and generation until its signal lands.
	gone map[cache.ObjectName]workflows.ReservationChange
}

// Run watches until ctx ends, then takes no new work and returns once the signals in hand
// are done; see People.Run for how a stop and a lost Lease differ.
func (o *Observatory) Run(ctx context.Context) error {
	r := &observatoryRun{
		Observatory: o,
		q:           newSignalQueue[cache.ObjectName]("reservations", &o.Stats, o.cfg.Log),
		inv:         newSignalQueue[string]("inventories", &o.Stats, o.cfg.Log),
		gone:        map[cache.ObjectName]workflows.ReservationChange{},
	}
	o.mu.Lock()
	o.cur = r
	o.mu.Unlock()
	defer r.q.shutDown()
	defer r.inv.shutDown()

	stop := make(chan struct{})
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(o.cfg.Dynamic, o.cfg.Resync, metav1.NamespaceAll, nil)
	// The pods the worker runs for reservations: a deleted one is created again by the
	// Ready reservation of its namespace, which each Reservation there is told to look at.
	podFactory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(o.cfg.Dynamic, o.cfg.Resync, metav1.NamespaceAll,
		func(lo *metav1.ListOptions) { lo.LabelSelector = kube.LabelManagedBy + "=" + kube.ObservatoryComponent })
	defer func() {
		close(stop) // before the Shutdowns, which wait for the informers to stop
		factory.Shutdown()
		podFactory.Shutdown()
	}()
	go func() {
		select {
		case <-ctx.Done():
			r.q.shutDown()
			r.inv.shutDown()
		case <-stop:
		}
	}()

	pods := podFactory.ForResource(podsResource).Informer()
	if err := pods.SetTransform(trimPodToPlace); err != nil {
		return err
	}
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: r.parentDeleted(r.podGone)}); err != nil {
		return err
	}
	if _, err := pods.AddEventHandler(r.inventoryHandler("pod")); err != nil {
		return err
	}
	// The devices, for their retry annotation, their joining and leaving, and their summary
	// (the inventory's): the summary of their status keeps the INDI properties the worker
	// writes into it out of memory.
	synced := map[string]cache.InformerSynced{"observatory pod": pods.HasSynced}
	for _, k := range obsv1.Kinds {
		if !k.IsDevice() && !slices.Contains(inventoryKinds, k) {
			continue
		}
		inf := factory.ForResource(k.GroupVersionResource()).Informer()
		if err := inf.SetTransform(trimToSummary); err != nil {
			return err
		}
		if k.IsDevice() {
			if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
				AddFunc: r.deviceAdded, UpdateFunc: r.deviceUpdated, DeleteFunc: r.parentDeleted(r.deviceGone)}); err != nil {
				return err
			}
		}
		if _, err := inf.AddEventHandler(r.inventoryHandler(string(k))); err != nil {
			return err
		}
		synced[string(k)] = inf.HasSynced
	}

	r.reservations = factory.ForResource(obsv1.KindReservation.GroupVersionResource()).Informer()
	r.telescopes = factory.ForResource(obsv1.KindTelescope.GroupVersionResource()).Informer()
	r.observatories = factory.ForResource(obsv1.KindObservatory.GroupVersionResource()).Informer()
	for _, s := range []struct {
		kind    obsv1.Kind
		inf     cache.SharedIndexInformer
		index   string
		parent  string
		handler cache.ResourceEventHandler
	}{
		{obsv1.KindReservation, r.reservations, byTelescope, "telescope", cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: r.reservationAdded, UpdateFunc: r.reservationUpdated, DeleteFunc: r.reservationDeleted}},
		{obsv1.KindTelescope, r.telescopes, byObservatory, "observatory", cache.ResourceEventHandlerFuncs{
			UpdateFunc: r.parentUpdated(r.telescopeEnding), DeleteFunc: r.parentDeleted(r.telescopeEnding)}},
		{obsv1.KindObservatory, r.observatories, "", "", cache.ResourceEventHandlerFuncs{
			UpdateFunc: r.parentUpdated(r.observatoryEnding), DeleteFunc: r.parentDeleted(r.observatoryEnding)}},
	} {
		// Metadata, spec and the summary of the status (a Reservation's phase: whether it
		// rests), as for the devices.
		if err := s.inf.SetTransform(trimToSummary); err != nil {
			return err
		}
		if _, err := s.inf.AddEventHandler(r.inventoryHandler(string(s.kind))); err != nil {
			return err
		}
		if s.index != "" {
			if err := s.inf.AddIndexers(cache.Indexers{s.index: specIndex(s.parent)}); err != nil {
				return err
			}
		}
		if _, err := s.inf.AddEventHandler(s.handler); err != nil {
			return err
		}
	}

	factory.Start(stop)
	podFactory.Start(stop)
	synced["Reservation"] = r.reservations.HasSynced
	synced["Telescope"] = r.telescopes.HasSynced
	synced["Observatory"] = r.observatories.HasSynced
	for what, hasSynced := range synced {
		if err := waitForCache(ctx, what, hasSynced); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil // stopped before the caches filled: nothing in hand
	}
	o.cfg.Log.Info("watching reservations, telescopes, observatories and devices",
		"reservations", len(r.reservations.GetStore().ListKeys()), "workers", o.cfg.Workers)

	o.watching.Store(true)
	defer o.watching.Store(false)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.inv.work(ctx, inventoryWorkers, r.signalInventory)
	}()
	r.q.work(ctx, o.cfg.Workers, r.signal)
	r.inv.shutDown()
	<-done
	return nil
}

// specIndex indexes an object by namespace/<spec.field>.
func specIndex(field string) cache.IndexFunc {
	return func(obj any) ([]string, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil, nil
		}
		v, _, _ := unstructured.NestedString(u.Object, "spec", field)
		if v == "" {
			return nil, nil
		}
		return []string{u.GetNamespace() + "/" + v}, nil
	}
}

func (r *observatoryRun) reservationAdded(obj any, initial bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	key := cache.MetaObjectToName(u)
	r.mu.Lock()
	delete(r.gone, key)
	r.mu.Unlock()
	if rests(u) {
		r.Stats.Ignored.Add(1)
		return
	}
	if initial {
		r.q.add(key, whyResync)
		return
	}
	r.q.add(key, whyAdded)
}

func (r *observatoryRun) reservationUpdated(oldObj, newObj any) {
	o, ok1 := oldObj.(*unstructured.Unstructured)
	n, ok2 := newObj.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return
	}
	if why := specUpdate(o, n, kube.AnnotationRetry); why != "" && (why != whyResync || !rests(n)) {
		r.q.add(cache.MetaObjectToName(n), why)
		return
	}
	r.Stats.Ignored.Add(1)
}

// rests says whether a Reservation is at rest: Released, with its finalizer gone. Its
// workflow has ended and nothing it could hear would change it, so it is signalled only when
// its own spec or annotation changes: a device, a pod, its Telescope or a resync of a
// namespace that keeps a year of reservations starts no workflow for it.
func rests(u *unstructured.Unstructured) bool {
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	return phase == string(obsv1.ReservationReleased) && !kube.FinalizersHave(u.GetFinalizers(), kube.FinalizerDeactivate)
}

func (r *observatoryRun) reservationDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	if rests(u) {
		r.Stats.Ignored.Add(1) // nothing to undo
		return
	}
	key := cache.MetaObjectToName(u)
	r.mu.Lock()
	r.gone[key] = workflows.ReservationChange{UID: string(u.GetUID()), Generation: u.GetGeneration()}
	r.mu.Unlock()
	r.q.add(key, whyDeleted)
}

// parentUpdated calls ending when a Telescope's or Observatory's delete begins, and queues
// its namespace's Reservations when its retry annotation is set or changed. The retry goes
// first, so that when one update does both the Reservations it ends hear of the delete.
func (r *observatoryRun) parentUpdated(ending func(*unstructured.Unstructured)) func(oldObj, newObj any) {
	return func(oldObj, newObj any) {
		o, ok1 := oldObj.(*unstructured.Unstructured)
		n, ok2 := newObj.(*unstructured.Unstructured)
		if !ok1 || !ok2 {
			return
		}
		if retryAsked(o, n) {
			r.namespaceReservations(n.GetNamespace(), whyRetry)
		}
		if o.GetDeletionTimestamp() == nil && n.GetDeletionTimestamp() != nil {
			ending(n)
		}
	}
}

// retryAsked says whether an update of a device, Telescope or Observatory asks for a retry:
// its retry annotation now has a value, and not the one it had. The worker removing it, a
// status write, another annotation or a resync (the same object again) do not.
func retryAsked(o, n *unstructured.Unstructured) bool {
	v := n.GetAnnotations()[kube.AnnotationRetry]
	return v != "" && v != o.GetAnnotations()[kube.AnnotationRetry]
}

// parentDeleted calls ending when a Telescope, an Observatory or a pod is gone.
func (r *observatoryRun) parentDeleted(ending func(*unstructured.Unstructured)) func(obj any) {
	return func(obj any) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		if u, ok := obj.(*unstructured.Unstructured); ok {
			ending(u)
		}
	}
}

// telescopeEnding queues each Reservation of the Telescope.
func (r *observatoryRun) telescopeEnding(tel *unstructured.Unstructured) {
	r.childrenOf(r.reservations, byTelescope, tel, func(res *unstructured.Unstructured) {
		if !rests(res) {
			r.q.add(cache.MetaObjectToName(res), whyTelescope)
		}
	})
}

// observatoryEnding queues each Reservation of each Telescope of the Observatory.
func (r *observatoryRun) observatoryEnding(obs *unstructured.Unstructured) {
	r.childrenOf(r.telescopes, byObservatory, obs, func(tel *unstructured.Unstructured) {
		r.childrenOf(r.reservations, byTelescope, tel, func(res *unstructured.Unstructured) {
			if !rests(res) {
				r.q.add(cache.MetaObjectToName(res), whyObservatory)
			}
		})
	})
}

// namespaceReservations queues each Reservation of a namespace (one site) with why, but
// those at rest.
func (r *observatoryRun) namespaceReservations(namespace, why string) {
	objs, err := r.reservations.GetIndexer().ByIndex(cache.NamespaceIndex, namespace)
	if err != nil {
		r.cfg.Log.Error("read an informer's index", "index", cache.NamespaceIndex, "err", err)
		return
	}
	for _, obj := range objs {
		if res, ok := obj.(*unstructured.Unstructured); ok && !rests(res) {
			r.q.add(cache.MetaObjectToName(res), why)
		}
	}
}

func (r *observatoryRun) childrenOf(inf cache.SharedIndexInformer, index string, parent *unstructured.Unstructured, each func(*unstructured.Unstructured)) {
	objs, err := inf.GetIndexer().ByIndex(index, parent.GetNamespace()+"/"+parent.GetName())
	if err != nil {
		r.cfg.Log.Error("read an informer's index", "index", index, "err", err)
		return
	}
	for _, obj := range objs {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			each(u)
		}
	}
}

// signal sends one Reservation's signal in the call's context; the queue retries it.
func (r *observatoryRun) signal(call context.Context, key cache.ObjectName, why string) error {
	change := r.changeFor(key, why)
	opts := workflows.ReservationStartOptions(r.cfg.TaskQueue, key.Namespace, key.Name, r.spec(key))
	_, err := r.cfg.Temporal.SignalWithStartWorkflow(call, opts.ID, workflows.ReservationChanged, change, opts,
		workflows.ReservationWorkflow, workflows.ReservationInput{Namespace: key.Namespace, Name: key.Name})
	if err != nil {
		return err
	}
	if change.Deleted {
		r.mu.Lock()
		if g, ok := r.gone[key]; ok && g.UID == change.UID {
			delete(r.gone, key)
		}
		r.mu.Unlock()
	}
	r.cfg.Log.Debug("signalled a Reservation's workflow", "reservation", key.String(), "why", change.Why,
		"uid", change.UID, "generation", change.Generation, "deleted", change.Deleted,
		"telescopeDeleted", change.TelescopeDeleted, "observatoryDeleted", change.ObservatoryDeleted)
	return nil
}

// spec is the Reservation's spec as the cache has it, for the words its workflow starts
// with; a Reservation that is gone (or does not fit its type) has none.
func (r *observatoryRun) spec(key cache.ObjectName) obsv1.ReservationSpec {
	var spec obsv1.ReservationSpec
	if res := r.get(r.reservations, key); res != nil {
		if m, ok := res.Object["spec"].(map[string]any); ok {
			_ = runtime.DefaultUnstructuredConverter.FromUnstructured(m, &spec)
		}
	}
	return spec
}

// changeFor reads the Reservation, its Telescope and its Observatory as the caches have them
// now (level-triggered: what was queued only says that something changed).
func (r *observatoryRun) changeFor(key cache.ObjectName, why string) workflows.ReservationChange {
	res := r.get(r.reservations, key)
	if res == nil {
		r.mu.Lock()
		c := r.gone[key]
		r.mu.Unlock()
		c.Deleted = true
		c.Why = whyDeleted
		return c
	}
	if why == whyDeleted {
		why = whyAdded // deleted and created again before we looked
	}
	c := workflows.ReservationChange{
		UID:        string(res.GetUID()),
		Generation: res.GetGeneration(),
		Retry:      res.GetAnnotations()[kube.AnnotationRetry],
		Deleted:    res.GetDeletionTimestamp() != nil,
		Why:        why,
	}
	// A parent that was never there is not being deleted: the Wait step reports it missing.
	telName, _, _ := unstructured.NestedString(res.Object, "spec", "telescope")
	tel := r.get(r.telescopes, cache.ObjectName{Namespace: key.Namespace, Name: telName})
	c.TelescopeDeleted = ending(tel, why == whyTelescope)
	if tel == nil {
		c.ObservatoryDeleted = why == whyObservatory
		return c
	}
	obsName, _, _ := unstructured.NestedString(tel.Object, "spec", "observatory")
	obs := r.get(r.observatories, cache.ObjectName{Namespace: key.Namespace, Name: obsName})
	c.ObservatoryDeleted = ending(obs, why == whyObservatory)
	return c
}

// ending says whether a parent's delete has begun: it is being deleted, or it is gone and
// its delete is what queued the signal.
func ending(parent *unstructured.Unstructured, goneIsWhy bool) bool {
	if parent == nil {
		return goneIsWhy
	}
	return parent.GetDeletionTimestamp() != nil
}

func (r *observatoryRun) get(inf cache.SharedIndexInformer, key cache.ObjectName) *unstructured.Unstructured {
	obj, ok, err := inf.GetStore().GetByKey(key.String())
	if err != nil || !ok {
		return nil
	}
	u, _ := obj.(*unstructured.Unstructured)
	return u
}
