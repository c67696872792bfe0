// The devices and pods of the observatory side: a device created, deleted, edited (its
// parent may have changed) or whose delete began may join or leave the Ready reservation of
// its namespace, so it signals the reservations there that do not rest; and a deleted pod of
// the runner's is created again by the Ready reservation whose server it belongs to, so it
// signals the reservations of that server's Telescope or Observatory.
package watch

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/kube"
)

// deviceUpdated queues a device's namespace's Reservations when its retry annotation is set
// or changed, or when it may join or leave a running server: its spec changed (a parent
// edit) or its delete began. Any other update of a device (a status write) is nothing to the
// watcher.
func (r *observatoryRun) deviceUpdated(oldObj, newObj any) {
	o, n, ok := updatedObjects[*unstructured.Unstructured](oldObj, newObj)
	if !ok {
		return
	}
	switch {
	case retryAsked(o, n):
		r.namespaceReservations(n.GetNamespace(), whyRetry)
	case o.GetGeneration() != n.GetGeneration(), o.GetDeletionTimestamp() == nil && n.GetDeletionTimestamp() != nil:
		r.namespaceReservations(n.GetNamespace(), whyDevice)
	default:
		r.Stats.Ignored.Add(1)
	}
}

// deviceAdded queues a new device's namespace's Reservations: it may join one. The
// informer's first list is no news.
func (r *observatoryRun) deviceAdded(obj any, initial bool) {
	if u, ok := obj.(*unstructured.Unstructured); ok && !initial {
		r.namespaceReservations(u.GetNamespace(), whyDevice)
	}
}

// deviceGone queues a deleted device's namespace's Reservations: one deleted without a
// finalizer may have left a running server.
func (r *observatoryRun) deviceGone(dev *unstructured.Unstructured) {
	r.namespaceReservations(dev.GetNamespace(), whyDevice)
}

// podGone queues the Reservations a deleted pod matters to, so the Ready one creates it
// again: those of the Telescope whose server it belongs to (its LabelServer), or those of
// every Telescope of the Observatory whose server it is. A Ready reservation heals only its
// own servers, so a pod of one telescope is nothing to its neighbours: a site of twenty
// telescopes tearing down sixty pods signals sixty times, not twelve hundred. A pod whose
// server is not known (a Job's, or one whose Telescope is gone) signals its namespace's.
func (r *observatoryRun) podGone(pod *unstructured.Unstructured) {
	if server := pod.GetLabels()[kube.LabelServer]; server != "" {
		key := pod.GetNamespace() + "/" + server
		if tels := r.indexed(r.telescopes, key); len(tels) > 0 {
			for _, tel := range tels {
				r.telescopeReservations(tel, whyPod)
			}
			return
		}
		if sites := r.indexed(r.observatories, key); len(sites) > 0 {
			for _, obs := range sites {
				r.siteReservations(obs, whyPod)
			}
			return
		}
	}
	r.namespaceReservations(pod.GetNamespace(), whyPod)
}

// trimToMetadata keeps an object's metadata (no managed fields): all a pod's delete and a
// device's retry annotation need.
func trimToMetadata(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.SetManagedFields(nil)
		for k := range u.Object {
			if k != "metadata" && k != "apiVersion" && k != "kind" {
				delete(u.Object, k)
			}
		}
	}
	return obj, nil
}
