// The inventory on a real stack before any reservation: every resource of a small site says
// where it stands, each on its own status.
package observatory

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// create makes the observatory objects of a YAML text in ns and lets them go when the test ends.
func create(t *testing.T, ns, text string) { env.CreateObservatoryYAML(t, ns, text) }

// The resources besides the example's that no reservation could run: each refused, or its
// parent missing, or on the shelf.
const outsiders = `kind: Mount
metadata: {name: spare}
spec: {driver: {name: indi_simulator_telescope}}
---
kind: Focuser
metadata: {name: lost}
spec: {opticalTrain: nosuch, driver: {name: indi_simulator_focus}}
---
kind: OpticalTrain
metadata: {name: side}
spec: {telescope: west}
---
kind: Camera
metadata: {name: far}
spec: {opticalTrain: side, driver: {name: indi_simulator_ccd}}
---
kind: Focuser
metadata: {name: bad}
spec: {opticalTrain: east-main, driver: {name: indi_nosuchdriver}}
---
kind: Rotator
metadata: {name: east.side}
spec: {opticalTrain: east-main, driver: {name: indi_simulator_rotator}}
---
kind: SkyQualityMeter
metadata: {name: lab}
spec: {observatory: lab, driver: {name: indi_simulator_weather}}
---
kind: OpticalTrain
metadata: {name: guide}
spec: {telescope: east}
---
kind: Guider
metadata: {name: east}
spec: {telescope: east, opticalTrain: guide}`

