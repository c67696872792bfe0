// The one status write of the observatory kinds. Every status an activity writes goes
// through updateStatus: it reads the object (or starts from one a list returned), lets the
// caller make the new object from it, and writes it with PUT /status and the resourceVersion
// it read. A conflict means another writer came first, so client-go's retry.RetryOnConflict
// reads the object again and the caller makes the status again from what is there now: a
// write lands only on the object it was made from, and keeps what others wrote meanwhile.
// An object that is gone, or another one of the same name, has nothing to show a status on.
package observatory

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"

	"liken.sh/runner/kube"
)

// updateStatus writes the status of r as change makes it. change gets the object as read
// (not to be modified) and returns the object to write, or nil when there is nothing to
// write. It starts from cur when given. It returns the object as written, or as read when
// nothing was written; nil when the object is gone.
func (a *Activities) updateStatus(ctx context.Context, r kube.ResourceID, cur *unstructured.Unstructured,
	change func(*unstructured.Unstructured) (*unstructured.Unstructured, error)) (*unstructured.Unstructured, error) {
	res := a.resource(r.Kind, r.Namespace)
	var out *unstructured.Unstructured
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		out = nil
		u := cur
		cur = nil
		if u == nil {
			var err error
			u, err = res.Get(ctx, r.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
			}
		}
		if r.UID != "" && u.GetUID() != r.UID {
			return nil
		}
		next, err := change(u)
		if err != nil || next == nil {
			out = u
			return err
		}
		written, err := res.UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: observatoryFieldManager})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil && !apierrors.IsConflict(err):
			return fmt.Errorf("write the status of the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
		}
		out = written
		return err
	})
	if apierrors.IsConflict(err) {
		return nil, fmt.Errorf("the %s %s/%s kept changing while its status was written", r.Kind, r.Namespace, r.Name)
	}
	return out, err
}

// statusWrite is what writeStatus did.
type statusWrite[T any] struct {
	id            kube.ResourceID // with the UID written to
	before, after T
	wrote         bool
	// obj is the object as written, or as read when nothing was written; nil when gone.
	obj *unstructured.Unstructured
}

// writeStatus is updateStatus for a status read as a T: change makes it from the status and
// the object's metadata (its generation and finalizers), and it is written when it differs.
func writeStatus[T any](ctx context.Context, a *Activities, r kube.ResourceID, cur *unstructured.Unstructured,
	change func(T, metav1.Object) T) (statusWrite[T], error) {
	var w statusWrite[T]
	obj, err := a.updateStatus(ctx, r, cur, func(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		w = statusWrite[T]{id: kube.ResourceIDOf(r.Kind, u)}
		if st, ok := u.Object["status"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(st, &w.before); err != nil {
				return nil, fmt.Errorf("the status of the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
			}
		}
		w.after = change(w.before, u)
		if equality.Semantic.DeepEqual(w.before, w.after) {
			return nil, nil
		}
		status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&w.after)
		if err != nil {
			return nil, err
		}
		w.wrote = true
		u = u.DeepCopy()
		u.Object["status"] = status
		return u, nil
	})
	if err != nil || obj == nil {
		return statusWrite[T]{}, err
	}
	w.obj = obj
	return w, nil
}

// updateStatusField changes one field of r's status, as JSON, and writes the status when the
// field changed.
func (a *Activities) updateStatusField(ctx context.Context, r kube.ResourceID, field string, change func(raw []byte) (any, error)) error {
	_, err := a.updateStatus(ctx, r, nil, func(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		var raw []byte
		if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "status", field); ok {
			var err error
			if raw, err = json.Marshal(v); err != nil {
				return nil, err
			}
		}
		next, err := change(raw)
		if err != nil {
			return nil, fmt.Errorf("the status.%s of the %s %s/%s: %w", field, r.Kind, r.Namespace, r.Name, err)
		}
		nextRaw, err := json.Marshal(next)
		if err != nil || string(nextRaw) == string(raw) {
			return nil, err
		}
		var value any
		if err := json.Unmarshal(nextRaw, &value); err != nil {
			return nil, err
		}
		u = u.DeepCopy()
		return u, unstructured.SetNestedField(u.Object, value, "status", field)
	})
	return err
}
