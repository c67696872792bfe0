// The dome and mount park locks: what a park report reads, which reports lock which side, and
// when the locks are relayed.
package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/prop"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestAParkReportReadsTheSwitchAndWhetherItMoves(t *testing.T) {
	park := func(state prop.State, on string) prop.Property {
		return prop.Property{Name: MountParkVector, Type: prop.Switch, State: state, Elements: []prop.Element{
			{Name: "PARK", Value: map[bool]string{true: "On", false: "Off"}[on == "PARK"]},
			{Name: "UNPARK", Value: map[bool]string{true: "On", false: "Off"}[on == "UNPARK"]},
		}}
	}
	for name, tc := range map[string]struct {
		p    prop.Property
		ok   bool
		want ParkReport
	}{
		"parked":    {park(prop.Ok, "PARK"), true, ParkReport{Label: "Mount east", Reported: true, Parked: true}},
		"unparking": {park(prop.Busy, "UNPARK"), true, ParkReport{Label: "Mount east", Reported: true, Moving: true}},
		"silent":    {prop.Property{}, false, ParkReport{Label: "Mount east"}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, ParkReportOf("Mount east", tc.p, tc.ok))
		})
	}
}

func TestADomeThatIsSilentOrMovingLocksTheMounts(t *testing.T) {
	for name, tc := range map[string]struct {
		dome ParkReport
		want bool
	}{
		"parked":   {ParkReport{Reported: true, Parked: true}, true},
		"unparked": {ParkReport{Reported: true}, false},
		"moving":   {ParkReport{Reported: true, Moving: true}, true},
		"silent":   {ParkReport{}, true},
	} {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.want, DomeParked(tc.dome)) })
	}
}

func TestOneUnparkedMovingOrSilentMountKeepsTheDomeOpen(t *testing.T) {
	parked := ParkReport{Label: "Mount east", Reported: true, Parked: true}
	for name, tc := range map[string]struct {
		mounts []ParkReport
		want   bool
	}{
		"no mount":                            {nil, true},
		"every mount parked":                  {[]ParkReport{parked, parked}, true},
		"one unparked":                        {[]ParkReport{parked, {Reported: true}}, false},
		"one parking":                         {[]ParkReport{parked, {Reported: true, Parked: true, Moving: true}}, false},
		"one silent":                          {[]ParkReport{parked, {}}, false},
		"one silent after its deactivation":   {[]ParkReport{parked, {Released: true}}, true},
		"one unparked after its deactivation": {[]ParkReport{parked, {Reported: true, Released: true}}, false},
	} {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.want, MountsParked(tc.mounts)) })
	}
}

func TestAReservationHoldsItsMountsUntilItsDeactivationEnds(t *testing.T) {
	st := func(phase obsv1.ReservationPhase, deactivation obsv1.RunState) obsv1.ReservationStatus {
		s := obsv1.ReservationStatus{Phase: phase}
		if deactivation != "" {
			s.Steps = []obsv1.StepRecord{{Name: StepDeactivation, RunRecord: obsv1.RunRecord{State: deactivation}}}
		}
		return s
	}
	for name, tc := range map[string]struct {
		st   obsv1.ReservationStatus
		want bool
	}{
		"scheduled":                {st(obsv1.ReservationScheduled, ""), false},
		"activating":               {st(obsv1.ReservationActivating, ""), true},
		"ready":                    {st(obsv1.ReservationReady, ""), true},
		"failed during activation": {st(obsv1.ReservationFailed, ""), true},
		"in its deactivation":      {st(obsv1.ReservationDeactivating, obsv1.RunRunning), true},
		"after its deactivation":   {st(obsv1.ReservationDeactivating, obsv1.RunDone), false},
		"its deactivation failed":  {st(obsv1.ReservationFailed, obsv1.RunFailed), false},
		"released":                 {st(obsv1.ReservationReleased, obsv1.RunDone), false},
	} {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.want, HoldsMounts(tc.st)) })
	}
}

func TestLocksAreRelayedOnceTheDomeAndEveryHeldMountHaveReported(t *testing.T) {
	dome := ParkReport{Label: "Dome lab", Reported: true}
	east := ParkReport{Label: "Mount east", Reported: true}
	for name, tc := range map[string]struct {
		dome   ParkReport
		mounts []ParkReport
		want   obsv1.Condition
	}{
		"all reported": {dome, []ParkReport{east}, obsv1.Condition{Status: metav1.ConditionTrue, Reason: ReasonRelaying,
			Message: "Relaying the park states of Dome lab and Mount east"}},
		"no mount": {dome, nil, obsv1.Condition{Status: metav1.ConditionTrue, Reason: ReasonRelaying,
			Message: "Relaying the park states of Dome lab and no mount"}},
		"a silent mount": {dome, []ParkReport{east, {Label: "Mount west"}}, obsv1.Condition{Status: metav1.ConditionFalse,
			Reason: ReasonWaiting, Message: "Waiting for the park state of Mount west"}},
		"a silent dome": {ParkReport{Label: "Dome lab"}, []ParkReport{east}, obsv1.Condition{Status: metav1.ConditionFalse,
			Reason: ReasonWaiting, Message: "Waiting for the park state of Dome lab"}},
	} {
		t.Run(name, func(t *testing.T) {
			tc.want.Type = obsv1.ConditionLocksRelayed
			assert.Equal(t, tc.want, LocksRelayedCondition(tc.dome, tc.mounts))
		})
	}
}
