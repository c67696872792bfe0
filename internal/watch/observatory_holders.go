// A Ready reservation's holder reaches its servers through a RoleBinding to the users and
// groups their Person names (docs/booking.md). When a Person is created, deleted, or changes
// whom it names, the Ready reservations it holds are told, so each keeps its way in to match
// at once rather than at its next run. A cluster without the people side has no Persons and
// nothing here to watch.
package watch

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// whyHolder: the Person who holds the Ready reservation was created or deleted, or changed
// the users and groups it names.
const whyHolder = "holder"

// watchHolders sets up the informer of the Persons. It watches nothing when the API server
// serves no Persons.
func (r *observatoryRun) watchHolders(ctx context.Context, factory dynamicinformer.DynamicSharedInformerFactory, synced map[string]cache.InformerSynced) error {
	_, err := r.cfg.Dynamic.Resource(peoplev1.PersonResource).List(ctx, metav1.ListOptions{Limit: 1})
	switch {
	case apierrors.IsNotFound(err):
		r.cfg.Log.Info("no Persons are served (the people side is not installed): a holder's way in is written only as each reservation becomes Ready")
		return nil
	case apierrors.IsForbidden(err):
		r.cfg.Log.Warn("the watcher may not list Persons (apply deploy/observatory's RBAC): a holder's way in is written only as each reservation becomes Ready", "err", err)
		return nil
	}
	people := factory.ForResource(peoplev1.PersonResource).Informer()
	if err := people.SetTransform(trimToWhom); err != nil {
		return err
	}
	_, err = people.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			if !initial {
				r.heldBy(obj)
			}
		},
		UpdateFunc: func(old, cur any) {
			if !sameWhom(old, cur) {
				r.heldBy(cur)
			}
		},
		DeleteFunc: func(obj any) { r.heldBy(obj) },
	})
	synced["Person"] = people.HasSynced
	return err
}

// heldBy queues the Ready Reservations the Person holds.
func (r *observatoryRun) heldBy(obj any) {
	if p, ok := deletedObject[*unstructured.Unstructured](obj); ok {
		r.reservationsWhere(byHolder, p.GetName(), whyHolder, isReady)
	}
}

// trimToWhom keeps of a Person its metadata and whom it names: its thumbnail and the rest of
// its spec and status stay out of memory.
func trimToWhom(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	spec := map[string]any{}
	for _, f := range []string{"users", "groups"} {
		if v, ok, _ := unstructured.NestedSlice(u.Object, "spec", f); ok {
			spec[f] = v
		}
	}
	if _, err := trimToMetadata(obj); err != nil {
		return obj, err
	}
	u.Object["spec"] = spec
	return u, nil
}

// whom are the users and groups a Person names.
func whom(u *unstructured.Unstructured) (users, groups []string) {
	users, _, _ = unstructured.NestedStringSlice(u.Object, "spec", "users")
	groups, _, _ = unstructured.NestedStringSlice(u.Object, "spec", "groups")
	return users, groups
}

// sameWhom tells whether two versions of a Person name the same users and groups.
func sameWhom(old, cur any) bool {
	o, c, ok := updatedObjects[*unstructured.Unstructured](old, cur)
	if !ok {
		return false
	}
	ou, og := whom(o)
	cu, cg := whom(c)
	return slices.Equal(ou, cu) && slices.Equal(og, cg)
}
