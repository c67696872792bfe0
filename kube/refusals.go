// Why a device cannot run, decided from the specs alone, before anything is created for it: a
// generated name that is not a DNS label, a driver no image holds, a claim that is not a
// ResourceClaimSpec, or a driver another device of the same INDI server holds (one indiserver
// runs a driver once). The inventory shows them on the devices at fault before a reservation,
// and the steps that meet them during one write the same (RefusedDeviceStatus) and fail with
// the same words, so the two never disagree and the log keeps the line it had.
package kube

import (
	"slices"
	"strings"
	"time"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// Refusal is a device that is not started, and why, in the words a step fails with.
type Refusal struct {
	Device  LiveDevice
	Message string
}

// DriverRefusals are the devices of server (in connect order) whose driver another device of
// it holds. The devices whose Services the running server links (linked) hold theirs first,
// since a server keeps what it runs; then each holds its driver in order.
func DriverRefusals(server string, devices []LiveDevice, linked []string) []Refusal {
	held := map[string]LiveDevice{}
	for _, d := range devices {
		if slices.Contains(linked, d.Service) {
			held[d.Driver] = d
		}
	}
	var out []Refusal
	for _, d := range devices {
		if slices.Contains(linked, d.Service) {
			continue
		}
		if h, ok := held[d.Driver]; ok {
			out = append(out, Refusal{Device: d, Message: DuplicateDriverMessage(
				string(h.Kind)+" "+h.Name, string(d.Kind)+" "+d.Name, d.Driver, server)})
			continue
		}
		held[d.Driver] = d
	}
	return out
}

// BuildRefusal is why the objects of a device cannot be built (its name, its driver's image,
// its claim), in the builders' own words; "" when they can.
func BuildRefusal(d DeviceRef) string {
	if _, err := ValidObjectName(d.Kind, d.Name); err != nil {
		return err.Error()
	}
	if _, err := DriverImage(d.Spec.Driver); err != nil {
		return d.String() + ": " + err.Error()
	}
	if _, err := DeviceResourceClaim(d, ""); err != nil {
		return err.Error()
	}
	return ""
}

// ServerRefusals are every refusal of the devices of server (in connect order), each device
// at most once: what it cannot be built from first, then the drivers held by others.
func ServerRefusals(server string, devices []DeviceRef, linked []string) []Refusal {
	var out []Refusal
	var live []LiveDevice
	for _, d := range devices {
		ld := LiveDevice{Kind: d.Kind, Name: d.Name, Service: ObjectName(d.Kind, d.Name), Driver: d.Spec.Driver.Name}
		if msg := BuildRefusal(d); msg != "" {
			out = append(out, Refusal{Device: ld, Message: msg})
			continue
		}
		live = append(live, ld)
	}
	return append(out, DriverRefusals(server, live, linked)...)
}

// RefusalMessage is the words a step fails with for its refusals: each one's, in order.
func RefusalMessage(refusals []Refusal) string {
	msgs := make([]string, len(refusals))
	for i, r := range refusals {
		msgs[i] = r.Message
	}
	return strings.Join(msgs, "; ")
}

// RefusedDeviceStatus is a refused device's status: phase Error, and Ready False with reason
// Error and the refusal's words. Nothing runs for it, so nothing else changes.
func RefusedDeviceStatus(st obsv1.DeviceStatus, message string, generation int64, now time.Time) obsv1.DeviceStatus {
	out := *st.DeepCopy()
	out.Phase = obsv1.DeviceError
	out.Conditions = WithCondition(out.Conditions, ReadyCondition(ReasonError, message), generation, now)
	return out
}
