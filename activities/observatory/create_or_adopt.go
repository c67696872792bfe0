// The one create-or-adopt of the objects a reservation runs on: pods, Services,
// ResourceClaims and ConfigMaps. An object that is there and ours (managed by us, controlled
// by the same resource, built from the same spec) is kept; one left by an older resource of
// the same name, or built from an older spec, is replaced; one we did not make fails the step.
package observatory

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
)

// controllerUID is the UID of an object's controller, or "".
func controllerUID(m metav1.Object) types.UID {
	if r := metav1.GetControllerOf(m); r != nil {
		return r.UID
	}
	return ""
}

// errNotOurs is an object of a generated name that we did not create.
func errNotOurs(kind, ns, name string) error {
	return stepFailed("a %s named %s exists in %s that the %s did not create; delete or rename it",
		kind, name, ns, kube.ObservatoryComponent)
}

// objectClient is what ensureObject needs of a typed client (pods, Services, claims,
// ConfigMaps).
type objectClient[T metav1.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// adoption is what settle makes of an object that is ours and of the same owner.
type adoption int

const (
	adopted   adoption = iota // as wanted: keep it
	replaceIt                 // built from an older spec: delete it and create it again
	lookAgain                 // brought up to date, or raced: read it again
)

// ensureObject is the one create-or-adopt. It creates want, or adopts the object of its name
// when that is ours (managed by us, controlled by the same resource) and settle keeps it;
// one of another owner, or one settle finds stale, is deleted (with its UID as a
// precondition) and created again once gone; one we did not make fails the step, since
// deleting a user's object would be worse. settle may bring the object up to date itself
// (lookAgain); nil keeps what is there.
func ensureObject[T metav1.Object](ctx context.Context, c objectClient[T], kind string, want T,
	settle func(ctx context.Context, cur T) (adoption, error)) error {
	ns, name := want.GetNamespace(), want.GetName()
	return waitUntil(ctx, kind+" "+name+" created", func(ctx context.Context) (bool, error) {
		cur, err := c.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = c.Create(ctx, want, metav1.CreateOptions{FieldManager: observatoryFieldManager})
			if apierrors.IsAlreadyExists(err) {
				return false, nil
			}
			if err == nil {
				logFor(ctx).Info("created a "+kind, "namespace", ns, "name", name)
			}
			return err == nil, err
		}
		if err != nil {
			return false, fmt.Errorf("read the %s %s/%s: %w", kind, ns, name, err)
		}
		if cur.GetLabels()[kube.LabelManagedBy] != kube.ObservatoryComponent {
			return false, errNotOurs(kind, ns, name)
		}
		if cur.GetDeletionTimestamp() != nil {
			return false, nil // wait until it is gone
		}
		verdict := replaceIt
		if controllerUID(cur) == controllerUID(want) {
			verdict = adopted
			if settle != nil {
				if verdict, err = settle(ctx, cur); err != nil {
					return false, err
				}
			}
		}
		if verdict != replaceIt {
			return verdict == adopted, nil
		}
		logFor(ctx).Info("replacing a "+kind+" of another owner or spec", "namespace", ns, "name", name)
		uid := cur.GetUID()
		err = c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return false, fmt.Errorf("delete the %s %s/%s of another owner or spec: %w", kind, ns, name, err)
		}
		return false, nil
	})
}

// ensurePod creates or adopts a pod; one built from an older spec is replaced. A server
// pod's drivers annotation is kept current with a patch (the pod reads it live).
func (a *Activities) ensurePod(ctx context.Context, want *corev1.Pod) error {
	pods := a.Kube.CoreV1().Pods(want.Namespace)
	return ensureObject(ctx, pods, "pod", want, func(ctx context.Context, cur *corev1.Pod) (adoption, error) {
		if kube.PodIsStale(cur, want) {
			return replaceIt, nil
		}
		d, ok := want.Annotations[kube.AnnotationDrivers]
		if !ok || cur.Annotations[kube.AnnotationDrivers] == d {
			return adopted, nil
		}
		patch := fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q,"annotations":{%q:%q}}}`,
			cur.ResourceVersion, kube.AnnotationDrivers, d)
		_, err := pods.Patch(ctx, want.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: observatoryFieldManager})
		if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return adopted, err
		}
		return lookAgain, nil
	})
}

// ensureService creates or adopts a Service.
func (a *Activities) ensureService(ctx context.Context, want *corev1.Service) error {
	return ensureObject(ctx, a.Kube.CoreV1().Services(want.Namespace), "Service", want, nil)
}

// ensureClaim creates or adopts a ResourceClaim.
func (a *Activities) ensureClaim(ctx context.Context, want *resourcev1.ResourceClaim) error {
	return ensureObject(ctx, a.Kube.ResourceV1().ResourceClaims(want.Namespace), "ResourceClaim", want, nil)
}
