// The inventory's part of a device's status (see inventory.go for who writes what): its
// ParentFound condition always, and, while no reservation runs it, its phase and Ready:
// Inventory on the shelf, Error when it is refused or a parent is missing, Starting while a
// reservation that holds its telescope or site is on its way to creating its pod, and Idle.
package kube

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// DeviceStatus is d's status with the inventory's fields put in; d is the device as read
// last (a write that conflicted reads it again), the rest of the namespace as indexed.
func (inv *Inventory) DeviceStatus(d Device, now time.Time) obsv1.DeviceStatus {
	st := *d.Status.DeepCopy()
	st.ObservedGeneration = d.Generation
	parent, _ := inv.deviceParent(&d)
	st.Conditions = WithCondition(st.Conditions, parent, d.Generation, now)
	if RunsDevice(d.Finalizers) {
		return st
	}
	phase, ready := inv.idleDevice(&d)
	st.Phase = phase
	st.Conditions = WithCondition(st.Conditions, ready, d.Generation, now)
	return st
}

// DeviceConditionTypes are the conditions the inventory writes on d, whose transitions it
// posts: ParentFound, and Ready while no reservation runs it.
func DeviceConditionTypes(d Device) []string {
	if RunsDevice(d.Finalizers) {
		return []string{obsv1.ConditionParentFound}
	}
	return []string{obsv1.ConditionParentFound, obsv1.ConditionReady}
}

func (inv *Inventory) deviceParent(d *Device) (obsv1.Condition, bool) {
	return inv.parentFound(link{obsv1.KindTelescope, d.Telescope}, link{obsv1.KindOpticalTrain, d.OpticalTrain},
		link{obsv1.KindObservatory, d.Observatory})
}

// idleDevice is the phase and Ready condition of a device no reservation runs.
func (inv *Inventory) idleDevice(d *Device) (obsv1.DevicePhase, obsv1.Condition) {
	if msg := inv.refusals[d.ResourceID.String()]; msg != "" {
		return obsv1.DeviceError, ReadyCondition(ReasonError, msg)
	}
	parent, shelf := inv.deviceParent(d)
	switch {
	case parent.Status == metav1.ConditionFalse:
		return obsv1.DeviceError, ReadyCondition(ReasonError, parent.Message)
	case shelf:
		return obsv1.DeviceInventory, ReadyCondition(string(obsv1.DeviceInventory), MessageOnTheShelf)
	}
	phase, msg := waitingFor(inv.holdersOf(d), "create pod "+ObjectName(d.Kind, d.Name))
	if phase == "" {
		return obsv1.DeviceIdle, ReadyCondition(string(obsv1.DeviceIdle), msg)
	}
	return obsv1.DeviceStarting, ReadyCondition(string(obsv1.DeviceStarting), msg)
}

// waitingFor says what a resource that does not run waits for: Starting ("Waiting for
// activation to <what>") while a holder activates or is Ready; else "" and why it is idle.
func waitingFor(holders []*obsv1.Reservation, what string) (obsv1.DevicePhase, string) {
	for _, h := range holders {
		if h.Status.Phase == obsv1.ReservationActivating || h.Status.Phase == obsv1.ReservationReady {
			return obsv1.DeviceStarting, "Waiting for activation to " + what
		}
	}
	if len(holders) > 0 {
		h := holders[0]
		return "", "Not started by Reservation " + h.Name + ", which is " + string(h.Status.Phase)
	}
	return "", MessageNotReserved
}

// holdersOf are the reservations that hold the telescope or the site the device is on.
func (inv *Inventory) holdersOf(d *Device) []*obsv1.Reservation {
	if tel := inv.telescopeOf(d); tel != "" {
		if h := inv.holders[tel]; h != nil {
			return []*obsv1.Reservation{h}
		}
		return nil
	}
	if d.Observatory != "" {
		return inv.siteHolders(d.Observatory)
	}
	return nil
}

// phaseOf is the device's phase as this pass leaves it.
func (inv *Inventory) phaseOf(d *Device) obsv1.DevicePhase {
	if RunsDevice(d.Finalizers) {
		return d.Status.Phase
	}
	phase, _ := inv.idleDevice(d)
	return phase
}

// summaries are the devices keep picks, in connect order, as a Telescope's or an
// Observatory's status lists them; nil when none.
func (inv *Inventory) summaries(keep func(*Device) bool) []obsv1.DeviceSummary {
	var out []obsv1.DeviceSummary
	for _, d := range inv.devices {
		if keep(d) {
			out = append(out, obsv1.DeviceSummary{Kind: d.Kind, Name: d.Name, Phase: inv.phaseOf(d)})
		}
	}
	return out
}
