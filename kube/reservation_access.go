// The holder's way in to a Ready reservation's INDI servers. The servers answer only inside
// the cluster and INDI has no authentication, so the holder reaches them through the API
// server: `kubectl port-forward pod/<server pod> 7624`, which Kubernetes authorizes. While
// the reservation is Ready, a Role lets the users and groups its holder's Person names read
// and port-forward exactly the telescope's server pod and its site's, and a RoleBinding gives
// it to them; both are owned by the Reservation and go when it ends (docs/booking.md).
package kube

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// ReservationAccess names one reservation's way in.
type ReservationAccess struct {
	Namespace, Reservation string
	UID                    types.UID
	// Pods are the server pods the holder may reach: the telescope's, then the site's.
	Pods []string
	// Users and Groups are the holder's Person's.
	Users, Groups []string
}

// ReasonNoWayIn is the Warning Event's reason when a reservation's way in cannot be written.
const ReasonNoWayIn = "NoWayIn"

// ReservationAccessName is the name of a reservation's Role and RoleBinding.
func ReservationAccessName(reservation string) string { return "liken-reservation-" + reservation }

// AccessPods are the server pods of a reservation's telescope and its site.
func AccessPods(telescope, observatory string) []string {
	return []string{
		ServerPodName(ServerName(obsv1.KindTelescope, telescope)),
		ServerPodName(ServerName(obsv1.KindObservatory, observatory)),
	}
}

// ReservationAccessRole lets its subjects get and port-forward the reservation's server pods,
// and nothing else.
func ReservationAccessRole(a ReservationAccess) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: accessMeta(a),
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: a.Pods, Verbs: []string{"get"}},
			{APIGroups: []string{""}, Resources: []string{"pods/portforward"}, ResourceNames: a.Pods, Verbs: []string{"create"}},
		},
	}
}

// ReservationAccessBinding gives the Role to the holder's users and groups; nil when the
// Person names none (nobody but administrators gets in).
func ReservationAccessBinding(a ReservationAccess) *rbacv1.RoleBinding {
	subjects := subjectsOf(a.Users, a.Groups)
	if len(subjects) == 0 {
		return nil
	}
	return &rbacv1.RoleBinding{
		ObjectMeta: accessMeta(a),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ReservationAccessName(a.Reservation)},
		Subjects:   subjects,
	}
}

func accessMeta(a ReservationAccess) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name: ReservationAccessName(a.Reservation), Namespace: a.Namespace,
		Labels: map[string]string{LabelManagedBy: ObservatoryComponent},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion: obsv1.SchemeGroupVersion.String(), Kind: string(obsv1.KindReservation), Name: a.Reservation, UID: a.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false),
		}},
	}
}