func TestEveryResourceSaysWhereItStandsBeforeAnyReservation(t *testing.T) {
	startSystem(t)
	ns := namespace(t, "inv")
	env.ApplyObservatory(t, "examples/observatory.yaml", ns, obsv1.KindReservation)
	create(t, ns, outsiders)

	const found = "True/Found: "
	for _, d := range []struct {
		kind           obsv1.Kind
		name, phase    string
		ready, parent  string
		warningReasons []string
	}{
		{obsv1.KindMount, "east", "Idle", "False/Idle: Not reserved", found + "Telescope east of Observatory lab", nil},
		{obsv1.KindCamera, "east-main", "Idle", "False/Idle: Not reserved", found + "OpticalTrain east-main of Telescope east of Observatory lab", nil},
		{obsv1.KindDome, "lab", "Idle", "False/Idle: Not reserved", found + "Observatory lab", nil},
		// On the shelf.
		{obsv1.KindMount, "spare", "Inventory", "False/Inventory: On the shelf", "True/NoParent: On the shelf", nil},
		// A parent missing, up to the Observatory.
		{obsv1.KindFocuser, "lost", "Error", "False/Error: Missing OpticalTrain nosuch", "False/NotFound: Missing OpticalTrain nosuch",
			[]string{"NotFound", "Error"}},
		{obsv1.KindCamera, "far", "Error", "False/Error: Missing Telescope west, named by OpticalTrain side",
			"False/NotFound: Missing Telescope west, named by OpticalTrain side", []string{"NotFound", "Error"}},
		// Each refusal, in the words a step fails with.
		{obsv1.KindFocuser, "bad", "Error", "False/Error: Focuser/bad: no image of the runner holds the driver indi_nosuchdriver; " +
			"set spec.driver.image to an image that has it on its PATH", found + "OpticalTrain east-main of Telescope east of Observatory lab", []string{"Error"}},
		{obsv1.KindRotator, "east.side", "Error", "False/Error: the Rotator name east.side gives the pod name east.side-rotator, " +
			"which is not a DNS label: rename it so that it holds only lowercase letters, digits and '-'",
			found + "OpticalTrain east-main of Telescope east of Observatory lab", []string{"Error"}},
		{obsv1.KindSkyQualityMeter, "lab", "Error", "False/Error: WeatherStation lab and SkyQualityMeter lab both use the driver " +
			"indi_simulator_weather, which the INDI server lab-observatory can run only once", found + "Observatory lab", []string{"Error"}},
		{obsv1.KindGuider, "east", "Error", "False/Error: Guider east: OpticalTrain guide has no Camera to guide with",
			found + "Telescope east of Observatory lab; OpticalTrain guide of Telescope east of Observatory lab", []string{"Error"}},
	} {
		awaitWhere(t, ns, d.kind, d.name, d.phase, map[string]string{"Ready": d.ready, "ParentFound": d.parent})
		// A Warning per transition into the failure; its words are the condition's at that
		// moment (a parent created a moment later changes the message, not the reason).
		for _, reason := range d.warningReasons {
			awaitWarning(t, ns, d.kind, d.name, reason, "")
		}
	}

	telescopeAndObservatoryListTheirParts(t, ns)
	awaitWhere(t, ns, obsv1.KindOpticalTrain, "east-main", "", map[string]string{"ParentFound": found + "Telescope east of Observatory lab; OpticalTube east"})
	awaitWhere(t, ns, obsv1.KindOpticalTube, "east", "", map[string]string{"ParentFound": found + "Telescope east of Observatory lab"})

	awaitWarning(t, ns, obsv1.KindFocuser, "bad", "Error", "Focuser/bad: no image of the runner holds the driver indi_nosuchdriver; "+
		"set spec.driver.image to an image that has it on its PATH")

	// A fix is seen at once: the image named, the Focuser is Idle.
	_, err := env.Dynamic.Resource(obsv1.KindFocuser.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "bad",
		types.MergePatchType, []byte(`{"spec":{"driver":{"image":"example.com/indi-nosuch:1"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	awaitWhere(t, ns, obsv1.KindFocuser, "bad", "Idle", map[string]string{"Ready": "False/Idle: Not reserved"})
}

// telescopeAndObservatoryListTheirParts: before any reservation, Telescope east is Idle with
// its tube, its two trains (the refused Focuser among them), its Mount and its failing Guider,
// and Observatory lab is Idle with its telescope, its three devices, where it is and its sky,
// which kubectl shows.
func telescopeAndObservatoryListTheirParts(t *testing.T, ns string) {
	t.Helper()
	var tel obsv1.TelescopeStatus
	eventually(t, 30*time.Second, "Telescope east lists its trains", func() (bool, string) {
		tel = obsv1.TelescopeStatus{}
		statusOf(t, ns, obsv1.KindTelescope, "east", &tel)
		return len(tel.Trains) == 2 && tel.Guider != nil && tel.Guider.Reason == "Error", fmt.Sprintf("%+v", tel)
	})
	assert.Equal(t, obsv1.PhaseIdle, tel.Phase)
	assert.Nil(t, tel.Server)
	assert.Nil(t, tel.Reservation)
	assert.Equal(t, []string{"east"}, tel.Tubes)
	require.Len(t, tel.Trains, 2)
	assert.Equal(t, "east-main", tel.Trains[0].Name)
	assert.Contains(t, tel.Trains[0].Devices, obsv1.DeviceSummary{Kind: obsv1.KindFocuser, Name: "bad", Phase: obsv1.DeviceError})
	assert.Equal(t, []obsv1.DeviceSummary{{Kind: obsv1.KindMount, Name: "east", Phase: obsv1.DeviceIdle}}, tel.Devices)
	require.NotNil(t, tel.Guider)
	assert.Equal(t, "Error", tel.Display["guider"])
	var obs obsv1.ObservatoryStatus
	eventually(t, 30*time.Second, "Observatory lab lists its devices", func() (bool, string) {
		obs = obsv1.ObservatoryStatus{}
		statusOf(t, ns, obsv1.KindObservatory, "lab", &obs)
		return len(obs.Devices) == 3, fmt.Sprintf("%+v", obs)
	})
	assert.Equal(t, obsv1.PhaseIdle, obs.Phase)
	assert.Equal(t, []string{"east"}, obs.Telescopes)
	assert.Len(t, obs.Devices, 3)
	assert.Equal(t, "Unknown", obs.Weather)
	assert.Equal(t, "52.2043° N", obs.Display["latitude"])
	assert.Equal(t, "0.1149° E", obs.Display["longitude"])
	require.NotNil(t, obs.Sky, "the site's sky")
	want, err := json.Marshal(kube.SkyStatus(obsv1.Location{Latitude: 52.2043, Longitude: 0.1149}, obs.Sky.Time.Time))
	require.NoError(t, err)
	got, err := json.Marshal(obs.Sky)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got), "the sky over the site")
	out, err := env.Kubectl(context.Background(), "-n", ns, "get", "observatories")
	require.NoError(t, err)
	t.Logf("$ kubectl get observatories\n%s", out)
	for _, col := range []string{"SKY", "SUN", "MOON", "DUSK", "DAWN", obs.Sky.Darkness, obs.Display["sun"]} {
		assert.Contains(t, out, col)
	}
}
