// The order of a live plan's parts, as a Ready reservation runs them at a device's signal:
// what runs for plans a join, a leave, a heal or a refusal make, and where a failed part
// stops the plan.
package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.temporal.io/sdk/temporal"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// livePartsOf runs a reservation whose one device signal, while Ready, plans plan; started
// is what StartLiveDevices says by server (RestartGuider's under "guider").
func livePartsOf(t *testing.T, plan observatory.LivePlan, started map[string]observatory.LiveStarted) []string {
	t.Helper()
	f := newFakeCluster()
	f.res.Spec.End = &metav1.Time{Time: rt0.Add(3 * time.Hour)}
	f.livePlan, f.liveStarted = plan, started
	env := newReservationEnv(t, f)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: "device"})
	}, time.Hour)
	run(t, env)
	return f.liveParts
}

func TestALivePlanRunsLeaversFirstThenBringUpThenConnectThenActivations(t *testing.T) {
	tel := kube.ResourceID{Kind: obsv1.KindTelescope, Namespace: "observatory", Name: "east"}
	obs := kube.ResourceID{Kind: obsv1.KindObservatory, Namespace: "observatory", Name: "lab"}
	rotator := kube.ResourceID{Kind: obsv1.KindRotator, Namespace: "observatory", Name: "east-main"}
	dome := kube.ResourceID{Kind: obsv1.KindDome, Namespace: "observatory", Name: "lab"}
	cases := []struct {
		name    string
		plan    observatory.LivePlan
		started map[string]observatory.LiveStarted
		want    []string
	}{{
		name: "nothing changed: only the bring-up looks",
		plan: observatory.LivePlan{Servers: []observatory.LiveServer{{Owner: tel, Server: "east-telescope", Run: true}}},
		want: []string{"StartLiveDevices Telescope east"},
	}, {
		name: "a joiner under an Active telescope: started, connected, configured, activated",
		plan: observatory.LivePlan{Servers: []observatory.LiveServer{
			{Owner: tel, Server: "east-telescope", Run: true, Active: true, Join: []kube.ResourceID{rotator}}}},
		started: map[string]observatory.LiveStarted{"east-telescope": {Joined: []string{"Rotator east-main"}}},
		want: []string{"StartLiveDevices Telescope east", "ConnectLiveDevices Telescope east", "Configure",
			"ActivateDevice Rotator east-main"},
	}, {
		name: "a joiner under a telescope not Active: no activation",
		plan: observatory.LivePlan{Servers: []observatory.LiveServer{
			{Owner: tel, Server: "east-telescope", Run: true, Join: []kube.ResourceID{rotator}}}},
		started: map[string]observatory.LiveStarted{"east-telescope": {Joined: []string{"Rotator east-main"}}},
		want:    []string{"StartLiveDevices Telescope east", "ConnectLiveDevices Telescope east", "Configure"},
	}, {
		name: "a Dome leaves the observatory: the site's server connects again, the telescope's is left alone",
		plan: observatory.LivePlan{Servers: []observatory.LiveServer{
			{Owner: obs, Server: "lab-observatory", Leave: []kube.ResourceID{dome}},
			{Owner: tel, Server: "east-telescope", Run: true},
		}},
		want: []string{"LeaveDevice Dome lab", "StartLiveDevices Telescope east", "ConnectLiveDevices Observatory lab"},
	}, {
		name: "a refused joiner and a deleted Guider pod",
		plan: observatory.LivePlan{Guider: true, Servers: []observatory.LiveServer{{Owner: tel, Server: "east-telescope", Run: true,
			Refuse: []kube.Refusal{{Device: kube.LiveDevice{Kind: obsv1.KindRotator, Name: "east-main"}, Message: "held"}}}}},
		started: map[string]observatory.LiveStarted{"guider": {Created: []string{"east-guider"}}},
		want: []string{"RefuseDevices Telescope east", "StartLiveDevices Telescope east", "RestartGuider",
			"ConnectLiveDevices Telescope east", "Configure"},
	}, {
		name: "no servers: nothing runs",
		plan: observatory.LivePlan{Guider: true},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, livePartsOf(t, c.plan, c.started))
		})
	}
}

func TestALivePlanStopsAtThePartThatFailed(t *testing.T) {
	tel := kube.ResourceID{Kind: obsv1.KindTelescope, Namespace: "observatory", Name: "east"}
	f := newFakeCluster()
	f.res.Spec.End = &metav1.Time{Time: rt0.Add(3 * time.Hour)}
	f.livePlan = observatory.LivePlan{Servers: []observatory.LiveServer{{Owner: tel, Server: "east-telescope", Run: true, Active: true,
		Leave: []kube.ResourceID{{Kind: obsv1.KindRotator, Name: "east-main"}}, Join: []kube.ResourceID{{Kind: obsv1.KindFocuser, Name: "east"}}}}}
	f.startFails = temporal.NewNonRetryableApplicationError("the pod did not start", "test", nil)
	env := newReservationEnv(t, f)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: "device"})
	}, time.Hour)
	run(t, env)
	assert.Equal(t, []string{"LeaveDevice Rotator east-main", "StartLiveDevices Telescope east"}, f.liveParts,
		"nothing after the part that failed, and the reservation goes on")
}
