// The Reservations, Telescopes and Observatories of the observatory side: which of their
// changes is worth a signal, and to which Reservations (a parent's delete reaches its
// children through the informers' indexes), and the signal itself, built from what the
// caches hold when it is sent, not from what was queued.
package watch

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func (r *observatoryRun) reservationAdded(obj any, initial bool) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return
	}
	key := cache.MetaObjectToName(u)
	r.gone.forget(key)
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
	o, n, ok := updatedObjects[*unstructured.Unstructured](oldObj, newObj)
	if !ok {
		return
	}
	if why := specUpdate(o, n, kube.AnnotationRetry); why != "" && (why != whyResync || !rests(n)) {
		r.q.add(cache.MetaObjectToName(n), why)
		if why == whyUpdated {
			r.otherScheduledReservations(n, whyBooking)
		}
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
	u, ok := deletedObject[*unstructured.Unstructured](obj)
	if !ok {
		return
	}
	if rests(u) {
		r.Stats.Ignored.Add(1) // nothing to undo
		return
	}
	key := cache.MetaObjectToName(u)
	r.gone.bury(key, u)
	r.q.add(key, whyDeleted)
	r.otherScheduledReservations(u, whyBooking)
}

// parentUpdated calls ending when a Telescope's or Observatory's delete begins, and queues
// its namespace's Reservations when its retry annotation is set or changed. The retry goes
// first, so that when one update does both the Reservations it ends hear of the delete.
func (r *observatoryRun) parentUpdated(ending func(*unstructured.Unstructured)) func(oldObj, newObj any) {
	return func(oldObj, newObj any) {
		o, n, ok := updatedObjects[*unstructured.Unstructured](oldObj, newObj)
		if !ok {
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

// observatoryUpdated does what parentUpdated does, and tells the Ready Reservations of the
// namespace of a change of the Observatory's conditions (the sky's, the site guard's): their
// triggers may name them. Only a Ready reservation runs triggers; a signal to one that has
// just ended would start its workflow again. A change of its spec (the booking rules, the
// Sun's limit, the place) has the waiting bookings checked again, so they say at once what
// the new rules say of them.
func (r *observatoryRun) observatoryUpdated(oldObj, newObj any) {
	r.parentUpdated(r.observatoryEnding)(oldObj, newObj)
	o, n, ok := updatedObjects[*unstructured.Unstructured](oldObj, newObj)
	if !ok {
		return
	}
	if summary(o) != summary(n) {
		r.readyReservations(n.GetNamespace(), contract.WhyCondition)
	}
	if o.GetGeneration() != n.GetGeneration() && n.GetDeletionTimestamp() == nil {
		r.scheduledReservations(n.GetNamespace(), whyBooking)
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
		if u, ok := deletedObject[*unstructured.Unstructured](obj); ok {
			ending(u)
		}
	}
}

// telescopeEnding queues each Reservation of the Telescope.
func (r *observatoryRun) telescopeEnding(tel *unstructured.Unstructured) {
	r.telescopeReservations(tel, whyTelescope)
}

// observatoryEnding queues each Reservation of each Telescope of the Observatory.
func (r *observatoryRun) observatoryEnding(obs *unstructured.Unstructured) {
	r.siteReservations(obs, whyObservatory)
}

// signal sends one Reservation's signal in the call's context; the queue retries it.
func (r *observatoryRun) signal(call context.Context, key cache.ObjectName, why string) error {
	change := r.changeFor(key, why)
	opts := contract.ReservationStartOptions(r.cfg.TaskQueue, key.Namespace, key.Name, r.spec(key))
	_, err := r.cfg.Temporal.SignalWithStartWorkflow(call, opts.ID, contract.ReservationChanged, change, opts,
		contract.ReservationWorkflow, contract.ReservationInput{Namespace: key.Namespace, Name: key.Name})
	if err != nil {
		return err
	}
	if change.Deleted {
		r.gone.landed(key, change.UID)
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
func (r *observatoryRun) changeFor(key cache.ObjectName, why string) contract.ReservationChange {
	res := r.get(r.reservations, key)
	if res == nil {
		g := r.gone.of(key)
		return contract.ReservationChange{UID: g.UID, Generation: g.Generation, Deleted: true, Why: whyDeleted}
	}
	if why == whyDeleted {
		why = whyAdded // deleted and created again before we looked
	}
	c := contract.ReservationChange{
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
