// Devices joining and leaving a Ready reservation. A server pod's
// drivers annotation says which devices' drivers it runs; a device whose parent now puts it
// on the server and whose Service the annotation lacks is joining, and a device that still
// has objects labelled for the server but whose parent no longer puts it there (or that is
// being deleted) is leaving. One indiserver runs a driver once: a joiner whose driver is
// already held there is refused, and nothing is started for it.
package kube

import (
	"fmt"
	"slices"
	"strings"
	"time"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// Event reasons of a device joining or leaving a running server.
const (
	ReasonDriverStarted = "DriverStarted"
	ReasonDriverStopped = "DriverStopped"
	ReasonPodDeleted    = "PodDeleted"
	// ReasonError is the Ready condition's reason of a device that cannot run.
	ReasonError = "Error"
)

// LiveDevice is a device a server should run: its kind and name, its Service and its driver.
type LiveDevice struct {
	Kind    obsv1.Kind
	Name    string
	Service string
	Driver  string
}

// LivePlan is what a server's devices need while Ready.
type LivePlan struct {
	// Join are the devices whose drivers the server does not run yet, in the order given.
	Join []LiveDevice
	// Refuse are joiners whose driver another device of the server holds.
	Refuse []Refusal
	// Leave are the devices (kind and name) that have objects for the server but are no
	// longer its, sorted.
	Leave []ResourceID
}

// PlanLiveDevices compares the devices a server should run (want, in connect order) with
// the Services its drivers annotation links and the devices that have objects labelled for
// it (running). A joiner is refused when a linked device, or an earlier joiner, holds its
// driver.
func PlanLiveDevices(server string, want []LiveDevice, linked []string, running []ResourceID) LivePlan {
	p := LivePlan{Refuse: DriverRefusals(server, want, linked)}
	wanted := map[ResourceID]bool{}
	for _, d := range want {
		wanted[ResourceID{Kind: d.Kind, Name: d.Name}] = true
		refused := slices.ContainsFunc(p.Refuse, func(r Refusal) bool { return r.Device == d })
		if !refused && !slices.Contains(linked, d.Service) {
			p.Join = append(p.Join, d)
		}
	}
	for _, r := range running {
		r := ResourceID{Kind: r.Kind, Name: r.Name}
		if !wanted[r] && !slices.Contains(p.Leave, r) {
			p.Leave = append(p.Leave, r)
		}
	}
	slices.SortFunc(p.Leave, func(a, b ResourceID) int {
		return strings.Compare(string(a.Kind)+"/"+a.Name, string(b.Kind)+"/"+b.Name)
	})
	return p
}

// DuplicateDriverMessage says what is wrong with two devices of one server with one driver.
func DuplicateDriverMessage(first, second, driver, server string) string {
	return fmt.Sprintf("%s and %s both use the driver %s, which the INDI server %s can run only once",
		first, second, driver, server)
}

// LinkedServices reads a server pod's drivers annotation (DriversAnnotation) back into the
// Services it links.
func LinkedServices(annotation string) []string {
	var out []string
	for line := range strings.SplitSeq(annotation, "\n") {
		svc, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		if svc != "" {
			out = append(out, svc)
		}
	}
	return out
}

// RanActivation says whether a device that leaves ran its activation during the reservation
// whose activation began at since, and has not yet run its deactivation after it: then its
// deactivation runs before its driver stops.
func RanActivation(records []obsv1.ProcedureRecord, since time.Time) bool {
	act := FindProcedureRecord(records, TriggerActivation)
	if act == nil || act.Since == nil || act.Since.Time.Before(since.Truncate(time.Second)) {
		return false
	}
	if act.State != obsv1.RunDone && act.State != obsv1.RunFailed && act.State != obsv1.RunRunning {
		return false
	}
	deact := FindProcedureRecord(records, TriggerDeactivation)
	return deact == nil || deact.Since == nil || deact.Since.Time.Before(act.Since.Time)
}

// ActivationPending says whether a device that joined the reservation whose activation
// began at since still has its activation to run: StartLiveDevices marked it Pending.
func ActivationPending(records []obsv1.ProcedureRecord, since time.Time) bool {
	act := FindProcedureRecord(records, TriggerActivation)
	return act != nil && act.State == obsv1.RunPending && act.Since != nil && !act.Since.Time.Before(since.Truncate(time.Second))
}

// FailedJoinerActivation is the activation record of a device whose activation failed after
// it joined the reservation whose activation began at since (the reservation's own
// Activation step is retried on the Reservation, not here); nil when there is none. The
// retry annotation on the device runs it again.
func FailedJoinerActivation(records []obsv1.ProcedureRecord, since time.Time) *obsv1.ProcedureRecord {
	act := FindProcedureRecord(records, TriggerActivation)
	if act == nil || act.State != obsv1.RunFailed || act.Since == nil || !act.Since.Time.After(since.Truncate(time.Second)) {
		return nil
	}
	return act
}
