// The words workflows write for people: a reservation's window, summaries and details, the
// locks and persons, and each part of a live plan.
package workflows

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities/people"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func mt(s string) *metav1.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &metav1.Time{Time: t}
}

func TestTheWorkflowsWordsSayWhatEachLifecycleIsAndHowToLook(t *testing.T) {
	if w := PersonWords("ada"); !strings.Contains(w.Details, "kubectl get person ada -o wide") || !strings.HasPrefix(w.Summary, "Person ada: ") {
		t.Errorf("a Person's words %+v", w)
	}
	for _, w := range []contract.Words{TelescopeLockWords("observatory", "east"), SiteTurnsWords("observatory", "lab"), ProbeWords()} {
		if w.Summary == "" || w.Details == "" || strings.Contains(w.Summary, "\n") {
			t.Errorf("words %+v: a one-line summary and details, both", w)
		}
	}
}

func TestAStepsSummaryNamesTheDevicesOnceTheyAreKnown(t *testing.T) {
	devices := []string{"Mount east", "Camera east-main"}
	for _, c := range []struct {
		step    string
		devices []string
		want    string
	}{
		{kube.StepStartDevices, devices, "Mount east, Camera east-main"},
		{kube.StepStartDevices, nil, "the devices of Telescope east"},
		{kube.StepConnect, devices, "Mount east, Camera east-main"},
		{kube.StepDisconnect, devices, "Camera east-main, Mount east"},
		{kube.StepStopDevices, devices, "Camera east-main, Mount east"},
		{kube.StepStartSite, devices, "Observatory lab's INDI server and devices"},
		{kube.StepPowerOn, nil, "Telescope east's INDI server, Switches and power"},
		{kube.StepAbort, devices, "stop exposures and slews on Telescope east"},
	} {
		if got := StepSummary(c.step, "east", "lab", c.devices); got != c.want {
			t.Errorf("StepSummary(%s, %v) = %q, want %q", c.step, c.devices, got, c.want)
		}
	}
	if devices[0] != "Mount east" {
		t.Error("the summary reordered the caller's devices")
	}
	for _, step := range workingSteps {
		if s := StepSummary(step, "east", "lab", nil); s == step || !strings.Contains(s, "east") && !strings.Contains(s, "lab") {
			t.Errorf("step %s has no words of its own: %q", step, s)
		}
	}
}

func TestAReservationsDetailsFollowItsPhaseItsStepAndTheLastStepDone(t *testing.T) {
	stopped := mt("2026-12-01T21:00:19Z")
	ready := obsv1.ReservationStatus{
		Phase:    obsv1.ReservationReady,
		Endpoint: &obsv1.Endpoint{Host: "east-telescope.observatory.svc", Port: 7624},
		Steps: []obsv1.StepRecord{
			{Name: kube.StepConfigure, RunRecord: obsv1.RunRecord{State: obsv1.RunDone, StopTime: mt("2026-12-01T21:00:10Z"), Summary: "Configured Mount east"}},
			{Name: kube.StepStartGuider, RunRecord: obsv1.RunRecord{State: obsv1.RunSkipped, StopTime: stopped, Summary: "no Guider for Telescope east"}},
		},
	}
	running := obsv1.ReservationStatus{
		Phase: obsv1.ReservationActivating, Step: kube.StepConnect,
		Steps: []obsv1.StepRecord{{Name: kube.StepConnect, RunRecord: obsv1.RunRecord{State: obsv1.RunRunning, Summary: "Running"}}},
	}
	queued := obsv1.ReservationStatus{
		Phase: obsv1.ReservationScheduled, Step: kube.StepWait,
		Steps: []obsv1.StepRecord{{Name: kube.StepWait, RunRecord: obsv1.RunRecord{State: obsv1.RunRunning, Summary: "Waiting for Telescope east"}}},
	}
	queued.Conditions = []obsv1.Condition{{Type: obsv1.ConditionConfirmed, Status: metav1.ConditionFalse, Reason: kube.ReasonQueued,
		Message: "Overlaps Reservation tonight of ada (from 2026-12-01 21:00 UTC until it is deleted): it waits for it in the telescope's queue"}}
	for _, c := range []struct {
		st   obsv1.ReservationStatus
		want string
	}{
		{obsv1.ReservationStatus{}, "**—**"},
		{running, "**Activating**, step **Connect**: Running"},
		{queued, "**Scheduled**, step **Wait**: Waiting for Telescope east\n\nBooking: Overlaps Reservation tonight of ada (from 2026-12-01 21:00 UTC until it is deleted): it waits for it in the telescope's queue"},
		{ready, "**Ready**\n\nINDI server: `east-telescope.observatory.svc:7624`\n\nLast: StartGuider Skipped: no Guider for Telescope east"},
	} {
		if got := ReservationDetails(c.st); got != c.want {
			t.Errorf("ReservationDetails = %q, want %q", got, c.want)
		}
	}
}

func TestTheLocksAndPersonsSayWhereTheyStand(t *testing.T) {
	l := &telescopeLock{holder: &TelescopeTicket{Reservation: "tonight"}, queue: []TelescopeTicket{{Reservation: "late"}, {Reservation: "later"}}}
	if got, want := l.details(), "Held by Reservation **tonight**; waiting, in order: late, later"; got != want {
		t.Errorf("lock details %q, want %q", got, want)
	}
	if got := (&telescopeLock{}).details(); got != "Free; nobody waits" {
		t.Errorf("a free lock says %q", got)
	}
	s := SiteState{Server: SiteUp, Tiers: SitePartial, Members: []SiteMember{{Reservation: "tonight", Telescope: "east", Active: true}}}
	if got, want := s.details(), "Server **Up**, its own procedures **Partial**; held: Telescope east (tonight, active)"; got != want {
		t.Errorf("site details %q, want %q", got, want)
	}
	for _, c := range []struct {
		out  people.PersonOutcome
		err  error
		want string
	}{
		{people.PersonOutcome{Reason: "Initials"}, nil, "AvatarReady: **Initials**; picture: `none (initials)`"},
		{people.PersonOutcome{Reason: "Baked", Source: "claim://people/portraits/grace.png"}, nil, "AvatarReady: **Baked**; picture: `claim://people/portraits/grace.png`"},
		{people.PersonOutcome{Gone: true}, nil, "The Person is gone"},
		{people.PersonOutcome{}, errors.New("the API server did not answer"), "The last pass failed; it is tried again in 30s: the API server did not answer"},
	} {
		if got := personDetails(c.out, c.err); got != c.want {
			t.Errorf("personDetails = %q, want %q", got, c.want)
		}
	}
	if got := fewNames([]string{"ada", "grace", "hedy", "joan", "mary"}); got != "ada, grace, hedy and 2 more" {
		t.Errorf("fewNames = %q", got)
	}
}
