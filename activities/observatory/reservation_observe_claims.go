// The observer's look at the hardware of each device with a claim: whether what the claim was
// given is still in its DRA driver's slice (kube.Unplugged). A device pulled out mid-night
// leaves the slice while its pod keeps running; the device's Plugged condition and a Warning
// Event say which device is gone from which node, and it turns back when it returns.
package observatory

import (
	"context"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// lookAtClaims writes the Plugged condition of every observed device with a claim.
func (a *Activities) lookAtClaims(ctx context.Context, watched []*observedServer) {
	for _, o := range watched {
		for _, d := range o.devices {
			if d.Spec.Claim == nil || d.Pod == "" {
				continue
			}
			if err := a.lookAtClaim(ctx, d.stepDevice); err != nil {
				logFor(ctx).Warn("cannot tell whether a device's hardware is plugged in; the next look tries again",
					"device", d.Label(), "namespace", d.Namespace, "err", err)
			}
		}
	}
}

func (a *Activities) lookAtClaim(ctx context.Context, d stepDevice) error {
	ctx, cancel := context.WithTimeout(ctx, observeWriteTimeout)
	defer cancel()
	claim, err := a.Kube.ResourceV1().ResourceClaims(d.Namespace).Get(ctx, d.Pod, metav1.GetOptions{})
	if err != nil || claim.Status.Allocation == nil {
		return err // not allocated yet: its pod waits, and StartDevices says so
	}
	var drivers []string
	for _, r := range claim.Status.Allocation.Devices.Results {
		if !slices.Contains(drivers, r.Driver) {
			drivers = append(drivers, r.Driver)
		}
	}
	var published []resourceapi.ResourceSlice
	for _, driver := range drivers {
		list, err := a.Kube.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: "spec.driver=" + driver})
		if err != nil {
			return err
		}
		published = append(published, list.Items...)
	}
	cond := kube.PluggedCondition(d.Label(), claim.Name, kube.Unplugged(claim, published))
	w, err := writeStatus(ctx, a, d.ResourceID, nil, func(st obsv1.DeviceStatus, _ metav1.Object) obsv1.DeviceStatus {
		if c := kube.ConditionOf(st.Conditions, cond.Type); c == nil || c.Status != cond.Status || c.Message != cond.Message {
			st.Conditions = kube.WithCondition(st.Conditions, cond, 0, a.now())
		}
		return st
	})
	if err == nil && w.wrote {
		a.postObsEvent(ctx, d.ResourceID, kube.Event{Type: kube.EventTypeOf(cond), Reason: cond.Reason, Message: cond.Message})
	}
	return err
}
