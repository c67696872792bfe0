// The inventory's status of the site's structure: a Telescope follows its holder and lists its
// parts, an Observatory sums up its site, a Guider that cannot guide says why.
package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func readyOf(conds []obsv1.Condition) obsv1.Condition {
	if c := ConditionOf(conds, obsv1.ConditionReady); c != nil {
		return *c
	}
	return obsv1.Condition{}
}

func TestATelescopeFollowsTheReservationThatHoldsIt(t *testing.T) {
	serverPod := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "east-telescope"}, Spec: corev1.PodSpec{NodeName: "node-1"}}
	for _, tc := range []struct {
		name     string
		holder   obsv1.ReservationPhase // "" for none
		pod      bool
		phase    obsv1.ActivationPhase
		ready    metav1.ConditionStatus
		reason   string
		message  string
		noParent bool
	}{
		{"not reserved", "", false, obsv1.PhaseIdle, metav1.ConditionFalse, "Idle", "Not reserved", false},
		{"activating", obsv1.ReservationActivating, true, obsv1.PhaseActivating, metav1.ConditionFalse, "Activating",
			"Activating for Reservation tonight (ada)", false},
		{"ready", obsv1.ReservationReady, true, obsv1.PhaseReady, metav1.ConditionTrue, "Ready",
			"Ready at east-telescope.observatory.svc:7624 for Reservation tonight (ada)", false},
		{"deactivating", obsv1.ReservationDeactivating, true, obsv1.PhaseDeactivating, metav1.ConditionFalse, "Deactivating",
			"Deactivating for Reservation tonight (ada)", false},
		{"failed", obsv1.ReservationFailed, true, obsv1.PhaseError, metav1.ConditionFalse, "Error",
			"Reservation tonight failed at StartDevices: Failed: Focuser/bad: no image of the runner holds the driver indi_nosuchdriver", false},
		{"released", obsv1.ReservationReleased, false, obsv1.PhaseIdle, metav1.ConditionFalse, "Idle", "Not reserved", false},
		{"its Observatory missing", "", false, obsv1.PhaseError, metav1.ConditionFalse, "Error", "Missing Observatory lab", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := exampleNamespace()
			if tc.holder != "" {
				n.Reservations = []obsv1.Reservation{holding(tc.holder)}
			}
			if tc.pod {
				n.Pods = []corev1.Pod{serverPod}
			}
			if tc.noParent {
				n.Observatories = nil
			}
			st := NewInventory(n).TelescopeStatus(n.Telescopes[0], inventoryTime)
			assert.Equal(t, tc.phase, st.Phase)
			ready := readyOf(st.Conditions)
			assert.Equal(t, tc.ready, ready.Status)
			assert.Equal(t, tc.reason, ready.Reason)
			assert.Equal(t, tc.message, ready.Message)
			assert.Equal(t, !tc.noParent, parentOf(st.Conditions).Status == metav1.ConditionTrue)
			if tc.pod {
				assert.Equal(t, &obsv1.Server{Endpoint: obsv1.Endpoint{Service: "east-telescope", Host: "east-telescope.observatory.svc",
					Port: 7624}, Pod: "east-telescope", Node: "node-1"}, st.Server)
			} else {
				assert.Nil(t, st.Server)
			}
			if tc.holder != "" && tc.holder != obsv1.ReservationReleased {
				assert.Equal(t, &obsv1.Holding{Name: "tonight", Holder: "ada"}, st.Reservation)
			} else {
				assert.Nil(t, st.Reservation)
			}
		})
	}
}

