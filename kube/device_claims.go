// The hardware a device's claim was given, against what the nodes publish now: a device
// pulled out of its node leaves its DRA driver's ResourceSlice, while the claim keeps its
// allocation and the driver's pod keeps running without the hardware. The device's Plugged
// condition says which, in words, so the person at the site knows which cable to check.
package kube

import (
	"fmt"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// Reasons of the Plugged condition.
const (
	ReasonPlugged   = "Plugged"
	ReasonUnplugged = "Unplugged"
)

// Unplugged lists what a claim was given that no slice of its driver and pool holds now.
// slices holds the slices of every driver the allocation names.
func Unplugged(claim *resourceapi.ResourceClaim, slices []resourceapi.ResourceSlice) []resourceapi.DeviceRequestAllocationResult {
	if claim.Status.Allocation == nil {
		return nil
	}
	var missing []resourceapi.DeviceRequestAllocationResult
	for _, r := range claim.Status.Allocation.Devices.Results {
		if !published(slices, r) {
			missing = append(missing, r)
		}
	}
	return missing
}

func published(slices []resourceapi.ResourceSlice, r resourceapi.DeviceRequestAllocationResult) bool {
	for _, s := range slices {
		if s.Spec.Driver != r.Driver || s.Spec.Pool.Name != r.Pool {
			continue
		}
		for _, d := range s.Spec.Devices {
			if d.Name == r.Device {
				return true
			}
		}
	}
	return false
}

// PluggedCondition is a device's Plugged condition, given what of its claim is missing.
func PluggedCondition(label, claim string, missing []resourceapi.DeviceRequestAllocationResult) obsv1.Condition {
	if len(missing) == 0 {
		return obsv1.Condition{Type: obsv1.ConditionPlugged, Status: metav1.ConditionTrue, Reason: ReasonPlugged,
			Message: label + ": the hardware of claim " + claim + " is plugged in"}
	}
	parts := make([]string, len(missing))
	for i, r := range missing {
		parts[i] = fmt.Sprintf("%s (%s) on node %s", r.Device, r.Driver, r.Pool)
	}
	return obsv1.Condition{Type: obsv1.ConditionPlugged, Status: metav1.ConditionFalse, Reason: ReasonUnplugged,
		Message: label + ": the hardware of claim " + claim + " is no longer plugged in: " + strings.Join(parts, ", ") +
			"; its driver cannot reach it until it is plugged back into that node"}
}
