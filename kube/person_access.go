// Who acts as a Person, in RBAC's words. A Person's spec.users and spec.groups name the
// Kubernetes users and groups that may book, change and cancel reservations in the Person's
// name; the API server's ValidatingAdmissionPolicy liken-reservation-holders (deploy/observatory)
// asks the authorizer whether the requester may act-as the Reservation's holder. So each
// Person has a ClusterRole granting act-as on itself alone, and a ClusterRoleBinding of it to
// the users and groups it names. Both are owned by the Person, so the garbage collector
// removes them with it even when no worker runs.
package kube

import (
	"crypto/sha256"
	"encoding/hex"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// VerbActAs is the verb a user needs on a Person to book in its name. It is no verb the API
// server serves: only RBAC grants it and only the booking policy asks for it.
const VerbActAs = "act-as"

// personAccessPrefix begins the names of a Person's ClusterRole and ClusterRoleBinding.
const personAccessPrefix = "liken-person-"

// maxAccessName keeps the names within a DNS subdomain's length, as every other name.
const maxAccessName = 253

// PersonAccessName is the name of a Person's ClusterRole and of its ClusterRoleBinding:
// liken-person-<person>. A Person's name may be 253 characters, so a name that would be
// longer is cut and ends in a hash of the whole Person's name, which keeps it unique.
func PersonAccessName(person string) string {
	name := personAccessPrefix + person
	if len(name) <= maxAccessName {
		return name
	}
	sum := sha256.Sum256([]byte(person))
	suffix := "-" + hex.EncodeToString(sum[:])[:16]
	return cut(name, maxAccessName-len(suffix)) + suffix
}

// PersonRole is the ClusterRole that grants act-as on the Person p and nothing else.
func PersonRole(p *peoplev1.Person) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: personAccessMeta(p),
		Rules: []rbacv1.PolicyRule{{
			APIGroups:     []string{peoplev1.GroupName},
			Resources:     []string{peoplev1.PersonResource.Resource},
			ResourceNames: []string{p.Name},
			Verbs:         []string{VerbActAs},
		}},
	}
}

// PersonRoleBinding binds PersonRole to the users and groups p names, in the Person's order,
// or is nil when it names none: a binding without subjects grants nothing, so there is none.
func PersonRoleBinding(p *peoplev1.Person) *rbacv1.ClusterRoleBinding {
	subjects := subjectsOf(p.Spec.Users, p.Spec.Groups)
	if len(subjects) == 0 {
		return nil
	}
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: personAccessMeta(p),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: PersonAccessName(p.Name)},
		Subjects:   subjects,
	}
}

// subjectsOf are RBAC's subjects for a Person's users and groups, in that order.
func subjectsOf(users, groups []string) []rbacv1.Subject {
	var out []rbacv1.Subject
	for _, u := range users {
		out = append(out, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: u})
	}
	for _, g := range groups {
		out = append(out, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: g})
	}
	return out
}

// personAccessMeta is what the role and the binding share: the name, the people side's
// managed-by label, the Person's name (an annotation: a label value holds only 63 characters)
// and the Person as controller. No blockOwnerDeletion: the runner may not write
// people/finalizers, and nothing needs to wait for these objects.
func personAccessMeta(p *peoplev1.Person) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        PersonAccessName(p.Name),
		Labels:      map[string]string{LabelManagedBy: PeopleComponent},
		Annotations: map[string]string{AnnotationPerson: p.Name},
		OwnerReferences: []metav1.OwnerReference{{
			APIVersion:         peoplev1.SchemeGroupVersion.String(),
			Kind:               peoplev1.PersonKind.Kind,
			Name:               p.Name,
			UID:                p.UID,
			Controller:         ptr.To(true),
			BlockOwnerDeletion: ptr.To(false),
		}},
	}
}