func TestATelescopeListsItsTubesTrainsDevicesAndGuider(t *testing.T) {
	n := exampleNamespace()
	n.Guiders = []obsv1.Guider{{ObjectMeta: metav1.ObjectMeta{Name: "east", Generation: 1},
		Spec: obsv1.GuiderSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "east-main"}}}}
	mount := findDevice(n, obsv1.KindMount, "east")
	mount.Finalizers, mount.Status.Phase = []string{FinalizerDeactivate}, obsv1.DeviceConnected
	st := NewInventory(n).TelescopeStatus(n.Telescopes[0], inventoryTime)
	assert.Equal(t, []string{"east"}, st.Tubes)
	idle := func(kind obsv1.Kind) obsv1.DeviceSummary {
		return obsv1.DeviceSummary{Kind: kind, Name: "east-main", Phase: obsv1.DeviceIdle}
	}
	assert.Equal(t, []obsv1.TrainSummary{{Name: "east-main", Devices: []obsv1.DeviceSummary{
		idle(obsv1.KindFocuser), idle(obsv1.KindFilterWheel), idle(obsv1.KindFlatPanel), idle(obsv1.KindCamera)}}}, st.Trains,
		"in connect order")
	assert.Equal(t, []obsv1.DeviceSummary{{Kind: obsv1.KindMount, Name: "east", Phase: obsv1.DeviceConnected}}, st.Devices,
		"a running device as its reservation wrote it")
	assert.Equal(t, &obsv1.GuiderSummary{Name: "east", Phase: "Idle", Reason: "Idle"}, st.Guider)
	assert.Equal(t, map[string]string{"guider": "Idle"}, st.Display)

	// While PHD2 guides: its Ready and state, as the reservation writes them.
	n.Guiders[0].Status = obsv1.GuiderStatus{Pod: "east-guider", Phase: "Running", State: obsv1.GuiderGuiding,
		StatusBase: obsv1.StatusBase{Conditions: []obsv1.Condition{ReadyCondition(ReasonReady, "PHD2 connected its camera and mount")}}}
	st = NewInventory(n).TelescopeStatus(n.Telescopes[0], inventoryTime)
	assert.Equal(t, &obsv1.GuiderSummary{Name: "east", Ready: true, Reason: "Ready", Phase: "Running", State: obsv1.GuiderGuiding}, st.Guider)
	assert.Equal(t, "Ready, Guiding", st.Display["guider"])
}

func TestAnObservatorySumsUpItsSite(t *testing.T) {
	n := exampleNamespace()
	n.Telescopes = append(n.Telescopes, obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: "west"}, Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	st := NewInventory(n).ObservatoryStatus(n.Observatories[0], inventoryTime)
	assert.Equal(t, obsv1.PhaseIdle, st.Phase)
	assert.Equal(t, []string{"east", "west"}, st.Telescopes)
	assert.Equal(t, []obsv1.DeviceSummary{{Kind: obsv1.KindDome, Name: "lab", Phase: obsv1.DeviceIdle},
		{Kind: obsv1.KindWeatherStation, Name: "lab", Phase: obsv1.DeviceIdle}}, st.Devices)
	assert.Nil(t, st.Reservations)
	assert.Nil(t, st.Server)
	assert.Equal(t, "Unknown", st.Weather, "no station reports before a reservation")
	assert.Equal(t, "52.2043° N", st.Display["latitude"])
	assert.Equal(t, "0.1149° W", st.Display["longitude"])
	require.NotNil(t, st.Sky, "the site's sky")
	assert.Equal(t, SkyDisplay(*st.Sky)["sun"], st.Display["sun"], "in words too")

	second := holding(obsv1.ReservationActivating)
	second.Name, second.Spec.Telescope = "later", "west"
	n.Reservations = []obsv1.Reservation{holding(obsv1.ReservationReady), second}
	// The site's server is its StatefulSet's pod.
	n.Pods = []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "lab-observatory-0", Labels: map[string]string{
		LabelRole: string(RoleServer), LabelServer: "lab-observatory"}}, Spec: corev1.PodSpec{NodeName: "node-1"}}}
	n.Observatories[0].Status.Weather = "Safe"
	st = NewInventory(n).ObservatoryStatus(n.Observatories[0], inventoryTime)
	assert.Equal(t, obsv1.PhaseReady, st.Phase, "Ready while one of its telescopes is")
	assert.Equal(t, []string{"later", "tonight"}, st.Reservations)
	require.NotNil(t, st.Server)
	assert.Equal(t, "lab-observatory.observatory.svc", st.Server.Host)
	assert.Equal(t, "Safe", st.Weather, "the observer's while the site runs")
}

