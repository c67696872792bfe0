// Settling the RBAC objects the runner keeps: what is as wanted is left alone, a changed
// rule or subject is set back, what others added is kept, and a binding to another role is
// replaced rather than changed.
package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
)

func TestARoleAsWantedIsLeftAloneAndAChangedOneIsSetBackKeepingOthersLabels(t *testing.T) {
	a := ReservationAccess{Namespace: "observatory", Reservation: "tonight", UID: "u1", Pods: AccessPods("east", "lab"),
		Users: []string{"ada@example.org"}}
	want := ReservationAccessRole(a)
	cur := want.DeepCopy()
	changed, replace := SettleRole(cur, want)
	assert.False(t, changed, "as wanted")
	assert.False(t, replace)

	cur.Rules[0].Verbs = []string{"get", "delete"}
	cur.Labels["team"] = "astro"
	cur.OwnerReferences = nil
	changed, replace = SettleRole(cur, want)
	assert.True(t, changed)
	assert.False(t, replace)
	assert.Equal(t, want.Rules, cur.Rules)
	assert.Equal(t, want.OwnerReferences, cur.OwnerReferences)
	assert.Equal(t, "astro", cur.Labels["team"], "a label someone added stays")
	assert.Equal(t, ObservatoryComponent, cur.Labels[LabelManagedBy])
}

func TestAnAggregatedClusterRoleBecomesThePersonsPlainOne(t *testing.T) {
	want := PersonRole(person("ada", nil, nil))
	cur := want.DeepCopy()
	cur.AggregationRule = &rbacv1.AggregationRule{}
	changed, _ := SettleClusterRole(cur, want)
	assert.True(t, changed)
	assert.Nil(t, cur.AggregationRule)
}

func TestABindingsSubjectsAreSetBackAndOneToAnotherRoleIsReplaced(t *testing.T) {
	a := ReservationAccess{Namespace: "observatory", Reservation: "tonight", UID: "u1", Pods: AccessPods("east", "lab"),
		Users: []string{"ada@example.org"}}
	want := ReservationAccessBinding(a)
	cur := want.DeepCopy()
	cur.Subjects = append(cur.Subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob@example.org"})
	changed, replace := SettleRoleBinding(cur, want)
	assert.True(t, changed)
	assert.False(t, replace)
	assert.Equal(t, want.Subjects, cur.Subjects, "bob is no longer let in")

	cur.RoleRef.Name = "cluster-admin"
	_, replace = SettleRoleBinding(cur, want)
	assert.True(t, replace, "a roleRef cannot change")

	wantC := PersonRoleBinding(person("ada", []string{"ada@example.org"}, nil))
	require.NotNil(t, wantC)
	curC := wantC.DeepCopy()
	changed, replace = SettleClusterRoleBinding(curC, wantC)
	assert.False(t, changed)
	assert.False(t, replace)
}
