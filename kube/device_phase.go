// Where a device stands, in its phase and its Ready condition, whose reason is the phase and
// whose message says it in words (the Message column of `kubectl get`). Outside a reservation
// the inventory writes them (inventory_devices.go: Inventory, Idle, Error, or Starting while
// it waits for its reservation); while a reservation runs the device (it holds the deactivate
// finalizer, from just before its pod is created until the pod is gone) the reservation's
// steps and observer write them, with these functions: Starting with its pod, Connecting and
// Connected as its driver reports (device_state.go), Disconnecting, and Idle or Inventory once
// its pod is gone. Ready is True only while Connected.
package kube

import (
	"time"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The Ready messages of a device that does not run.
const (
	MessageNotReserved = "Not reserved"
	MessageOnTheShelf  = "On the shelf"
)

// DeviceRun is where a device's driver runs: status.pod, node, driver and image.
type DeviceRun struct {
	Pod, Node, Driver, Image string
}

// RunsDevice says whether a reservation runs the device, so its steps and observer write its
// phase and Ready condition: it holds the deactivate finalizer.
func RunsDevice(finalizers []string) bool { return FinalizersHave(finalizers, FinalizerDeactivate) }

// StartingDeviceStatus is st once the device's pod is created (and again once it runs on a
// node): Starting, with where it runs; unless the observer has seen its driver already (a pod
// created again while Ready), whose phase stays.
func StartingDeviceStatus(st obsv1.DeviceStatus, run DeviceRun, generation int64, now time.Time) obsv1.DeviceStatus {
	out := *st.DeepCopy()
	out.Pod, out.Node, out.Driver, out.Image = run.Pod, run.Node, run.Driver, run.Image
	if out.Phase == obsv1.DeviceConnected || out.Phase == obsv1.DeviceConnecting {
		return out
	}
	out.Phase = obsv1.DeviceStarting
	msg := "Creating pod " + run.Pod
	if run.Node != "" {
		msg = "Pod " + run.Pod + " runs on " + run.Node + "; waiting for the driver " + run.Driver
	}
	out.Conditions = WithCondition(out.Conditions, ReadyCondition(string(out.Phase), msg), generation, now)
	return out
}

// DisconnectingDeviceStatus is st as the reservation disconnects the device: its state
// conditions go, as they exist only while it is Connected.
func DisconnectingDeviceStatus(st obsv1.DeviceStatus, kind obsv1.Kind, generation int64, now time.Time) obsv1.DeviceStatus {
	out := *st.DeepCopy()
	out.Phase = obsv1.DeviceDisconnecting
	out.Conditions = WithoutConditions(out.Conditions, StateConditionTypes(kind)...)
	msg := "Disconnecting"
	if out.IndiDevice != "" {
		msg += " " + out.IndiDevice
	}
	out.Conditions = WithCondition(out.Conditions, ReadyCondition(string(out.Phase), msg), generation, now)
	return out
}

// StoppedDeviceStatus is st once the device's pod is gone (at the end of a reservation, or as
// it left one): Idle, or Inventory when it has no parent any more; and what only a running
// driver reports (where it ran, its state conditions, readings, display and properties) is
// dropped rather than left stale. Its INDI name and procedure records stay.
func StoppedDeviceStatus(st obsv1.DeviceStatus, d DeviceRef, generation int64, now time.Time) obsv1.DeviceStatus {
	out := *st.DeepCopy()
	msg := MessageNotReserved
	out.Phase = obsv1.DeviceIdle
	if d.Telescope == "" && d.OpticalTrain == "" && d.Observatory == "" {
		out.Phase, msg = obsv1.DeviceInventory, MessageOnTheShelf
	}
	out.Conditions = WithoutConditions(out.Conditions, StateConditionTypes(d.Kind)...)
	out.Conditions = WithCondition(out.Conditions, ReadyCondition(string(out.Phase), msg), generation, now)
	out.Pod, out.Node, out.Driver, out.Image = "", "", "", ""
	out.Readings, out.Display, out.Properties = nil, nil, nil
	return out
}