func TestAGuiderThatCannotGuideSaysWhy(t *testing.T) {
	guider := func(train string, pulses obsv1.GuidePulses) obsv1.Guider {
		return obsv1.Guider{ObjectMeta: metav1.ObjectMeta{Name: "g", Generation: 1},
			Spec: obsv1.GuiderSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
				OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: train}, Pulses: pulses}}
	}
	for _, tc := range []struct {
		name    string
		change  func(n *Namespace)
		guider  obsv1.Guider
		phase   string
		message string
	}{
		{"idle", nil, guider("east-main", obsv1.PulsesMount), "Idle", "Not reserved"},
		{"waiting for its reservation", func(n *Namespace) { n.Reservations = []obsv1.Reservation{holding(obsv1.ReservationActivating)} },
			guider("east-main", obsv1.PulsesMount), "Starting", "Waiting for activation to start PHD2"},
		{"no camera on its train", func(n *Namespace) {
			n.Trains = append(n.Trains, obsv1.OpticalTrain{ObjectMeta: metav1.ObjectMeta{Name: "guide"},
				Spec: obsv1.OpticalTrainSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}}})
		}, guider("guide", obsv1.PulsesMount), "Error", "Guider g: OpticalTrain guide has no Camera to guide with"},
		{"no mount for its pulses", func(n *Namespace) { findDevice(n, obsv1.KindMount, "east").Telescope = "" },
			guider("east-main", obsv1.PulsesMount), "Error", "Guider g sends pulses to the Mount, but Telescope east has no Mount"},
		{"on-camera pulses need no mount", func(n *Namespace) { findDevice(n, obsv1.KindMount, "east").Telescope = "" },
			guider("east-main", obsv1.PulsesCamera), "Idle", "Not reserved"},
		{"its train missing", nil, guider("nosuch", obsv1.PulsesMount), "Error", "Missing OpticalTrain nosuch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := exampleNamespace()
			if tc.change != nil {
				tc.change(n)
			}
			n.Guiders = []obsv1.Guider{tc.guider}
			st := NewInventory(n).GuiderStatus(n.Guiders[0], inventoryTime)
			assert.Equal(t, tc.phase, st.Phase)
			assert.Equal(t, tc.message, readyOf(st.Conditions).Message)
		})
	}
	running := guider("east-main", obsv1.PulsesMount)
	running.Status = obsv1.GuiderStatus{Pod: "g-guider", Phase: "Running"}
	n := exampleNamespace()
	st := NewInventory(n).GuiderStatus(running, inventoryTime)
	assert.Equal(t, "Running", st.Phase, "a Guider whose pod runs is its reservation's")
	assert.Nil(t, ConditionOf(st.Conditions, obsv1.ConditionReady))
	assert.Equal(t, []string{obsv1.ConditionParentFound}, GuiderConditionTypes(running))
}

func TestTubesAndTrainsNameTheirWayToTheObservatory(t *testing.T) {
	n := exampleNamespace()
	n.Trains = append(n.Trains, obsv1.OpticalTrain{ObjectMeta: metav1.ObjectMeta{Name: "side"},
		Spec: obsv1.OpticalTrainSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}, OpticalTube: "nosuch"}})
	n.Tubes = append(n.Tubes, obsv1.OpticalTube{ObjectMeta: metav1.ObjectMeta{Name: "spare"}})
	inv := NewInventory(n)
	assert.Equal(t, "Telescope east of Observatory lab", parentOf(inv.TubeStatus(n.Tubes[0], inventoryTime).Conditions).Message)
	assert.Equal(t, "NoParent", parentOf(inv.TubeStatus(n.Tubes[1], inventoryTime).Conditions).Reason)
	assert.Equal(t, "Telescope east of Observatory lab; OpticalTube east", parentOf(inv.TrainStatus(n.Trains[0], inventoryTime).Conditions).Message)
	missing := parentOf(inv.TrainStatus(n.Trains[1], inventoryTime).Conditions)
	assert.Equal(t, metav1.ConditionFalse, missing.Status)
	assert.Equal(t, "Missing OpticalTube nosuch", missing.Message)
	assert.Equal(t, []Event{{Type: corev1.EventTypeWarning, Reason: "NotFound", Message: "Missing OpticalTube nosuch"}},
		ConditionEvents(nil, []obsv1.Condition{missing}, obsv1.ConditionParentFound))
}
