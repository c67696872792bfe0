// The inventory's pure pass over a namespace: each device says where it stands, running ones
// are left to their reservation, and a pass that finds nothing new writes nothing new.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var inventoryTime = time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)

// exampleNamespace is examples/observatory.yaml without its Reservation.
func exampleNamespace() *Namespace {
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "observatory", Generation: 1}
	}
	dev := func(kind obsv1.Kind, name, driver string, parent func(*DeviceRef)) Device {
		d := Device{DeviceRef: device(kind, name, driver), Generation: 1}
		d.Namespace = "observatory"
		parent(&d.DeviceRef)
		return d
	}
	tel := func(d *DeviceRef) { d.Telescope = "east" }
	train := func(d *DeviceRef) { d.OpticalTrain = "east-main" }
	site := func(d *DeviceRef) { d.Observatory = "lab" }
	return &Namespace{
		Name: "observatory",
		Observatories: []obsv1.Observatory{{ObjectMeta: meta("lab"),
			Spec: obsv1.ObservatorySpec{Location: obsv1.Location{Latitude: 52.2043, Longitude: -0.1149, Elevation: 20}}}},
		Telescopes: []obsv1.Telescope{{ObjectMeta: meta("east"), Spec: obsv1.TelescopeSpec{Observatory: "lab"}}},
		Tubes: []obsv1.OpticalTube{{ObjectMeta: meta("east"),
			Spec: obsv1.OpticalTubeSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}, Aperture: 80, FocalLength: 480}}},
		Trains: []obsv1.OpticalTrain{{ObjectMeta: meta("east-main"),
			Spec: obsv1.OpticalTrainSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}, OpticalTube: "east"}}},
		Devices: []Device{
			dev(obsv1.KindDome, "lab", "indi_simulator_dome", site),
			dev(obsv1.KindWeatherStation, "lab", "indi_simulator_weather", site),
			dev(obsv1.KindMount, "east", "indi_simulator_telescope", tel),
			dev(obsv1.KindCamera, "east-main", "indi_simulator_ccd", train),
			dev(obsv1.KindFocuser, "east-main", "indi_simulator_focus", train),
			dev(obsv1.KindFilterWheel, "east-main", "indi_simulator_wheel", train),
			dev(obsv1.KindFlatPanel, "east-main", "indi_simulator_lightpanel", train),
		},
	}
}

// holding is the Reservation tonight of east in phase, having taken the telescope.
func holding(phase obsv1.ReservationPhase) obsv1.Reservation {
	st := ReservationBegun(obsv1.ReservationStatus{})
	st = StepEnded(st, StepWait, obsv1.RunDone, "Took Telescope east", nil, inventoryTime)
	st.Phase = phase
	if phase == obsv1.ReservationReady {
		st.Endpoint = &obsv1.Endpoint{Service: "east-telescope", Host: "east-telescope.observatory.svc", Port: ServerPort}
	}
	if phase == obsv1.ReservationFailed {
		st.Step = StepStartDevices
		st.Conditions = []obsv1.Condition{{Type: obsv1.ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonStepFailed,
			Message: "Failed: Focuser/bad: no image of the runner holds the driver indi_nosuchdriver"}}
	}
	return obsv1.Reservation{ObjectMeta: metav1.ObjectMeta{Name: "tonight", Namespace: "observatory"},
		Spec: obsv1.ReservationSpec{Telescope: "east", Holder: "ada"}, Status: st}
}

func findDevice(n *Namespace, kind obsv1.Kind, name string) *Device {
	for i := range n.Devices {
		if n.Devices[i].Kind == kind && n.Devices[i].Name == name {
			return &n.Devices[i]
		}
	}
	return nil
}

// where is a device's phase and Ready reason and message as the inventory composes them.
func where(t *testing.T, n *Namespace, kind obsv1.Kind, name string) (obsv1.DevicePhase, string, string) {
	t.Helper()
	d := findDevice(n, kind, name)
	require.NotNil(t, d, "%s %s", kind, name)
	st := NewInventory(n).DeviceStatus(*d, inventoryTime)
	ready := ConditionOf(st.Conditions, obsv1.ConditionReady)
	require.NotNil(t, ready)
	return st.Phase, ready.Reason, ready.Message
}

func parentOf(conds []obsv1.Condition) obsv1.Condition {
	if c := ConditionOf(conds, obsv1.ConditionParentFound); c != nil {
		return *c
	}
	return obsv1.Condition{}
}

