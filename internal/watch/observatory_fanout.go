// Which Reservations a change on the observatory side is for: those of one Telescope, of
// every Telescope of one Observatory, or of a whole namespace (one site), found through the
// informers' indexes, never by a scan; those at rest are left out.
package watch

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// telescopeReservations queues each Reservation of the Telescope with why, but those at rest.
func (r *observatoryRun) telescopeReservations(tel *unstructured.Unstructured, why string) {
	r.childrenOf(r.reservations, byTelescope, tel, func(res *unstructured.Unstructured) {
		if !rests(res) {
			r.q.add(cache.MetaObjectToName(res), why)
		}
	})
}

// siteReservations queues each Reservation of each Telescope of the Observatory with why.
func (r *observatoryRun) siteReservations(obs *unstructured.Unstructured, why string) {
	r.childrenOf(r.telescopes, byObservatory, obs, func(tel *unstructured.Unstructured) {
		r.telescopeReservations(tel, why)
	})
}

// namespaceReservations queues each Reservation of a namespace (one site) with why, but
// those at rest.
func (r *observatoryRun) namespaceReservations(namespace, why string) {
	r.reservationsWhere(cache.NamespaceIndex, namespace, why, func(res *unstructured.Unstructured) bool { return !rests(res) })
}

// readyReservations queues the Ready Reservations of a namespace: those whose triggers run.
func (r *observatoryRun) readyReservations(namespace, why string) {
	r.reservationsWhere(cache.NamespaceIndex, namespace, why, isReady)
}

// isReady says whether a Reservation is Ready, as the informer has it.
func isReady(res *unstructured.Unstructured) bool {
	phase, _, _ := unstructured.NestedString(res.Object, "status", "phase")
	return phase == string(obsv1.ReservationReady)
}

// otherScheduledReservations queues the other Reservations whose booking is still checked
// and counts the changed one: its telescope's, for an overlap, and its holder's at the site,
// for their shares of a night and a week.
func (r *observatoryRun) otherScheduledReservations(changed *unstructured.Unstructured, why string) {
	tel, _, _ := unstructured.NestedString(changed.Object, "spec", "telescope")
	holder, _, _ := unstructured.NestedString(changed.Object, "spec", "holder")
	other := func(res *unstructured.Unstructured) bool {
		return res.GetNamespace() == changed.GetNamespace() && res.GetName() != changed.GetName() && bookingChecked(res)
	}
	r.reservationsWhere(byTelescope, changed.GetNamespace()+"/"+tel, why, other)
	r.reservationsWhere(byHolder, holder, why, other)
}

// scheduledReservations queues the Reservations of a namespace whose booking is still checked.
func (r *observatoryRun) scheduledReservations(namespace, why string) {
	r.reservationsWhere(cache.NamespaceIndex, namespace, why, bookingChecked)
}

// bookingChecked says whether a Reservation's booking is still checked, as the informer has
// it: it has not taken its telescope (no phase yet, or Scheduled) and is not being deleted.
func bookingChecked(res *unstructured.Unstructured) bool {
	phase, _, _ := unstructured.NestedString(res.Object, "status", "phase")
	return res.GetDeletionTimestamp() == nil && (phase == "" || phase == string(obsv1.ReservationScheduled))
}

// reservationsWhere queues the Reservations under key in the index that keep says.
func (r *observatoryRun) reservationsWhere(index, key, why string, keep func(*unstructured.Unstructured) bool) {
	objs, err := r.reservations.GetIndexer().ByIndex(index, key)
	if err != nil {
		r.cfg.Log.Error("read an informer's index", "index", index, "err", err)
		return
	}
	for _, obj := range objs {
		if res, ok := obj.(*unstructured.Unstructured); ok && keep(res) {
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

// byServer indexes Telescopes and Observatories by namespace/<their INDI server pod's name>.
const byServer = "server"

// indexServers adds the byServer index to the Telescope and Observatory informers.
func (r *observatoryRun) indexServers() error {
	for kind, inf := range map[obsv1.Kind]cache.SharedIndexInformer{obsv1.KindTelescope: r.telescopes, obsv1.KindObservatory: r.observatories} {
		if err := inf.AddIndexers(cache.Indexers{byServer: func(obj any) ([]string, error) {
			u, ok := obj.(*unstructured.Unstructured)
			if !ok {
				return nil, nil
			}
			return []string{u.GetNamespace() + "/" + kube.ServerName(kind, u.GetName())}, nil
		}}); err != nil {
			return err
		}
	}
	return nil
}

// indexed are the objects of inf under key in the byServer index.
func (r *observatoryRun) indexed(inf cache.SharedIndexInformer, key string) []*unstructured.Unstructured {
	objs, err := inf.GetIndexer().ByIndex(byServer, key)
	if err != nil {
		r.cfg.Log.Error("read an informer's index", "index", byServer, "err", err)
		return nil
	}
	var out []*unstructured.Unstructured
	for _, obj := range objs {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			out = append(out, u)
		}
	}
	return out
}
