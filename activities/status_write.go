// The one status write of both domains' kinds (a Person, the observatory objects). Every
// status an activity writes goes through UpdateStatus: it reads the object (or starts from
// one the caller read or listed), lets the caller make the new object from it, and writes it
// with PUT /status and the resourceVersion it read. A conflict means another writer came
// first, so UpdateStatus reads the object again and the caller makes the status again from
// what is there now: a write lands only on the object it was made from, and keeps what others
// wrote meanwhile. An object that is gone, or another one of the same name, has nothing to
// show a status on.
//
// Several writers of one status merge this way rather than elect one writer: the observers of
// two telescopes of one site both write its Dome, from the same INDI server, and each write
// is made from the object as it is now, so the second finds the first's status there and
// writes nothing. One writer would need a handover whenever its reservation ends. Merging
// only needs the loser of a conflict to keep trying for longer than the others write, and
// that is what conflictWait is sized for.
package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// StatusOf is the object a status write is for.
type StatusOf struct {
	// Resource is the client of the object's kind, in its namespace.
	Resource dynamic.ResourceInterface
	// Kind, Namespace and Name say which object, in errors; Namespace is "" for a
	// cluster-scoped kind (a Person).
	Kind, Namespace, Name string
	// UID, when set, is the object the status is for: another of the same name is left alone.
	UID types.UID
	// Manager names the write in managedFields.
	Manager string
}

// String is the kind and name, as errors say it: "Telescope lab/east", "Person ada".
func (s StatusOf) String() string {
	if s.Namespace == "" {
		return s.Kind + " " + s.Name
	}
	return s.Kind + " " + s.Namespace + "/" + s.Name
}

// A status write that lost a conflict tries again, up to conflictTries times, after a wait
// that doubles from conflictFirstWait up to conflictMaxWait. The observers write a device
// at most once a second each, so its writes come in beats; client-go's retry.DefaultRetry
// (five tries within 50 ms) can fall within one beat and lose every try, and a safety report
// on a moving Dome was lost so. Its waits add up to between 2.1 and 4.3 seconds: several
// beats, and inside the observers' 5 s bound on one write. Every writer gets it: trying again
// from the object as it is now is right for any writer, and its context ends the tries sooner.
const (
	conflictTries     = 10
	conflictFirstWait = 20 * time.Millisecond
	conflictMaxWait   = time.Second
)

// conflictWait is the wait after the try-th conflict (from 0), with jitter r in [0, 1): between
// half the doubled wait and all of it, so two writers that collided do not collide again on
// the next try, and no wait is so short that the tries end within one beat.
func conflictWait(try int, r float64) time.Duration {
	w := conflictMaxWait
	if try < 16 && conflictFirstWait<<try < conflictMaxWait {
		w = conflictFirstWait << try
	}
	return w/2 + time.Duration(r*float64(w/2))
}

// retryOnConflict runs write until it returns anything but a conflict, conflictTries times at
// most, and returns its last error; it stops waiting when ctx ends.
func retryOnConflict(ctx context.Context, write func() error) error {
	for try := 0; ; try++ {
		err := write()
		if !apierrors.IsConflict(err) || try == conflictTries-1 {
			return err
		}
		t := time.NewTimer(conflictWait(try, rand.Float64()))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// UpdateStatus writes the status of s as change makes it. change gets the object as read
// (not to be modified) and returns the object to write, or nil when there is nothing to
// write. It starts from cur when given. It returns the object as written, or as read when
// nothing was written; nil when the object is gone.
func UpdateStatus(ctx context.Context, s StatusOf, cur *unstructured.Unstructured,
	change func(*unstructured.Unstructured) (*unstructured.Unstructured, error)) (*unstructured.Unstructured, error) {
	var out *unstructured.Unstructured
	err := retryOnConflict(ctx, func() error {
		out = nil
		u := cur
		cur = nil
		if u == nil {
			var err error
			u, err = s.Resource.Get(ctx, s.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read the %s: %w", s, err)
			}
		}
		if s.UID != "" && u.GetUID() != s.UID {
			return nil
		}
		next, err := change(u)
		if err != nil || next == nil {
			out = u
			return err
		}
		written, err := s.Resource.UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: s.Manager})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil && !apierrors.IsConflict(err):
			return fmt.Errorf("write the status of the %s: %w", s, err)
		}
		out = written
		return err
	})
	if apierrors.IsConflict(err) {
		return nil, fmt.Errorf("the %s kept changing while its status was written", s)
	}
	return out, err
}

// StatusWrite is what WriteStatus did.
type StatusWrite[T any] struct {
	Before, After T
	Wrote         bool
	// Obj is the object as written, or as read when nothing was written; nil when gone.
	Obj *unstructured.Unstructured
}

// WriteStatus is UpdateStatus for a status read as a T: change makes it from the status and
// the object's metadata (its generation and finalizers), and it is written when it differs.
// An error from change ends the write with that error.
func WriteStatus[T any](ctx context.Context, s StatusOf, cur *unstructured.Unstructured,
	change func(T, metav1.Object) (T, error)) (StatusWrite[T], error) {
	var w StatusWrite[T]
	obj, err := UpdateStatus(ctx, s, cur, func(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		w = StatusWrite[T]{}
		if st, ok := u.Object["status"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(st, &w.Before); err != nil {
				return nil, fmt.Errorf("the status of the %s: %w", s, err)
			}
		}
		var err error
		if w.After, err = change(w.Before, u); err != nil {
			return nil, err
		}
		if equality.Semantic.DeepEqual(w.Before, w.After) {
			return nil, nil
		}
		status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&w.After)
		if err != nil {
			return nil, err
		}
		w.Wrote = true
		u = u.DeepCopy()
		u.Object["status"] = status
		return u, nil
	})
	if err != nil || obj == nil {
		return StatusWrite[T]{}, err
	}
	w.Obj = obj
	return w, nil
}

// UpdateStatusField changes one field of s's status, as JSON, and writes the status when the
// field changed: an equal field, however the caller typed it, is no write.
func UpdateStatusField(ctx context.Context, s StatusOf, field string, change func(raw []byte) (any, error)) error {
	_, err := UpdateStatus(ctx, s, nil, func(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		var raw []byte
		if v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "status", field); ok {
			var err error
			if raw, err = json.Marshal(v); err != nil {
				return nil, err
			}
		}
		next, err := change(raw)
		if err != nil {
			return nil, fmt.Errorf("the status.%s of the %s: %w", field, s, err)
		}
		nextRaw, err := json.Marshal(next)
		if err != nil {
			return nil, err
		}
		// Compared as decoded JSON: the object's maps marshal with their keys sorted and a
		// caller's structs in field order, so equal fields rarely make equal text.
		var value, was any
		if err := json.Unmarshal(nextRaw, &value); err != nil {
			return nil, err
		}
		if raw != nil {
			_ = json.Unmarshal(raw, &was) // json.Marshal made it
		}
		if reflect.DeepEqual(value, was) {
			return nil, nil
		}
		u = u.DeepCopy()
		return u, unstructured.SetNestedField(u.Object, value, "status", field)
	})
	return err
}