func TestEveryDeviceSaysWhereItStandsFromWhatTheNamespaceHolds(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		change               func(n *Namespace)
		kind                 obsv1.Kind
		device               string
		phase                obsv1.DevicePhase
		reason, message      string
		parentOK             bool
		parentReason, parent string
	}{
		{"installed, nothing reserved", nil, obsv1.KindMount, "east", obsv1.DeviceIdle, "Idle", "Not reserved",
			true, "Found", "Telescope east of Observatory lab"},
		{"on a train", nil, obsv1.KindCamera, "east-main", obsv1.DeviceIdle, "Idle", "Not reserved",
			true, "Found", "OpticalTrain east-main of Telescope east of Observatory lab"},
		{"on the shelf", func(n *Namespace) { findDevice(n, obsv1.KindMount, "east").Telescope = "" },
			obsv1.KindMount, "east", obsv1.DeviceInventory, "Inventory", "On the shelf", true, "NoParent", "On the shelf"},
		{"on a train on the shelf", func(n *Namespace) { n.Trains[0].Spec.Telescope = "" },
			obsv1.KindFocuser, "east-main", obsv1.DeviceInventory, "Inventory", "On the shelf",
			true, "Found", "OpticalTrain east-main (on the shelf)"},
		{"its Telescope missing", func(n *Namespace) { findDevice(n, obsv1.KindMount, "east").Telescope = "west" },
			obsv1.KindMount, "east", obsv1.DeviceError, "Error", "Missing Telescope west", false, "NotFound", "Missing Telescope west"},
		{"its train's Telescope missing", func(n *Namespace) { n.Trains[0].Spec.Telescope = "west" },
			obsv1.KindCamera, "east-main", obsv1.DeviceError, "Error", "Missing Telescope west, named by OpticalTrain east-main",
			false, "NotFound", "Missing Telescope west, named by OpticalTrain east-main"},
		{"the Observatory missing, up the way", func(n *Namespace) { n.Observatories = nil },
			obsv1.KindFlatPanel, "east-main", obsv1.DeviceError, "Error", "Missing Observatory lab, named by Telescope east",
			false, "NotFound", "Missing Observatory lab, named by Telescope east"},
		{"a driver no image holds", func(n *Namespace) {
			findDevice(n, obsv1.KindFocuser, "east-main").Spec.Driver.Name = "indi_nosuchdriver"
		},
			obsv1.KindFocuser, "east-main", obsv1.DeviceError, "Error",
			"Focuser/east-main: no image of the runner holds the driver indi_nosuchdriver; set spec.driver.image to an image that has it on its PATH",
			true, "Found", "OpticalTrain east-main of Telescope east of Observatory lab"},
		{"a driver another device of its server holds", func(n *Namespace) {
			n.Devices = append(n.Devices, Device{DeviceRef: DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindFocuser, Name: "second"},
				Spec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_focus"}}, OpticalTrain: "east-main"}, Generation: 1})
		}, obsv1.KindFocuser, "second", obsv1.DeviceError, "Error",
			"Focuser east-main and Focuser second both use the driver indi_simulator_focus, which the INDI server east-telescope can run only once",
			true, "Found", "OpticalTrain east-main of Telescope east of Observatory lab"},
		{"a site device while its telescope activates", func(n *Namespace) { n.Reservations = []obsv1.Reservation{holding(obsv1.ReservationActivating)} },
			obsv1.KindDome, "lab", obsv1.DeviceStarting, "Starting", "Waiting for activation to create pod lab-dome",
			true, "Found", "Observatory lab"},
		{"not started by a Failed reservation", func(n *Namespace) { n.Reservations = []obsv1.Reservation{holding(obsv1.ReservationFailed)} },
			obsv1.KindMount, "east", obsv1.DeviceIdle, "Idle", "Not started by Reservation tonight, which is Failed",
			true, "Found", "Telescope east of Observatory lab"},
		{"a Released reservation holds nothing", func(n *Namespace) {
			r := holding(obsv1.ReservationReleased)
			n.Reservations = []obsv1.Reservation{r}
		}, obsv1.KindMount, "east", obsv1.DeviceIdle, "Idle", "Not reserved", true, "Found", "Telescope east of Observatory lab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := exampleNamespace()
			if tc.change != nil {
				tc.change(n)
			}
			phase, reason, msg := where(t, n, tc.kind, tc.device)
			assert.Equal(t, tc.phase, phase)
			assert.Equal(t, tc.reason, reason)
			assert.Equal(t, tc.message, msg)
			st := NewInventory(n).DeviceStatus(*findDevice(n, tc.kind, tc.device), inventoryTime)
			parent := parentOf(st.Conditions)
			assert.Equal(t, tc.parentOK, parent.Status == metav1.ConditionTrue)
			assert.Equal(t, tc.parentReason, parent.Reason)
			assert.Equal(t, tc.parent, parent.Message)
			assert.Equal(t, int64(1), st.ObservedGeneration)
		})
	}
}

