// The holder's way in while a reservation is Ready (kube/reservation_access.go): GrantAccess
// writes the Role and RoleBinding that let the users and groups of the holder's Person
// port-forward the telescope's and the site's server pods; RevokeAccess removes them as the
// reservation ends. Both are idempotent; the Reservation owns the objects, so the garbage
// collector removes them too when it is deleted with no worker running.
package observatory

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// AccessGrant is whose way in GrantAccess writes.
type AccessGrant struct {
	Ref                    ReservationRef
	UID                    string
	Holder                 string
	Telescope, Observatory string
}

// AccessGranted says who got in, for the activity's summary and the Ready Event.
type AccessGranted struct {
	// Subjects are the users and groups, in words; empty when the holder is no Person that
	// names any.
	Subjects string `json:",omitempty"`
}

// GrantAccess lets the holder's Person's users and groups reach the reservation's servers.
func (a *Activities) GrantAccess(ctx context.Context, in AccessGrant) (AccessGranted, error) {
	acc := kube.ReservationAccess{Namespace: in.Ref.Namespace, Reservation: in.Ref.Name, UID: types.UID(in.UID),
		Pods: kube.AccessPods(in.Telescope, in.Observatory)}
	p, err := a.Dynamic.Resource(peoplev1.PersonResource).Get(ctx, in.Holder, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		logFor(ctx).Info("the holder is no Person: nobody but administrators reaches the servers", "holder", in.Holder)
	case err != nil:
		return AccessGranted{}, fmt.Errorf("read the Person %s: %w", in.Holder, err)
	default:
		acc.Users, _, _ = unstructured.NestedStringSlice(p.Object, "spec", "users")
		acc.Groups, _, _ = unstructured.NestedStringSlice(p.Object, "spec", "groups")
	}
	roles, bindings := a.Kube.RbacV1().Roles(acc.Namespace), a.Kube.RbacV1().RoleBindings(acc.Namespace)
	role, update, create := kube.ReservationAccessRole(acc), metav1.UpdateOptions{FieldManager: observatoryFieldManager}, metav1.CreateOptions{FieldManager: observatoryFieldManager}
	err = writeOrCreate("Role", role.Name,
		func() error { _, err := roles.Update(ctx, role, update); return err },
		func() error { _, err := roles.Create(ctx, role, create); return err })
	if err != nil {
		return AccessGranted{}, err
	}
	b := kube.ReservationAccessBinding(acc)
	if b == nil {
		return AccessGranted{}, a.deleteAccessBinding(ctx, acc.Namespace, acc.Reservation)
	}
	err = writeOrCreate("RoleBinding", b.Name,
		func() error { _, err := bindings.Update(ctx, b, update); return err },
		func() error { _, err := bindings.Create(ctx, b, create); return err })
	return AccessGranted{Subjects: subjectWords(acc)}, err
}

// writeOrCreate updates an object the runner names, and creates it when it is missing.
func writeOrCreate(kind, name string, update, create func() error) error {
	err := update()
	if apierrors.IsNotFound(err) {
		if err = create(); apierrors.IsAlreadyExists(err) {
			err = update()
		}
	}
	if err != nil {
		return fmt.Errorf("write the %s %s: %w", kind, name, err)
	}
	return nil
}

// RevokeAccess removes the holder's way in; what is gone already is fine.
func (a *Activities) RevokeAccess(ctx context.Context, ref ReservationRef) error {
	if err := a.deleteAccessBinding(ctx, ref.Namespace, ref.Name); err != nil {
		return err
	}
	err := a.Kube.RbacV1().Roles(ref.Namespace).Delete(ctx, kube.ReservationAccessName(ref.Name), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete the Role %s: %w", kube.ReservationAccessName(ref.Name), err)
	}
	return nil
}

func (a *Activities) deleteAccessBinding(ctx context.Context, ns, reservation string) error {
	err := a.Kube.RbacV1().RoleBindings(ns).Delete(ctx, kube.ReservationAccessName(reservation), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete the RoleBinding %s: %w", kube.ReservationAccessName(reservation), err)
	}
	return nil
}

// subjectWords names who got in: "user ada@example.org, group astro-club".
func subjectWords(a kube.ReservationAccess) string {
	var words []string
	for _, u := range a.Users {
		words = append(words, "user "+u)
	}
	for _, g := range a.Groups {
		words = append(words, "group "+g)
	}
	return strings.Join(words, ", ")
}
