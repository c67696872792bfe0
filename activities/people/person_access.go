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
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// syncAccess writes the Person's role and binding where they differ from what it names.
func (a *Activities) syncAccess(ctx context.Context, p *peoplev1.Person) error {
	rbac := a.Kube.RbacV1()
	if err := upsert(ctx, rbac.ClusterRoles(), "ClusterRole", kube.PersonRole(p), settleRole); err != nil {
		return err
	}
	if b := kube.PersonRoleBinding(p); b != nil {
		return upsert(ctx, rbac.ClusterRoleBindings(), "ClusterRoleBinding", b, settleBinding)
	}
	return removeOurs(ctx, rbac.ClusterRoleBindings(), "ClusterRoleBinding", kube.PersonAccessName(p.Name))
}

// accessClient is what upsert needs of a typed client (ClusterRoles, ClusterRoleBindings).
type accessClient[T metav1.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// verdict is what settle makes of the object of the wanted name.
type verdict int

const (
	upToDate  verdict = iota
	updateIt          // settle brought cur up to date: write it
	replaceIt         // a field that cannot change differs: delete it and create it again
)

// upsertTries bounds the reads after a lost race (a conflict, a create that met an object):
// a Person's pass runs on one worker at a time, so a second try is already rare.
const upsertTries = 3

// upsert creates want, or brings the object of its name up to date through settle. An object
// of the name that the people side did not make is refused, not overwritten.
func upsert[T metav1.Object](ctx context.Context, c accessClient[T], kind string, want T, settle func(cur, want T) verdict) error {
	name := want.GetName()
	for range upsertTries {
		cur, err := c.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = c.Create(ctx, want, metav1.CreateOptions{FieldManager: fieldManager})
			if apierrors.IsAlreadyExists(err) {
				continue
			}
			return wrapAccess(err, "create", kind, name)
		}
		if err != nil {
			return wrapAccess(err, "read", kind, name)
		}
		if cur.GetLabels()[kube.LabelManagedBy] != fieldManager {
			return fmt.Errorf("the %s %s was not made by the runner (its label %s is not %s): delete it, and the runner makes its own",
				kind, name, kube.LabelManagedBy, fieldManager)
		}
		switch settle(cur, want) {
		case upToDate:
			return nil
		case updateIt:
			_, err = c.Update(ctx, cur, metav1.UpdateOptions{FieldManager: fieldManager})
		case replaceIt:
			uid := cur.GetUID()
			err = c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
			if err == nil || apierrors.IsNotFound(err) {
				continue
			}
		}
		if !apierrors.IsConflict(err) {
			return wrapAccess(err, "write", kind, name)
		}
	}
	return fmt.Errorf("the %s %s kept changing while the runner wrote it", kind, name)
}

// removeOurs deletes the object of the name when the people side made it; one it did not
// make is left alone.
func removeOurs[T metav1.Object](ctx context.Context, c accessClient[T], kind, name string) error {
	cur, err := c.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return wrapAccess(err, "read", kind, name)
	case cur.GetLabels()[kube.LabelManagedBy] != fieldManager:
		return nil
	}
	uid := cur.GetUID()
	err = c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or another object of the name that the next pass looks at
	}
	return wrapAccess(err, "delete", kind, name)
}

func wrapAccess(err error, verb, kind, name string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s the %s %s: %w", verb, kind, name, err)
}

// settleRole brings cur's rules and metadata to want's.
func settleRole(cur, want *rbacv1.ClusterRole) verdict {
	same := settleMeta(&cur.ObjectMeta, &want.ObjectMeta)
	if !equality.Semantic.DeepEqual(cur.Rules, want.Rules) || cur.AggregationRule != nil {
		cur.Rules, cur.AggregationRule, same = want.Rules, nil, false
	}
	if same {
		return upToDate
	}
	return updateIt
}

// settleBinding brings cur's subjects and metadata to want's; a binding to another role is
// replaced, since a roleRef cannot change.
func settleBinding(cur, want *rbacv1.ClusterRoleBinding) verdict {
	if cur.RoleRef != want.RoleRef {
		return replaceIt
	}
	same := settleMeta(&cur.ObjectMeta, &want.ObjectMeta)
	if !equality.Semantic.DeepEqual(cur.Subjects, want.Subjects) {
		cur.Subjects, same = want.Subjects, false
	}
	if same {
		return upToDate
	}
	return updateIt
}

// settleMeta sets want's labels, annotations and owner references on cur, keeping the labels
// and annotations others added, and tells whether cur had them already.
func settleMeta(cur, want *metav1.ObjectMeta) bool {
	same := true
	set := func(m *map[string]string, k, v string) {
		if old, ok := (*m)[k]; !ok || old != v {
			if *m == nil {
				*m = map[string]string{}
			}
			(*m)[k], same = v, false
		}
	}
	for k, v := range want.Labels {
		set(&cur.Labels, k, v)
	}
	for k, v := range want.Annotations {
		set(&cur.Annotations, k, v)
	}
	if !equality.Semantic.DeepEqual(cur.OwnerReferences, want.OwnerReferences) {
		cur.OwnerReferences, same = want.OwnerReferences, false
	}
	return same
}