func TestTheInventoryLeavesARunningDeviceToItsReservation(t *testing.T) {
	n := exampleNamespace()
	n.Reservations = []obsv1.Reservation{holding(obsv1.ReservationReady)}
	mount := findDevice(n, obsv1.KindMount, "east")
	mount.Finalizers = []string{FinalizerDeactivate}
	running := obsv1.DeviceStatus{
		Phase: obsv1.DeviceConnected, IndiDevice: "Telescope Simulator", Driver: "indi_simulator_telescope",
		Image: SimulatorImage, Pod: "east-mount", Node: "n1",
		Readings:   map[string]string{obsv1.ReadingState: "Tracking"},
		Display:    map[string]string{obsv1.ReadingState: "Tracking"},
		Properties: []obsv1.Property{{Name: "CONNECTION"}},
		Procedures: []obsv1.ProcedureRecord{{Trigger: TriggerActivation, RunRecord: obsv1.RunRecord{State: obsv1.RunDone}}},
	}
	running.Conditions = []obsv1.Condition{
		{Type: obsv1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Connected", Message: "Connected as Telescope Simulator"},
		{Type: obsv1.ConditionParked, Status: metav1.ConditionFalse, Reason: "Unparked", Message: "Mount east is unparked"},
	}
	mount.Status = running
	st := NewInventory(n).DeviceStatus(*mount, inventoryTime)
	want := *running.DeepCopy()
	want.ObservedGeneration = 1
	want.Conditions = append(want.Conditions, obsv1.Condition{Type: obsv1.ConditionParentFound, Status: metav1.ConditionTrue,
		ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(inventoryTime), Reason: "Found", Message: "Telescope east of Observatory lab"})
	assert.Equal(t, want, st, "every field the reservation writes stays as it wrote it")
	assert.Equal(t, []string{obsv1.ConditionParentFound}, DeviceConditionTypes(*mount))
}

func TestAPassThatFindsNothingNewComposesTheStatusTheObjectHolds(t *testing.T) {
	n := exampleNamespace()
	n.Reservations = []obsv1.Reservation{holding(obsv1.ReservationReady)}
	n.Pods = []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "east-telescope"}, Spec: corev1.PodSpec{NodeName: "n1"}}}
	inv := NewInventory(n)
	later := inventoryTime.Add(time.Hour)
	for i := range n.Devices {
		d := n.Devices[i]
		first := inv.DeviceStatus(d, inventoryTime)
		d.Status = first
		assert.Equal(t, first, inv.DeviceStatus(d, later), "%s %s", d.Kind, d.Name)
	}
	tel := n.Telescopes[0]
	tel.Status = inv.TelescopeStatus(tel, inventoryTime)
	assert.Equal(t, tel.Status, inv.TelescopeStatus(tel, later))
	obs := n.Observatories[0]
	obs.Status = inv.ObservatoryStatus(obs, inventoryTime)
	assert.Equal(t, obs.Status, inv.ObservatoryStatus(obs, inventoryTime.Add(SkyEvery-time.Second)), "the same sky within its few minutes")
	moved := inv.ObservatoryStatus(obs, later)
	assert.NotEqual(t, obs.Status.Sky, moved.Sky, "an hour later, the sky has moved")
	for _, st := range []*obsv1.ObservatoryStatus{&obs.Status, &moved} {
		st.Sky = nil
		for _, k := range []string{DisplaySun, DisplayMoon, DisplayDusk, DisplayDawn} {
			delete(st.Display, k)
		}
	}
	assert.Equal(t, obs.Status, moved, "and nothing else")
}

func TestASiteDeviceIsRefusedInTheSitesOwnConnectOrder(t *testing.T) {
	n := exampleNamespace()
	sqm := Device{DeviceRef: device(obsv1.KindSkyQualityMeter, "lab", "indi_simulator_weather"), Generation: 1}
	sqm.Observatory = "lab"
	n.Devices = append(n.Devices, sqm)
	phase, _, msg := where(t, n, obsv1.KindSkyQualityMeter, "lab")
	assert.Equal(t, obsv1.DeviceError, phase, "the WeatherStation connects first on lab-observatory")
	assert.Equal(t, "WeatherStation lab and SkyQualityMeter lab both use the driver indi_simulator_weather, "+
		"which the INDI server lab-observatory can run only once", msg)
	phase, _, _ = where(t, n, obsv1.KindWeatherStation, "lab")
	assert.Equal(t, obsv1.DeviceIdle, phase)
}
