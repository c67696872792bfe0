// A device's phase outside the observer's window: Starting once its pod is created, and Idle
// once its pod is gone at the end of a reservation (kube.StartingDeviceStatus and
// kube.StoppedDeviceStatus say what changes). While Ready, the observer writes the rest.
package activities

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

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
	return a.updateDeviceStatus(ctx, r, func(st obsv1.DeviceStatus) obsv1.DeviceStatus { return kube.StoppedDeviceStatus(st, d) })
}

// updateDeviceStatus writes a device's status as change makes it.
func (a *Activities) updateDeviceStatus(ctx context.Context, r kube.ResourceID, change func(obsv1.DeviceStatus) obsv1.DeviceStatus) error {
	return updateTypedStatus(ctx, a, r, change)
}

// updateTypedStatus writes an object's status, read as a T, as change makes it, when that
// differs, with the resourceVersion it read. An object that is gone has nothing to show it on.
func updateTypedStatus[T any](ctx context.Context, a *Activities, r kube.ResourceID, change func(T) T) error {
	res := a.resource(r.Kind, r.Namespace)
	for range conflictRetries {
		u, err := res.Get(ctx, r.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && r.UID != "" && u.GetUID() != r.UID) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
		}
		var cur T
		if st, ok := u.Object["status"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(st, &cur); err != nil {
				return fmt.Errorf("the status of the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
			}
		}
		next := change(cur)
		if equality.Semantic.DeepEqual(cur, next) {
			return nil
		}
		if u.Object["status"], err = runtime.DefaultUnstructuredConverter.ToUnstructured(&next); err != nil {
			return err
		}
		_, err = res.UpdateStatus(ctx, u, metav1.UpdateOptions{FieldManager: observatoryFieldManager})
		switch {
		case apierrors.IsConflict(err):
			continue
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return fmt.Errorf("write the status of the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
		}
		return nil
	}
	return fmt.Errorf("the %s %s/%s kept changing while its status was written", r.Kind, r.Namespace, r.Name)
}
