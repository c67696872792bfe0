// The order of a live plan's parts (RunLivePlan), without a server: what runs, and what it
// is told, for plans a join, a leave, a heal or a refusal make.
package observatory

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestALivePlanRunsLeaversFirstThenBringUpThenConnectThenActivations(t *testing.T) {
	tel := kube.ResourceID{Kind: obsv1.KindTelescope, Namespace: "ns", Name: "east"}
	obs := kube.ResourceID{Kind: obsv1.KindObservatory, Namespace: "ns", Name: "lab"}
	rotator := kube.ResourceID{Kind: obsv1.KindRotator, Namespace: "ns", Name: "east-main"}
	dome := kube.ResourceID{Kind: obsv1.KindDome, Namespace: "ns", Name: "lab"}
	cases := []struct {
		name    string
		plan    LivePlan
		started map[string]LiveStarted // by server
		want    []string
		result  LiveResult
	}{{
		name: "nothing changed: only the bring-up looks",
		plan: LivePlan{Servers: []LiveServer{{Owner: tel, Server: "east-telescope", Run: true}}},
		want: []string{"StartLiveDevices east-telescope"},
	}, {
		name:    "a joiner under an Active telescope: started, connected, configured, activated",
		plan:    LivePlan{Servers: []LiveServer{{Owner: tel, Server: "east-telescope", Run: true, Active: true, Join: []kube.ResourceID{rotator}}}},
		started: map[string]LiveStarted{"east-telescope": {Joined: []string{"Rotator east-main"}}},
		want: []string{"StartLiveDevices east-telescope", "ConnectLiveDevices east-telescope", "Configure east-telescope",
			"ActivateDevice Rotator east-main"},
		result: LiveResult{Joined: []string{"Rotator east-main"}},
	}, {
		name:    "a joiner under a telescope not Active: no activation",
		plan:    LivePlan{Servers: []LiveServer{{Owner: tel, Server: "east-telescope", Run: true, Join: []kube.ResourceID{rotator}}}},
		started: map[string]LiveStarted{"east-telescope": {Joined: []string{"Rotator east-main"}}},
		want:    []string{"StartLiveDevices east-telescope", "ConnectLiveDevices east-telescope", "Configure east-telescope"},
		result:  LiveResult{Joined: []string{"Rotator east-main"}},
	}, {
		name: "a Dome leaves the observatory: the site's server connects again, the telescope's is left alone",
		plan: LivePlan{Servers: []LiveServer{
			{Owner: obs, Server: "lab-observatory", Leave: []kube.ResourceID{dome}},
			{Owner: tel, Server: "east-telescope", Run: true},
		}},
		want:   []string{"LeaveDevice Dome lab", "StartLiveDevices east-telescope", "ConnectLiveDevices lab-observatory"},
		result: LiveResult{Left: []string{"Dome lab"}},
	}, {
		name: "a refused joiner and a deleted Guider pod",
		plan: LivePlan{Guider: true, Servers: []LiveServer{{Owner: tel, Server: "east-telescope", Run: true,
			Refuse: []kube.Refusal{{Device: kube.LiveDevice{Kind: obsv1.KindRotator, Name: "east-main"}, Message: "held"}}}}},
		started: map[string]LiveStarted{"guider": {Created: []string{"east-guider"}}},
		want: []string{"RefuseDevices east-telescope", "StartLiveDevices east-telescope", "RestartGuider east-telescope",
			"ConnectLiveDevices east-telescope", "Configure east-telescope"},
		result: LiveResult{Refused: []string{"Rotator east-main"}, Created: []string{"east-guider"}},
	}, {
		name: "no servers: nothing runs",
		plan: LivePlan{Guider: true},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ran []string
			got, err := RunLivePlan(c.plan, LiveInput{}, func(step LiveStep, in LiveServerInput) (LiveStarted, error) {
				what := in.Server.Server
				if in.Device.Name != "" {
					what = string(in.Device.Kind) + " " + in.Device.Name
				}
				ran = append(ran, string(step)+" "+what)
				if step == LiveGuider {
					return c.started["guider"], nil
				}
				if step == LiveStart {
					return c.started[in.Server.Server], nil
				}
				return LiveStarted{}, nil
			})
			assert.NoError(t, err)
			assert.Equal(t, c.want, ran)
			assert.Equal(t, c.result, got)
		})
	}
}

func TestALivePlanStopsAtThePartThatFailed(t *testing.T) {
	tel := kube.ResourceID{Kind: obsv1.KindTelescope, Namespace: "ns", Name: "east"}
	plan := LivePlan{Servers: []LiveServer{{Owner: tel, Server: "east-telescope", Run: true, Active: true,
		Leave: []kube.ResourceID{{Kind: obsv1.KindRotator, Name: "east-main"}}, Join: []kube.ResourceID{{Kind: obsv1.KindFocuser, Name: "east"}}}}}
	var ran []LiveStep
	_, err := RunLivePlan(plan, LiveInput{}, func(step LiveStep, _ LiveServerInput) (LiveStarted, error) {
		ran = append(ran, step)
		if step == LiveStart {
			return LiveStarted{}, errors.New("the pod did not start")
		}
		return LiveStarted{}, nil
	})
	assert.EqualError(t, err, "the pod did not start")
	assert.Equal(t, []LiveStep{LiveLeave, LiveStart}, ran, "nothing after the part that failed")
}
