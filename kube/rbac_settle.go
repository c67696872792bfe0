// Bringing an RBAC object the runner keeps (a Person's ClusterRole and ClusterRoleBinding, a
// Ready reservation's Role and RoleBinding) to what it should be. Each Settle function changes
// cur in place to want's rules or subjects, labels, annotations and owners, keeping the labels
// and annotations others added, and says whether it changed anything; a binding to another
// role cannot be changed (a roleRef is immutable) and must be replaced instead.
package kube

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SettleClusterRole brings cur to want's rules; an aggregated role becomes a plain one.
func SettleClusterRole(cur, want *rbacv1.ClusterRole) (changed, replace bool) {
	changed = settleMeta(&cur.ObjectMeta, &want.ObjectMeta)
	if !equality.Semantic.DeepEqual(cur.Rules, want.Rules) || cur.AggregationRule != nil {
		cur.Rules, cur.AggregationRule, changed = want.Rules, nil, true
	}
	return changed, false
}

// SettleRole brings cur to want's rules.
func SettleRole(cur, want *rbacv1.Role) (changed, replace bool) {
	changed = settleMeta(&cur.ObjectMeta, &want.ObjectMeta)
	if !equality.Semantic.DeepEqual(cur.Rules, want.Rules) {
		cur.Rules, changed = want.Rules, true
	}
	return changed, false
}

// SettleClusterRoleBinding brings cur to want's subjects, or says to replace it when it
// binds another role.
func SettleClusterRoleBinding(cur, want *rbacv1.ClusterRoleBinding) (changed, replace bool) {
	return settleBinding(&cur.ObjectMeta, &want.ObjectMeta, cur.RoleRef, want.RoleRef, &cur.Subjects, want.Subjects)
}

// SettleRoleBinding brings cur to want's subjects, or says to replace it when it binds
// another role.
func SettleRoleBinding(cur, want *rbacv1.RoleBinding) (changed, replace bool) {
	return settleBinding(&cur.ObjectMeta, &want.ObjectMeta, cur.RoleRef, want.RoleRef, &cur.Subjects, want.Subjects)
}

func settleBinding(cur, want *metav1.ObjectMeta, curRole, wantRole rbacv1.RoleRef, subjects *[]rbacv1.Subject, wantSubjects []rbacv1.Subject) (changed, replace bool) {
	if curRole != wantRole {
		return false, true
	}
	changed = settleMeta(cur, want)
	if !equality.Semantic.DeepEqual(*subjects, wantSubjects) {
		*subjects, changed = wantSubjects, true
	}
	return changed, false
}

// settleMeta sets want's labels, annotations and owner references on cur, keeping the labels
// and annotations others added, and says whether cur lacked any of them.
func settleMeta(cur, want *metav1.ObjectMeta) (changed bool) {
	set := func(m *map[string]string, k, v string) {
		if old, ok := (*m)[k]; !ok || old != v {
			if *m == nil {
				*m = map[string]string{}
			}
			(*m)[k], changed = v, true
		}
	}
	for k, v := range want.Labels {
		set(&cur.Labels, k, v)
	}
	for k, v := range want.Annotations {
		set(&cur.Annotations, k, v)
	}
	if !equality.Semantic.DeepEqual(cur.OwnerReferences, want.OwnerReferences) {
		cur.OwnerReferences, changed = want.OwnerReferences, true
	}
	return changed
}
