// Tables for who acts as a Person: the names of its ClusterRole and ClusterRoleBinding, the
// one rule the role grants, and the subjects the binding names. No server is needed;
// deploy/booking_test.go proves on a real API server that the booking policy honours them.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

func person(name string, users, groups []string) *peoplev1.Person {
	return &peoplev1.Person{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: "uid-of-person"},
		Spec:       peoplev1.PersonSpec{DisplayName: "Someone", Users: users, Groups: groups},
	}
}

func TestAPersonsAccessIsNamedAfterItAndALongNameEndsInAHashOfIt(t *testing.T) {
	long := strings.Repeat("a", 253)
	sum := sha256.Sum256([]byte(long))
	for _, tc := range []struct {
		person, want string
	}{
		{"ada", "liken-person-ada"},
		{"ada.lovelace", "liken-person-ada.lovelace"},
		{strings.Repeat("b", 240), "liken-person-" + strings.Repeat("b", 240)},
		{long, ("liken-person-" + long)[:236] + "-" + hex.EncodeToString(sum[:8])},
	} {
		name := PersonAccessName(tc.person)
		assert.Equal(t, tc.want, name, "person %.20s…", tc.person)
		assert.Empty(t, validation.IsDNS1123Subdomain(name), "the name %q is a DNS subdomain", name)
	}
	assert.NotEqual(t, PersonAccessName(long), PersonAccessName(long[:252]+"b"),
		"two long names that differ only past the cut")
}

func TestAPersonsRoleGrantsActAsOnThatPersonAloneAndThePersonOwnsIt(t *testing.T) {
	for _, tc := range []struct {
		name          string
		users, groups []string
	}{
		{"ada", []string{"ada@example.org"}, nil},
		{"bob", nil, nil}, // the role stays without subjects; only the binding goes
		{"club", nil, []string{"astro-club"}},
	} {
		r := PersonRole(person(tc.name, tc.users, tc.groups))
		assert.Equal(t, "liken-person-"+tc.name, r.Name)
		assert.Equal(t, []rbacv1.PolicyRule{{
			APIGroups: []string{"people.liken.sh"}, Resources: []string{"people"},
			ResourceNames: []string{tc.name}, Verbs: []string{"act-as"},
		}}, r.Rules)
		checkOwnedByThePerson(t, r.ObjectMeta, tc.name)
	}
}

func TestAPersonsBindingNamesItsUsersThenItsGroupsAndThereIsNoneWithoutThem(t *testing.T) {
	user := func(n string) rbacv1.Subject {
		return rbacv1.Subject{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: n}
	}
	group := func(n string) rbacv1.Subject {
		return rbacv1.Subject{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: n}
	}
	for _, tc := range []struct {
		about         string
		users, groups []string
		want          []rbacv1.Subject // nil: no binding
	}{
		{"no one", nil, nil, nil},
		{"empty lists", []string{}, []string{}, nil},
		{"one user", []string{"ada@example.org"}, nil, []rbacv1.Subject{user("ada@example.org")}},
		{"one group", nil, []string{"astro-club"}, []rbacv1.Subject{group("astro-club")}},
		{"users and groups, in the Person's order",
			[]string{"ada@example.org", "ada"}, []string{"astro-club", "analysts"},
			[]rbacv1.Subject{user("ada@example.org"), user("ada"), group("astro-club"), group("analysts")}},
	} {
		b := PersonRoleBinding(person("ada", tc.users, tc.groups))
		if tc.want == nil {
			assert.Nil(t, b, tc.about)
			continue
		}
		require.NotNil(t, b, tc.about)
		assert.Equal(t, "liken-person-ada", b.Name, tc.about)
		assert.Equal(t, rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "liken-person-ada"},
			b.RoleRef, tc.about)
		assert.Equal(t, tc.want, b.Subjects, tc.about)
		checkOwnedByThePerson(t, b.ObjectMeta, "ada")
	}
}

// checkOwnedByThePerson: the Person controls the object, without blocking its own deletion,
// and the object carries the people side's label and the Person's name.
func checkOwnedByThePerson(t *testing.T, m metav1.ObjectMeta, name string) {
	t.Helper()
	assert.Equal(t, []metav1.OwnerReference{{
		APIVersion: "people.liken.sh/v1alpha1", Kind: "Person", Name: name, UID: "uid-of-person",
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false),
	}}, m.OwnerReferences)
	assert.Equal(t, map[string]string{"app.kubernetes.io/managed-by": "people-operator"}, m.Labels)
	assert.Equal(t, map[string]string{"people.liken.sh/person": name}, m.Annotations)
	assert.Empty(t, m.Namespace, "cluster-scoped")
}
