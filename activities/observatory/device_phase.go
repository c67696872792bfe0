// A device's phase and Ready condition while a reservation runs it (kube/device_phase.go says
// what changes): Starting once its pod is created and again once the pod runs on a node,
// Disconnecting as it is disconnected, and Idle (or Inventory) once its pod is gone (a refusal:
// reservation_refusals.go). While Ready, the observer writes the rest.
// Each write posts the Events of the conditions it changed.
package observatory

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
