// A device's phase and Ready condition while a reservation runs it (kube/device_phase.go says
// what changes): Starting once its pod is created and again once the pod runs on a node,
// Disconnecting as it is disconnected, and Idle (or Inventory) once its pod is gone (a refusal:
// reservation_refusals.go). While Ready, the observer writes the rest.
// Each write posts the Events of the conditions it changed. Here too is the one status write
// every observatory kind's status goes through.
package activities

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// markStarting writes the status of a device whose pod was created (node "") or runs on a node.
func (a *Activities) markStarting(ctx context.Context, d stepDevice, run kube.DeviceRun) error {
	return a.updateDeviceStatus(ctx, d.ResourceID, func(st obsv1.DeviceStatus, gen int64) obsv1.DeviceStatus {
		return kube.StartingDeviceStatus(st, run, gen, a.now())
	})
}

// markDisconnecting writes the status of a device being disconnected.
func (a *Activities) markDisconnecting(ctx context.Context, d stepDevice) error {
	return a.updateDeviceStatus(ctx, d.ResourceID, func(st obsv1.DeviceStatus, gen int64) obsv1.DeviceStatus {
		return kube.DisconnectingDeviceStatus(st, d.Kind, gen, a.now())
	})
}

// markStopped writes the status of a device whose pod is gone: Idle, or Inventory without a
// parent. A device that is gone has nothing to show it on.
func (a *Activities) markStopped(ctx context.Context, r kube.ResourceID) error {
	obj, err := a.getTyped(ctx, r.Kind, r.Namespace, r.Name)
	if err != nil || obj == nil {
		return err
	}
	d, err := kube.DeviceRefOf(obj)
	if err != nil {
		return err
	}
	return a.updateDeviceStatus(ctx, r, func(st obsv1.DeviceStatus, gen int64) obsv1.DeviceStatus {
		return kube.StoppedDeviceStatus(st, d, gen, a.now())
	})
}

// updateDeviceStatus writes a device's status as change makes it (from the status and the
// device's generation), and posts the Events of its conditions' transitions.
func (a *Activities) updateDeviceStatus(ctx context.Context, r kube.ResourceID, change func(obsv1.DeviceStatus, int64) obsv1.DeviceStatus) error {
	w, err := writeStatus(ctx, a, r, nil, func(st obsv1.DeviceStatus, m metav1.Object) obsv1.DeviceStatus {
		return change(st, m.GetGeneration())
	})
	if err == nil && w.wrote {
		for _, e := range kube.DeviceConditionEvents(r.Kind, w.before.Conditions, w.after.Conditions) {
			a.postObsEvent(ctx, w.id, e)
		}
	}
	return err
}

// statusWrite is what writeStatus did.
type statusWrite[T any] struct {
	id            kube.ResourceID // with the UID written to
	before, after T
	wrote         bool
}

// writeStatus is the one status write of the observatory kinds. It makes the status, read as
// a T, as change makes it from the status and the object's metadata (its generation and
// finalizers), and writes it (PUT /status with the resourceVersion it read) when it differs.
// It starts from cur (an object as a list returned it) when given, else reads the object;
// a conflict reads it again and changes that (client-go's retry.RetryOnConflict), so a write
// lands only on the object it was made from and keeps what other writers put in meanwhile.
// An object that is gone, or another of the same name, has nothing to show it on.
func writeStatus[T any](ctx context.Context, a *Activities, r kube.ResourceID, cur *unstructured.Unstructured,
	change func(T, metav1.Object) T) (statusWrite[T], error) {
	res := a.resource(r.Kind, r.Namespace)
	var w statusWrite[T]
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w = statusWrite[T]{}
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
		w.id = kube.ResourceIDOf(r.Kind, u)
		if st, ok := u.Object["status"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(st, &w.before); err != nil {
				return fmt.Errorf("the status of the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
			}
		}
		w.after = change(w.before, u)
		if equality.Semantic.DeepEqual(w.before, w.after) {
			return nil
		}
		status, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&w.after)
		if err != nil {
			return err
		}
		u = u.DeepCopy()
		u.Object["status"] = status
		_, err = res.UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: observatoryFieldManager})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil && !apierrors.IsConflict(err):
			return fmt.Errorf("write the status of the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
		}
		w.wrote = err == nil
		return err
	})
	if apierrors.IsConflict(err) {
		return w, fmt.Errorf("the %s %s/%s kept changing while its status was written", r.Kind, r.Namespace, r.Name)
	}
	return w, err
}
