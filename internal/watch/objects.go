// What both sides of the watcher do with the objects their informers hand them: take the
// object out of a delete the informer saw only in a relist, take both objects of an update,
// judge whether an update is worth a signal, and remember a deleted object's UID and
// generation until the signal that tells of its delete lands, since the cache has forgotten
// them by the time the signal is built.
package watch

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// deletedObject is the object of a delete: an informer that missed the delete event hands a
// DeletedFinalStateUnknown holding the object as it last knew it.
func deletedObject[T any](obj any) (T, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	v, ok := obj.(T)
	return v, ok
}

// updatedObjects are the old and new objects of an update; ok is false when either is not a T.
func updatedObjects[T any](oldObj, newObj any) (o, n T, ok bool) {
	o, ok1 := oldObj.(T)
	n, ok2 := newObj.(T)
	return o, n, ok1 && ok2
}

// specUpdate is the rule both sides share: a resync, or a change of UID, generation (the
// spec), the one annotation that asks for a pass, or whether a delete is under way.
func specUpdate(o, n metav1.Object, annotation string) string {
	switch {
	case o.GetResourceVersion() == n.GetResourceVersion():
		return whyResync
	case o.GetUID() != n.GetUID(),
		o.GetGeneration() != n.GetGeneration(),
		o.GetAnnotations()[annotation] != n.GetAnnotations()[annotation],
		(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil):
		return whyUpdated
	}
	return ""
}

// tombstone is what a deleted object's signal says of it.
type tombstone struct {
	UID        string
	Generation int64
}

// tombstones hold the deleted objects of one side, by key, until their signals land.
type tombstones[K comparable] struct {
	mu sync.Mutex
	m  map[K]tombstone
}

// bury remembers a deleted object.
func (t *tombstones[K]) bury(key K, u metav1.Object) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[K]tombstone{}
	}
	t.m[key] = tombstone{UID: string(u.GetUID()), Generation: u.GetGeneration()}
}

// of is the deleted object of key; zero when none was seen (deleted before the first list).
func (t *tombstones[K]) of(key K) tombstone {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[key]
}

// forget drops key's tombstone: the object was created again.
func (t *tombstones[K]) forget(key K) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, key)
}

// landed drops key's tombstone once a signal told of that delete (the same UID), and keeps a
// newer one.
func (t *tombstones[K]) landed(key K, uid string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if g, ok := t.m[key]; ok && g.UID == uid {
		delete(t.m, key)
	}
}
