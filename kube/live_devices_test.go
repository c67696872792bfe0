// The live plan of a Ready reservation: which devices join, are refused or leave a server,
// and when a joiner's activation or a leaver's deactivation runs.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestAServerPlansItsJoinersRefusalsAndLeaversFromWhatItLinks(t *testing.T) {
	mount := LiveDevice{Kind: obsv1.KindMount, Name: "east", Service: "east-mount", Driver: "indi_simulator_telescope"}
	focus := LiveDevice{Kind: obsv1.KindFocuser, Name: "east-main", Service: "east-main-focuser", Driver: "indi_simulator_focus"}
	rotator := LiveDevice{Kind: obsv1.KindRotator, Name: "east-main", Service: "east-main-rotator", Driver: "indi_simulator_rotator"}
	second := LiveDevice{Kind: obsv1.KindFocuser, Name: "second", Service: "second-focuser", Driver: "indi_simulator_focus"}
	id := func(d LiveDevice) ResourceID { return ResourceID{Kind: d.Kind, Name: d.Name} }
	dup := Refusal{Device: second, Message: "Focuser east-main and Focuser second both use the driver indi_simulator_focus, " +
		"which the INDI server east-telescope can run only once"}
	for _, tc := range []struct {
		name    string
		want    []LiveDevice
		linked  []string
		running []ResourceID
		plan    LivePlan
	}{
		{"nothing changed", []LiveDevice{mount, focus}, []string{"east-mount", "east-main-focuser"},
			[]ResourceID{id(mount), id(focus)}, LivePlan{}},
		{"a pod deleted is no join: its driver is linked", []LiveDevice{mount, focus}, []string{"east-mount", "east-main-focuser"},
			[]ResourceID{id(mount)}, LivePlan{}},
		{"a device that joins", []LiveDevice{mount, rotator}, []string{"east-mount"},
			[]ResourceID{id(mount)}, LivePlan{Join: []LiveDevice{rotator}}},
		{"a joiner whose driver is held is refused", []LiveDevice{mount, focus, second}, []string{"east-mount", "east-main-focuser"},
			[]ResourceID{id(mount), id(focus)}, LivePlan{Refuse: []Refusal{dup}}},
		{"of two joiners with one driver the first joins", []LiveDevice{mount, focus, second}, []string{"east-mount"},
			[]ResourceID{id(mount)}, LivePlan{Join: []LiveDevice{focus}, Refuse: []Refusal{dup}}},
		{"a device that left, with its pod and Service", []LiveDevice{mount}, []string{"east-mount", "east-main-rotator"},
			[]ResourceID{id(rotator), id(mount), id(rotator)}, LivePlan{Leave: []ResourceID{id(rotator)}}},
		{"one leaves and another takes its driver", []LiveDevice{mount, second}, []string{"east-mount", "east-main-focuser"},
			[]ResourceID{id(mount), id(focus)}, LivePlan{Join: []LiveDevice{second}, Leave: []ResourceID{id(focus)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.plan, PlanLiveDevices("east-telescope", tc.want, tc.linked, tc.running))
		})
	}
}

func TestTheDriversAnnotationReadsBackIntoItsServices(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
	}{
		{"none", nil},
		{"one", []string{"east-mount"}},
		{"several, sorted", []string{"east-main-camera", "east-mount"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.in, LinkedServices(DriversAnnotation(tc.in)))
		})
	}
}

func TestALeaverDeactivatesOnlyWhenItActivatedDuringTheReservation(t *testing.T) {
	began := time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: began.Add(d)} }
	rec := func(trigger string, since *metav1.Time, state obsv1.RunState) obsv1.ProcedureRecord {
		return obsv1.ProcedureRecord{Trigger: trigger, Since: since, RunRecord: obsv1.RunRecord{State: state}}
	}
	for _, tc := range []struct {
		name    string
		records []obsv1.ProcedureRecord
		want    bool
	}{
		{"no activation", nil, false},
		{"activated with the reservation", []obsv1.ProcedureRecord{rec(TriggerActivation, at(0), obsv1.RunDone)}, true},
		{"activated when it joined", []obsv1.ProcedureRecord{rec(TriggerActivation, at(time.Hour), obsv1.RunDone)}, true},
		{"its activation failed", []obsv1.ProcedureRecord{rec(TriggerActivation, at(time.Hour), obsv1.RunFailed)}, true},
		{"activated by an earlier reservation", []obsv1.ProcedureRecord{rec(TriggerActivation, at(-time.Hour), obsv1.RunDone)}, false},
		{"already deactivated", []obsv1.ProcedureRecord{rec(TriggerActivation, at(0), obsv1.RunDone),
			rec(TriggerDeactivation, at(time.Hour), obsv1.RunDone)}, false},
		{"deactivated before it joined again", []obsv1.ProcedureRecord{rec(TriggerActivation, at(2*time.Hour), obsv1.RunDone),
			rec(TriggerDeactivation, at(time.Hour), obsv1.RunDone)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, RanActivation(tc.records, began))
		})
	}
}

func TestAJoinersActivationIsPendingUntilItRunsAndRetriedOnTheDeviceOnlyWhenItFailed(t *testing.T) {
	began := time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	rec := func(d time.Duration, state obsv1.RunState) []obsv1.ProcedureRecord {
		return []obsv1.ProcedureRecord{{Trigger: TriggerActivation, Since: &metav1.Time{Time: began.Add(d)}, RunRecord: obsv1.RunRecord{State: state}}}
	}
	for _, tc := range []struct {
		name             string
		records          []obsv1.ProcedureRecord
		pending, retried bool
	}{
		{"no record", nil, false, false},
		{"marked when it joined", rec(time.Hour, obsv1.RunPending), true, false},
		{"running", rec(time.Hour, obsv1.RunRunning), false, false},
		{"done", rec(time.Hour, obsv1.RunDone), false, false},
		{"failed after it joined", rec(time.Hour, obsv1.RunFailed), false, true},
		{"failed in the reservation's own Activation (retried on the Reservation)", rec(0, obsv1.RunFailed), false, false},
		{"marked in an earlier reservation", rec(-time.Hour, obsv1.RunPending), false, false},
		{"failed in an earlier reservation", rec(-time.Hour, obsv1.RunFailed), false, false},
		{"a deactivation is no activation", []obsv1.ProcedureRecord{{Trigger: TriggerDeactivation,
			Since: &metav1.Time{Time: began.Add(time.Hour)}, RunRecord: obsv1.RunRecord{State: obsv1.RunPending}}}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.pending, ActivationPending(tc.records, began), "pending")
			assert.Equal(t, tc.retried, FailedJoinerActivation(tc.records, began) != nil, "retried")
		})
	}
}
