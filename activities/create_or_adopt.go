// The one create-or-adopt of the objects the activities make under fixed names: the
// observatory's pods, Services, ResourceClaims and ConfigMaps, the people side's baker pods,
// and the RBAC objects both keep up to date in place (KeepObject).
// An object that is there and ours (managed by us, controlled by the same owner, found
// current by the caller) is kept; one left by an older owner of the same name, or built from
// an older spec, is replaced; one we did not make is refused, since deleting a user's object
// would be worse than failing.
package activities

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
)

// ControllerUID is the UID of an object's controller, or "".
func ControllerUID(m metav1.Object) types.UID {
	if r := metav1.GetControllerOf(m); r != nil {
		return r.UID
	}
	return ""
}

// ObjectClient is what EnsureObject needs of a typed client (pods, Services, claims,
// ConfigMaps).
type ObjectClient[T metav1.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Adoption is what a caller's Settle makes of an object that is ours and of the same owner.
type Adoption int

const (
	Adopted   Adoption = iota // as wanted: keep it
	ReplaceIt                 // built from an older spec, or stale: delete it and create it again
	LookAgain                 // brought up to date, or raced: read it again
)

// AdoptPollEvery is how often EnsureObject looks again by default: an object being created
// or deleted under the name is there or gone within a few of these.
const AdoptPollEvery = 250 * time.Millisecond

// Adopting says how EnsureObject treats what it finds under the wanted name.
type Adopting[T metav1.Object] struct {
	// Kind names the object in logs and errors: "pod", "Service", "baker pod".
	Kind string
	// Manager is the field manager of the create, and the managed-by label of an object
	// that is ours.
	Manager string
	// Settle decides on an object that is ours and of the same controller; nil keeps it. It
	// may bring the object up to date itself (LookAgain).
	Settle func(ctx context.Context, cur T) (Adoption, error)
	// NotOurs is the error for an object of the name that we did not make.
	NotOurs func(kind, namespace, name string) error
	// Wait polls done until it holds, heartbeating; nil polls every AdoptPollEvery with
	// RecordHeartbeat.
	Wait func(ctx context.Context, what string, done func(context.Context) (bool, error)) error
}

// EnsureObject creates want, or adopts the object of its name when that is ours and how
// keeps it, and returns the object created or adopted. One of another owner, or one Settle
// finds stale, is deleted (with its UID as a precondition) and created again once gone; one
// we did not make is how.NotOurs. An error of the create is returned as the API server gave it.
func EnsureObject[T metav1.Object](ctx context.Context, c ObjectClient[T], want T, how Adopting[T]) (T, error) {
	ns, name, kind := want.GetNamespace(), want.GetName(), how.Kind
	where := name // a cluster-scoped object has no namespace to name
	if ns != "" {
		where = ns + "/" + name
	}
	wait := how.Wait
	if wait == nil {
		wait = func(ctx context.Context, what string, done func(context.Context) (bool, error)) error {
			return WaitUntil(ctx, what, AdoptPollEvery, RecordHeartbeat, done)
		}
	}
	var got T
	err := wait(ctx, kind+" "+name+" created", func(ctx context.Context) (bool, error) {
		cur, err := c.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			cur, err = c.Create(ctx, want, metav1.CreateOptions{FieldManager: how.Manager})
			if apierrors.IsAlreadyExists(err) {
				return false, nil
			}
			if err == nil {
				got = cur
				LogFor(ctx).Info("created a "+kind, "namespace", ns, "name", name)
			}
			return err == nil, err
		}
		if err != nil {
			return false, fmt.Errorf("read the %s %s: %w", kind, where, err)
		}
		if cur.GetLabels()[kube.LabelManagedBy] != how.Manager {
			return false, how.NotOurs(kind, ns, name)
		}
		if cur.GetDeletionTimestamp() != nil {
			return false, nil // wait until it is gone
		}
		verdict := ReplaceIt
		if ControllerUID(cur) == ControllerUID(want) {
			verdict = Adopted
			if how.Settle != nil {
				if verdict, err = how.Settle(ctx, cur); err != nil {
					return false, err
				}
			}
		}
		if verdict != ReplaceIt {
			got = cur
			return verdict == Adopted, nil
		}
		LogFor(ctx).Info("replacing a "+kind+" of another owner or spec", "namespace", ns, "name", name)
		uid := cur.GetUID()
		err = c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return false, fmt.Errorf("delete the %s %s of another owner or spec: %w", kind, where, err)
		}
		return false, nil
	})
	if err != nil {
		var none T
		return none, err
	}
	return got, nil
}

// UpdateClient is what KeepObject needs of a typed client: ObjectClient's calls and Update.
type UpdateClient[T metav1.Object] interface {
	ObjectClient[T]
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// KeepObject is EnsureObject for an object kept up to date in place, such as an RBAC object:
// settle brings one that is ours to want and says whether it changed it (KeepObject writes it,
// and reads it again only when another write came first) or whether it must be replaced. It
// sets how.Settle itself.
func KeepObject[T metav1.Object](ctx context.Context, c UpdateClient[T], want T, how Adopting[T],
	settle func(cur, want T) (changed, replace bool)) error {
	how.Settle = func(ctx context.Context, cur T) (Adoption, error) {
		changed, replace := settle(cur, want)
		switch {
		case replace:
			return ReplaceIt, nil
		case !changed:
			return Adopted, nil
		}
		_, err := c.Update(ctx, cur, metav1.UpdateOptions{FieldManager: how.Manager})
		switch {
		case apierrors.IsConflict(err): // another write came first
			return LookAgain, nil
		case err != nil:
			return Adopted, fmt.Errorf("update the %s %s: %w", how.Kind, cur.GetName(), err)
		}
		return Adopted, nil
	}
	_, err := EnsureObject(ctx, c, want, how)
	return err
}

// DeleteOurs deletes the object of the name when manager made it; one gone already, or one
// that manager did not make, is left alone.
func DeleteOurs[T metav1.Object](ctx context.Context, c ObjectClient[T], kind, manager, name string) error {
	cur, err := c.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("read the %s %s: %w", kind, name, err)
	case cur.GetLabels()[kube.LabelManagedBy] != manager:
		return nil
	}
	uid := cur.GetUID()
	err = c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) { // a conflict: another object of the name
		return fmt.Errorf("delete the %s %s: %w", kind, name, err)
	}
	return nil
}
