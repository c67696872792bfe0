// Keeping a Person's ClusterRole and ClusterRoleBinding (kube/person_access.go) as its spec
// names them, during the quick pass: who may act as the Person is in force once the pass after
// the change has run. The role stays while the Person does; the binding goes when the Person
// names no user and no group. When the Person goes, the garbage collector removes both (the
// Person owns them), so nothing here runs for a Person that is gone.
//
// RBAC's escalation check lets the worker grant only what it holds, so deploy/people gives it
// act-as on every Person.
package people

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// syncAccess writes the Person's role and binding where they differ from what it names.
func (a *Activities) syncAccess(ctx context.Context, p *peoplev1.Person) error {
	rbac := a.Kube.RbacV1()
	err := activities.KeepObject(ctx, rbac.ClusterRoles(), kube.PersonRole(p), adopting[*rbacv1.ClusterRole]("ClusterRole"), kube.SettleClusterRole)
	if err != nil {
		return err
	}
	if b := kube.PersonRoleBinding(p); b != nil {
		return activities.KeepObject(ctx, rbac.ClusterRoleBindings(), b, adopting[*rbacv1.ClusterRoleBinding]("ClusterRoleBinding"), kube.SettleClusterRoleBinding)
	}
	return activities.DeleteOurs(ctx, rbac.ClusterRoleBindings(), "ClusterRoleBinding", fieldManager, kube.PersonAccessName(p.Name))
}

// adopting is how the people side keeps its cluster-scoped RBAC objects: one of the name that
// it did not make is refused, not overwritten.
func adopting[T metav1.Object](kind string) activities.Adopting[T] {
	return activities.Adopting[T]{Kind: kind, Manager: fieldManager, NotOurs: func(kind, _, name string) error {
		return fmt.Errorf("the %s %s was not made by the runner (its label %s is not %s): delete it, and the runner makes its own",
			kind, name, kube.LabelManagedBy, fieldManager)
	}}
}
