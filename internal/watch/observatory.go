// This file is the observatory side. Informers on Reservation, Telescope and Observatory (in
// every namespace) feed the shared signal queue (queue.go), keyed by the Reservation's
// namespace/name: each key becomes one SignalWithStart of reservation/<ns>/<name>. A
// Reservation is worth a signal when it is created or deleted, when its spec changes (its
// generation), when the retry annotation is set or changed, and when its delete begins. A
// Telescope or Observatory matters only when its delete begins or it is gone, since that ends
// its reservations: each Reservation of the Telescope (of each Telescope of the Observatory)
// in the same namespace is signalled. Status-only updates, mostly the worker's own writes, are
// ignored. On becoming leader every Reservation is signalled once (the informer's first list).
// A deleted pod of the worker's signals the Reservations it matters to (of its server's
// Telescope, or of every Telescope of its server's Observatory), so the Ready one creates it
// again. The retry annotation set or changed on a device, a Telescope or an
// Observatory signals every Reservation of its namespace too, so the one holding the Failed
// trigger runs re-runs them. The 14 device kinds are watched for that and for devices that
// may join or leave a Ready reservation: one created or deleted, its spec changed (its
// generation: a parent edit) or its delete begun (observatory_devices.go).
//
// A Reservation at rest (Released, its finalizer gone: its workflow has ended) is signalled
// only for a change of its own spec, so the namespace of a year of reservations starts no
// workflow when a device changes. The same informers also tell each namespace's inventory
// when a status may have to change (inventory.go). Run sets the informers up here; what each
// change signals, and the signal, are in observatory_reservations.go.
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
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
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
	// whyBooking: another Reservation of the namespace (the site) changed its window or
	// went, which the booking rules of those still waiting count, or the Observatory's spec
	// (its rules) changed.
	whyBooking = "booking"
)

// podsResource is core/v1 pods, watched through the dynamic client like everything here.
var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Indexes of the informers: a Reservation by namespace/telescope, a Telescope by
// namespace/observatory, so a deleted parent finds its children without a scan.
const (
	byTelescope   = "telescope"
	byObservatory = "observatory"
	// byHolder indexes Reservations by spec.holder alone: a Person is cluster-scoped and may
	// hold reservations in every namespace.
	byHolder = "holder"
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
	// SkyEvery is how often each Observatory's inventory is told the sky moved; 0 means
	// kube.SkyEvery, the step at which its status's sky changes.
	SkyEvery time.Duration
	Log      *slog.Logger
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
	if cfg.SkyEvery <= 0 {
		cfg.SkyEvery = kube.SkyEvery
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
	// gone remembers a deleted Reservation until its signal lands.
	gone tombstones[cache.ObjectName]
}

// Run watches until ctx ends, then takes no new work and returns once the signals in hand
// are done; see People.Run for how a stop and a lost Lease differ.
func (o *Observatory) Run(ctx context.Context) error {
	r := &observatoryRun{
		Observatory: o,
		q:           newSignalQueue[cache.ObjectName]("reservations", &o.Stats, o.cfg.Log),
		inv:         newSignalQueue[string]("inventories", &o.Stats, o.cfg.Log),
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

	synced := map[string]cache.InformerSynced{}
	if err := r.watchPods(podFactory, synced); err != nil {
		return err
	}
	if err := r.watchDevices(factory, synced); err != nil {
		return err
	}
	if err := r.watchReservations(factory, synced); err != nil {
		return err
	}
	if err := r.watchHolders(ctx, factory, synced); err != nil {
		return err
	}
	factory.Start(stop)
	podFactory.Start(stop)
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
	r.serve(ctx)
	return nil
}

// serve signals what the informers queue until ctx ends, then finishes the signals in hand.
func (r *observatoryRun) serve(ctx context.Context) {
	r.watching.Store(true)
	defer r.watching.Store(false)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.inv.work(ctx, inventoryWorkers, r.signalInventory)
	}()
	go r.skyMoves(ctx)
	r.q.work(ctx, r.cfg.Workers, r.signal)
	r.inv.shutDown()
	<-done
}

// watchPods sets up the informer of the runner's pods, whose delete signals their
// namespace's Reservations and whose place the inventory shows.
func (r *observatoryRun) watchPods(podFactory dynamicinformer.DynamicSharedInformerFactory, synced map[string]cache.InformerSynced) error {
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
	synced["observatory pod"] = pods.HasSynced
	return nil
}

// watchDevices sets up the informers of the devices, for their retry annotation, their
// joining and leaving, and their summary (the inventory's), and of the other kinds the
// inventory counts: the summary of their status keeps the INDI properties the worker writes
// into it out of memory.
func (r *observatoryRun) watchDevices(factory dynamicinformer.DynamicSharedInformerFactory, synced map[string]cache.InformerSynced) error {
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
	return nil
}

// watchReservations sets up the informers of the Reservations and of their parents, indexed
// so that a parent finds its children (observatory_reservations.go).
func (r *observatoryRun) watchReservations(factory dynamicinformer.DynamicSharedInformerFactory, synced map[string]cache.InformerSynced) error {
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
			UpdateFunc: r.observatoryUpdated, DeleteFunc: r.parentDeleted(r.observatoryEnding)}},
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
			if err := s.inf.AddIndexers(cache.Indexers{s.index: specIndex(s.parent, true)}); err != nil {
				return err
			}
		}
		if _, err := s.inf.AddEventHandler(s.handler); err != nil {
			return err
		}
		synced[string(s.kind)] = s.inf.HasSynced
	}
	if err := r.reservations.AddIndexers(cache.Indexers{byHolder: specIndex("holder", false)}); err != nil {
		return err
	}
	return r.indexServers()
}

// specIndex indexes an object by namespace/<spec.field>, or by <spec.field> alone when not
// inNamespace.
func specIndex(field string, inNamespace bool) cache.IndexFunc {
	return func(obj any) ([]string, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil, nil
		}
		v, _, _ := unstructured.NestedString(u.Object, "spec", field)
		if v == "" {
			return nil, nil
		}
		if inNamespace {
			v = u.GetNamespace() + "/" + v
		}
		return []string{v}, nil
	}
}
