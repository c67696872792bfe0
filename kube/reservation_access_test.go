// A Ready reservation's way in: the Role reaches exactly the two server pods, the binding names
// the holder's users and groups, and there is no binding when the Person names no one.
package kube

import (
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
)

func TestTheHoldersWayInReachesItsTwoServersOnly(t *testing.T) {
	a := ReservationAccess{Namespace: "observatory", Reservation: "tonight", UID: "u1", Pods: AccessPods("east", "lab"),
		Users: []string{"ada@example.org"}, Groups: []string{"astro-club"}}
	require.Equal(t, []string{"east-telescope", "lab-observatory-0"}, a.Pods)
	role := ReservationAccessRole(a)
	require.Equal(t, "liken-reservation-tonight", role.Name)
	require.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: a.Pods, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"pods/portforward"}, ResourceNames: a.Pods, Verbs: []string{"create"}},
	}, role.Rules)
	require.Equal(t, "tonight", role.OwnerReferences[0].Name, "the Reservation owns it")

	b := ReservationAccessBinding(a)
	require.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name}, b.RoleRef)
	require.Equal(t, []rbacv1.Subject{
		{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "ada@example.org"},
		{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "astro-club"},
	}, b.Subjects)

	a.Users, a.Groups = nil, nil
	require.Nil(t, ReservationAccessBinding(a), "a Person that names no one lets no one in")
}
