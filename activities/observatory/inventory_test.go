// Integration tests of the inventory's pass against the real API server: what it writes is
// read back, a pass that finds nothing new writes nothing and posts nothing, and the fields a
// reservation writes, written while passes run, stay as it wrote them.
package observatory

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func eventCount(t *testing.T, ns string) int {
	t.Helper()
	list, err := env.Kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.Set{"source": kube.ObservatoryComponent}.String()})
	require.NoError(t, err)
	n := 0
	for _, e := range list.Items {
		n += int(e.Count)
	}
	return n
}

func TestAPassGivesEveryResourceOfTheExampleItsStatusAndASecondWritesNothing(t *testing.T) {
	ns := observatoryNamespace(t, "inv-example-"+utilrand.String(5))
	applyExample(t, ns)
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: "spare"},
		Spec: obsv1.MountSpec{DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}}})
	createObject(t, obsv1.KindFocuser, ns, &obsv1.Focuser{ObjectMeta: metav1.ObjectMeta{Name: "lost"},
		Spec: obsv1.FocuserSpec{OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "nosuch"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_focus"}}}})
	a := newActivities()
	// One clock for both passes: the Observatory's sky moves every few minutes, and a pass
	// in the next ones would rightly write it.
	now := time.Now()
	a.Clients.Now = func() time.Time { return now }
	ctx := testContext(t)

	res, err := a.TakeInventory(ctx, InventoryInput{Namespace: ns})
	require.NoError(t, err)
	assert.Equal(t, 13, res.Objects)
	assert.Len(t, res.Written, 13, "every resource gets a status: %v", res.Written)
	assert.False(t, res.Empty)

	var tel obsv1.TelescopeStatus
	readObjectStatus(t, ns, obsv1.KindTelescope, "east", &tel)
	assert.Equal(t, obsv1.PhaseIdle, tel.Phase)
	assert.Equal(t, []string{"east"}, tel.Tubes)
	require.Len(t, tel.Trains, 1)
	assert.Len(t, tel.Trains[0].Devices, 4)
	assert.Equal(t, []obsv1.DeviceSummary{{Kind: obsv1.KindMount, Name: "east", Phase: obsv1.DeviceIdle}}, tel.Devices)
	var obs obsv1.ObservatoryStatus
	readObjectStatus(t, ns, obsv1.KindObservatory, "lab", &obs)
	assert.Equal(t, "52.2043° N", obs.Display["latitude"])
	assert.Equal(t, "0.1149° E", obs.Display["longitude"])
	require.NotNil(t, obs.Sky)
	want, err := json.Marshal(kube.SkyStatus(obsv1.Location{Latitude: 52.2043, Longitude: 0.1149}, now))
	require.NoError(t, err)
	got, err := json.Marshal(obs.Sky)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got), "the sky over the site")
	assert.Equal(t, "Unknown", obs.Weather)
	assert.Equal(t, []string{"east"}, obs.Telescopes)
	for _, d := range []struct {
		kind          obsv1.Kind
		name          string
		phase, reason string
	}{
		{obsv1.KindMount, "east", "Idle", "Idle"},
		{obsv1.KindDome, "lab", "Idle", "Idle"},
		{obsv1.KindMount, "spare", "Inventory", "Inventory"},
		{obsv1.KindFocuser, "lost", "Error", "Error"},
	} {
		assert.Equal(t, d.phase, statusString(t, ns, d.kind, d.name, "phase"), "%s %s", d.kind, d.name)
		reason, _ := readyOf(t, ns, d.kind, d.name)
		assert.Equal(t, d.reason, reason, "%s %s", d.kind, d.name)
	}
	_, msg := readyOf(t, ns, obsv1.KindFocuser, "lost")
	assert.Equal(t, "Missing OpticalTrain nosuch", msg)
	assert.Equal(t, corev1.EventTypeWarning, eventReasons(t, ns, obsv1.KindFocuser, "lost")[kube.ReasonNotFound])
	events := eventCount(t, ns)
	assert.Equal(t, res.Events, events)

	res, err = a.TakeInventory(ctx, InventoryInput{Namespace: ns})
	require.NoError(t, err)
	assert.Empty(t, res.Written, "nothing changed")
	assert.Equal(t, events, eventCount(t, ns), "and nothing is posted twice")
}

func TestAPassAndAReservationWritingAtOnceKeepEachOthersFields(t *testing.T) {
	ns := observatoryNamespace(t, "inv-both-"+utilrand.String(5))
	applyExample(t, ns)
	a := newActivities()
	ctx := testContext(t)
	_, err := a.TakeInventory(ctx, InventoryInput{Namespace: ns})
	require.NoError(t, err)
	// The Mount runs for a reservation: it holds the finalizer, and its observer writes.
	_, err = a.patchFinalizers(ctx, FinalizerRef{Kind: obsv1.KindMount, Namespace: ns, Name: "east"}, true)
	require.NoError(t, err)
	mount := kube.ResourceID{Kind: obsv1.KindMount, Namespace: ns, Name: "east"}

	var wg sync.WaitGroup
	stop := time.Now().Add(5 * time.Second)
	observed := 0
	wg.Go(func() {
		for i := 0; time.Now().Before(stop); i++ {
			err := a.updateDeviceStatus(ctx, mount, func(st obsv1.DeviceStatus, gen int64) obsv1.DeviceStatus {
				st = kube.StartingDeviceStatus(st, kube.DeviceRun{Pod: "east-mount", Node: "n1", Driver: "indi_simulator_telescope"}, gen, a.now())
				st.Phase, st.IndiDevice = obsv1.DeviceConnected, "Telescope Simulator"
				st.Readings = map[string]string{obsv1.ReadingRA: utilrand.String(4)}
				return st
			})
			assert.NoError(t, err)
			observed++
		}
	})
	passes := 0
	wg.Go(func() {
		for time.Now().Before(stop) {
			_, err := a.TakeInventory(ctx, InventoryInput{Namespace: ns})
			assert.NoError(t, err)
			passes++
		}
	})
	wg.Wait()
	t.Logf("%d observer writes and %d passes at once", observed, passes)
	require.Positive(t, passes)

	var st obsv1.DeviceStatus
	readObjectStatus(t, ns, obsv1.KindMount, "east", &st)
	assert.Equal(t, obsv1.DeviceConnected, st.Phase, "the reservation's phase stands")
	assert.Equal(t, "east-mount", st.Pod)
	assert.Equal(t, "Telescope Simulator", st.IndiDevice)
	assert.NotEmpty(t, st.Readings)
	assert.Equal(t, "Starting", kube.ConditionOf(st.Conditions, obsv1.ConditionReady).Reason, "its Ready is the reservation's")
	assert.Equal(t, kube.ReasonFound, kube.ConditionOf(st.Conditions, obsv1.ConditionParentFound).Reason, "its ParentFound the inventory's")
	var tel obsv1.TelescopeStatus
	readObjectStatus(t, ns, obsv1.KindTelescope, "east", &tel)
	assert.Equal(t, []obsv1.DeviceSummary{{Kind: obsv1.KindMount, Name: "east", Phase: obsv1.DeviceConnected}}, tel.Devices)
}
