// A device's phase from its pod and its state: Starting with its pod, Idle once stopped, and
// Error with the step's words when it is refused.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/prop"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestADeviceIsStartingWithItsPodAndIdleWithoutItsStateOnceStopped(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	parent := obsv1.Condition{Type: obsv1.ConditionParentFound, Status: metav1.ConditionTrue, Reason: ReasonFound}
	connectedDome := ObservedDeviceStatus(obsv1.DeviceStatus{StatusBase: obsv1.StatusBase{Conditions: []obsv1.Condition{parent}},
		Procedures: []obsv1.ProcedureRecord{{Trigger: TriggerActivation}}, Pod: "lab-dome", Node: "n1"}, obsv1.KindDome, "Dome Simulator",
		ObserveDevice(obsv1.KindDome, "lab", []prop.Property{connected, sw("DOME_PARK", prop.Ok, "PARK", "PARK", "UNPARK")}), 1, t0)
	require.Equal(t, obsv1.DeviceConnected, connectedDome.Phase)
	require.NotEmpty(t, connectedDome.Readings)

	run := DeviceRun{Pod: "lab-dome", Driver: "indi_simulator_dome", Image: SimulatorImage}
	for name, tc := range map[string]struct {
		phase, want obsv1.DevicePhase
		message     string
	}{
		"never run":                 {"", obsv1.DeviceStarting, "Creating pod lab-dome"},
		"idle since the last night": {obsv1.DeviceIdle, obsv1.DeviceStarting, "Creating pod lab-dome"},
		"in error":                  {obsv1.DeviceError, obsv1.DeviceStarting, "Creating pod lab-dome"},
		"connected (pod created again while Ready)": {obsv1.DeviceConnected, obsv1.DeviceConnected, ""},
		"connecting": {obsv1.DeviceConnecting, obsv1.DeviceConnecting, ""},
	} {
		t.Run(name, func(t *testing.T) {
			st := StartingDeviceStatus(obsv1.DeviceStatus{Phase: tc.phase}, run, 1, t0)
			assert.Equal(t, tc.want, st.Phase)
			assert.Equal(t, "lab-dome", st.Pod)
			assert.Equal(t, SimulatorImage, st.Image)
			if tc.message != "" {
				assert.Equal(t, tc.message, ConditionOf(st.Conditions, obsv1.ConditionReady).Message)
			}
		})
	}
	run.Node = "node-1"
	scheduled := StartingDeviceStatus(obsv1.DeviceStatus{}, run, 1, t0)
	assert.Equal(t, "node-1", scheduled.Node)
	assert.Equal(t, "Pod lab-dome runs on node-1; waiting for the driver indi_simulator_dome",
		ConditionOf(scheduled.Conditions, obsv1.ConditionReady).Message)

	leaving := DisconnectingDeviceStatus(connectedDome, obsv1.KindDome, 1, t0)
	assert.Equal(t, obsv1.DeviceDisconnecting, leaving.Phase)
	assert.Nil(t, ConditionOf(leaving.Conditions, obsv1.ConditionParked), "state conditions exist only while Connected")
	assert.Equal(t, "Disconnecting Dome Simulator", ConditionOf(leaving.Conditions, obsv1.ConditionReady).Message)

	dome := DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindDome, Name: "lab"}, Observatory: "lab"}
	stopped := StoppedDeviceStatus(connectedDome, dome, 1, t0)
	assert.Equal(t, obsv1.DeviceIdle, stopped.Phase)
	assert.Equal(t, []obsv1.Condition{parent, {Type: obsv1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: 1,
		LastTransitionTime: metav1.NewTime(t0), Reason: "Idle", Message: "Not reserved"}}, stopped.Conditions,
		"ParentFound stays; Parked goes; Ready says Idle")
	assert.Empty(t, stopped.Readings)
	assert.Empty(t, stopped.Display)
	assert.Empty(t, stopped.Properties)
	assert.Empty(t, stopped.Pod+stopped.Node+stopped.Driver+stopped.Image, "nothing runs it")
	assert.Equal(t, "Dome Simulator", stopped.IndiDevice)
	assert.Len(t, stopped.Procedures, 1, "the records stay")
	dome.Observatory = ""
	shelved := StoppedDeviceStatus(connectedDome, dome, 1, t0)
	assert.Equal(t, obsv1.DeviceInventory, shelved.Phase, "back on the shelf")
	assert.Equal(t, "On the shelf", ConditionOf(shelved.Conditions, obsv1.ConditionReady).Message)
	assert.Equal(t, obsv1.DeviceConnected, connectedDome.Phase, "the input is not changed")
}

func TestARefusedDeviceIsInErrorWithTheStepsWords(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	st := RefusedDeviceStatus(obsv1.DeviceStatus{Phase: obsv1.DeviceIdle}, "Focuser/bad: no image", 3, t0)
	assert.Equal(t, obsv1.DeviceError, st.Phase)
	assert.Equal(t, []obsv1.Condition{{Type: obsv1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: 3,
		LastTransitionTime: metav1.NewTime(t0), Reason: "Error", Message: "Focuser/bad: no image"}}, st.Conditions)
	assert.Equal(t, st, RefusedDeviceStatus(st, "Focuser/bad: no image", 3, t0.Add(time.Hour)), "the same refusal again changes nothing")
}
