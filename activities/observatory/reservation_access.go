// The holder's way in while a reservation is Ready (kube/reservation_access.go): GrantAccess
// writes the Role and RoleBinding that let the users and groups of the holder's Person
// port-forward the telescope's and the site's server pods; RevokeAccess removes them as the
// reservation ends. Both are idempotent; the Reservation owns the objects, so the garbage
// collector removes them too when it is deleted with no worker running.
package observatory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
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

// GrantAccess lets the holder's Person's users and groups reach the reservation's servers. When
// it cannot, a Warning Event on the Reservation says why.
func (a *Activities) GrantAccess(ctx context.Context, in AccessGrant) (AccessGranted, error) {
	out, err := a.grantAccess(ctx, in)
	if err != nil {
		why := err.Error()
		if app := (*temporal.ApplicationError)(nil); errors.As(err, &app) {
			why = strings.TrimPrefix(app.Message(), kube.FailedPrefix) // a step failure's words, without its type
		}
		a.postObsEvent(ctx, kube.ResourceID{Kind: obsv1.KindReservation, Namespace: in.Ref.Namespace, Name: in.Ref.Name, UID: types.UID(in.UID)},
			kube.Event{Type: corev1.EventTypeWarning, Reason: kube.ReasonNoWayIn, Message: "The holder " + in.Holder + " cannot reach the servers: " + why})
	}
	return out, err
}

func (a *Activities) grantAccess(ctx context.Context, in AccessGrant) (AccessGranted, error) {
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
	rbac := a.Kube.RbacV1()
	err = activities.KeepObject(ctx, rbac.Roles(acc.Namespace), kube.ReservationAccessRole(acc), adopting[*rbacv1.Role]("Role"), kube.SettleRole)
	if err != nil {
		return AccessGranted{}, err
	}
	b, bindings := kube.ReservationAccessBinding(acc), rbac.RoleBindings(acc.Namespace)
	if b == nil {
		return AccessGranted{}, activities.DeleteOurs(ctx, bindings, "RoleBinding", observatoryFieldManager, kube.ReservationAccessName(acc.Reservation))
	}
	err = activities.KeepObject(ctx, bindings, b, adopting[*rbacv1.RoleBinding]("RoleBinding"), kube.SettleRoleBinding)
	return AccessGranted{Subjects: subjectWords(acc)}, err
}

// adopting is how the runner keeps a reservation's Role and RoleBinding; one of the name that
// it did not make is refused.
func adopting[T metav1.Object](kind string) activities.Adopting[T] {
	return activities.Adopting[T]{Kind: kind, Manager: observatoryFieldManager, NotOurs: errNotOurs}
}

// RevokeAccess removes the holder's way in; what is gone already is fine.
func (a *Activities) RevokeAccess(ctx context.Context, ref ReservationRef) error {
	rbac, name := a.Kube.RbacV1(), kube.ReservationAccessName(ref.Name)
	if err := activities.DeleteOurs(ctx, rbac.RoleBindings(ref.Namespace), "RoleBinding", observatoryFieldManager, name); err != nil {
		return err
	}
	return activities.DeleteOurs(ctx, rbac.Roles(ref.Namespace), "Role", observatoryFieldManager, name)
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
