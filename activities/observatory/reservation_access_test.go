// The holder's way in, on the real API server: GrantAccess writes the Role and RoleBinding,
// brings the binding to the Person's users when they change and removes it when there are
// none, refuses a Role of the name that the runner did not make (with a Warning Event that says
// so), and RevokeAccess removes both, twice as well as once.
package observatory

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

func TestTheHoldersWayInFollowsThePersonAndIsRemovedAtTheEnd(t *testing.T) {
	ctx, a := testContext(t), newActivities()
	ns := observatoryNamespace(t, "access")
	person := accessPerson(t, "access-ada", "ada@example.org")
	r := createObject(t, obsv1.KindReservation, ns, &obsv1.Reservation{ObjectMeta: metav1.ObjectMeta{Name: "tonight"},
		Spec: obsv1.ReservationSpec{Telescope: "east", Holder: person}})
	grant := AccessGrant{Ref: ReservationRef{Namespace: ns, Name: "tonight"}, UID: string(r.GetUID()),
		Holder: person, Telescope: "east", Observatory: "lab"}
	rbac, name := env.Kube.RbacV1(), kube.ReservationAccessName("tonight")
	subjects := func() []string {
		b, err := rbac.RoleBindings(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		require.NoError(t, err)
		var names []string
		for _, s := range b.Subjects {
			names = append(names, s.Name)
		}
		return names
	}

	got, err := a.GrantAccess(ctx, grant)
	require.NoError(t, err)
	assert.Equal(t, "user ada@example.org", got.Subjects)
	role, err := rbac.Roles(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"east-telescope", "lab-observatory-0"}, role.Rules[0].ResourceNames)
	assert.Equal(t, []string{"ada@example.org"}, subjects())

	setUsers(t, person, "ada@example.org", "lovelace@example.org")
	_, err = a.GrantAccess(ctx, grant)
	require.NoError(t, err)
	assert.Equal(t, []string{"ada@example.org", "lovelace@example.org"}, subjects(), "the binding follows the Person")
	setUsers(t, person)
	got, err = a.GrantAccess(ctx, grant)
	require.NoError(t, err)
	assert.Empty(t, got.Subjects)
	assert.Nil(t, subjects(), "a Person that names no one has no binding")

	require.NoError(t, a.RevokeAccess(ctx, grant.Ref))
	_, err = rbac.Roles(ns).Get(ctx, name, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the Role is gone: %v", err)
	require.NoError(t, a.RevokeAccess(ctx, grant.Ref), "what is gone already is fine")

	// A Role of the name that someone else made is neither overwritten nor deleted.
	_, err = rbac.Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = a.GrantAccess(ctx, grant)
	notOurs := "a Role named " + name + " exists in " + ns + " that the " + kube.ObservatoryComponent + " did not create; delete or rename it"
	require.ErrorContains(t, err, notOurs)
	events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + kube.ReasonNoWayIn})
	require.NoError(t, err)
	require.Len(t, events.Items, 1, "a Warning Event on the Reservation says why")
	assert.Equal(t, "The holder "+person+" cannot reach the servers: "+notOurs, events.Items[0].Message)
	assert.Equal(t, "tonight", events.Items[0].InvolvedObject.Name)
	require.NoError(t, a.RevokeAccess(ctx, grant.Ref))
	_, err = rbac.Roles(ns).Get(ctx, name, metav1.GetOptions{})
	assert.NoError(t, err, "someone else's Role stays")
}

// accessPerson creates a Person who names users, and deletes it when the test ends.
func accessPerson(t *testing.T, name string, users ...string) string {
	t.Helper()
	spec := map[string]any{"displayName": "Ada Lovelace"}
	if len(users) > 0 {
		spec["users"] = toAny(users)
	}
	p := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": peoplev1.SchemeGroupVersion.String(), "kind": "Person",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
	res := env.Dynamic.Resource(peoplev1.PersonResource)
	_, err := res.Create(context.Background(), p, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = res.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return name
}

// setUsers sets the Person's spec.users (none removes them).
func setUsers(t *testing.T, person string, users ...string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"users": toAny(users)}})
	require.NoError(t, err)
	_, err = env.Dynamic.Resource(peoplev1.PersonResource).Patch(context.Background(), person, types.MergePatchType, patch, metav1.PatchOptions{})
	require.NoError(t, err)
}

// toAny is users as JSON has them; nil (which a merge patch reads as a removal) for none.
func toAny(users []string) any {
	if len(users) == 0 {
		return nil
	}
	out := make([]any, len(users))
	for i, u := range users {
		out[i] = u
	}
	return out
}
