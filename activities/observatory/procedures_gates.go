// What must hold before an action of a procedure starts: the runs of its tier that it comes
// `after` have ended, and the conditions it `requires` hold. Either one that does not fails
// the action with a summary that names the reference ("after[0]: no Mount north").
package observatory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// awaitAfter waits until the runs of this step that act.After names have ended. Only the
// runs of the same tier are waited for: an earlier tier has ended, and a later one starts
// after this one. A name that does not exist fails the action ("after[0]: no Mount north").
func (a *Activities) awaitAfter(ctx context.Context, r *procResource, act procAction, runs map[string]chan struct{}, hb *heartbeat) actionEnd {
	if len(act.After) == 0 {
		return actionEnd{}
	}
	timeout, err := act.timeout()
	if err != nil {
		return actionEnd{state: obsv1.RunFailed, summary: err.Error(), errType: ErrStepFailed}
	}
	var wait []string
	for i, ref := range act.After {
		if ref.Name != "" {
			_, err := a.resource(ref.Kind, r.id.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return actionEnd{state: obsv1.RunFailed, errType: ErrStepFailed,
					summary: fmt.Sprintf("after[%d]: no %s %s", i, ref.Kind, ref.Name)}
			}
			if err != nil {
				return actionEnd{err: fmt.Errorf("read the %s %s/%s: %w", ref.Kind, r.id.Namespace, ref.Name, err)}
			}
		}
		for key := range runs {
			kind, name, _ := strings.Cut(key, "/")
			if kind == string(ref.Kind) && (ref.Name == "" || name == ref.Name) && key != r.id.String() {
				wait = append(wait, key)
			}
		}
	}
	sort.Strings(wait)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for _, key := range wait {
		hb.set(r.id.String(), r.id.String()+" waits for "+key)
		select {
		case <-runs[key]:
		case <-ctx.Done():
			return actionEnd{err: ctx.Err()}
		case <-timer.C:
			return actionEnd{state: obsv1.RunFailed, errType: ErrStepTimedOut,
				summary: procTimedOut(timeout, r.id.String()+" waiting for "+key)}
		}
	}
	hb.set(r.id.String(), "")
	return actionEnd{}
}

// checkRequires fails the action unless every condition act.Requires names holds now. A
// reference without a kind is the resource itself; a kind without a name is every resource
// of the kind.
func (a *Activities) checkRequires(ctx context.Context, r *procResource, act procAction) actionEnd {
	for i, ref := range act.Requires {
		kind, name := ref.Kind, ref.Name
		if kind == "" {
			kind, name = r.id.Kind, r.id.Name
		}
		want := ref.Status
		if want == "" {
			want = metav1.ConditionTrue
		}
		var objs []unstructured.Unstructured
		if name != "" {
			u, err := a.resource(kind, r.id.Namespace).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return actionEnd{state: obsv1.RunFailed, errType: ErrStepFailed,
					summary: fmt.Sprintf("requires[%d]: no %s %s", i, kind, name)}
			}
			if err != nil {
				return actionEnd{err: fmt.Errorf("read the %s %s/%s: %w", kind, r.id.Namespace, name, err)}
			}
			objs = append(objs, *u)
		} else {
			list, err := a.resource(kind, r.id.Namespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				return actionEnd{err: fmt.Errorf("list the %s resources in %s: %w", kind, r.id.Namespace, err)}
			}
			if len(list.Items) == 0 {
				return actionEnd{state: obsv1.RunFailed, errType: ErrStepFailed,
					summary: fmt.Sprintf("requires[%d]: no %s", i, kind)}
			}
			objs = list.Items
		}
		for _, u := range objs {
			got := "absent"
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok && m["type"] == ref.Type {
					got, _ = m["status"].(string)
				}
			}
			if got != string(want) {
				return actionEnd{state: obsv1.RunFailed, errType: ErrStepFailed,
					summary: fmt.Sprintf("requires[%d]: %s %s is %s=%s, not %s", i, kind, u.GetName(), ref.Type, got, want)}
			}
		}
	}
	return actionEnd{}
}
