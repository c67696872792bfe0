// Integration test of ObserveDevices against the real API server and real INDI simulators:
// what the drivers report shows on the devices (and the weather on the Observatory),
// transitions post one Event each, a restart writes nothing new, and a lost server ends the
// activity with an error for Temporal to retry.
// (The package's TestMain, in main_test.go, starts the stack.)
package observatory

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// observeWait bounds each wait of the test: a dome simulator takes a few seconds to park.
const observeWait = 90 * time.Second

// serverResolver is where each test indiserver listens, by the INDI server it stands in for.
type serverResolver map[string]string

func (r serverResolver) Address(_ context.Context, s INDIServer) (string, error) {
	if addr, ok := r[s.Name]; ok {
		return addr, nil
	}
	return "", errors.New("no test server for " + s.Name)
}

// eventCounts are the counts of the Events about kind/name by reason, and their types.
func eventCounts(t *testing.T, ns string, kind obsv1.Kind, name string) (map[string]int32, map[string]string) {
	t.Helper()
	list, err := env.Kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.kind": string(kind), "involvedObject.name": name}.String()})
	require.NoError(t, err)
	counts, types := map[string]int32{}, map[string]string{}
	for _, e := range list.Items {
		counts[e.Reason] += e.Count
		types[e.Reason] = e.Type
	}
	return counts, types
}

// awaitEventCounts waits until the Events about kind/name have the counts want has for its
// reasons (an Event goes out just after the status write that the test saw), and returns
// the counts and types of all of them.
func awaitEventCounts(t *testing.T, ns string, kind obsv1.Kind, name string, want map[string]int32) (map[string]int32, map[string]string) {
	t.Helper()
	var counts map[string]int32
	var types map[string]string
	ok := assert.Eventually(t, func() bool {
		counts, types = eventCounts(t, ns, kind, name)
		for reason, n := range want {
			if counts[reason] != n {
				return false
			}
		}
		return true
	}, observeWait, 100*time.Millisecond)
	if !ok {
		t.Errorf("Events about %s %s: %v, want %v", kind, name, counts, want)
	}
	return counts, types
}

func deviceStatus(t *testing.T, kind obsv1.Kind, ns, name string) (obsv1.DeviceStatus, string) {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var st obsv1.DeviceStatus
	if m, ok := u.Object["status"].(map[string]any); ok {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st))
	}
	return st, u.GetResourceVersion()
}

func conditionOf(st obsv1.DeviceStatus, typ string) obsv1.Condition {
	for _, c := range st.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return obsv1.Condition{}
}

// awaitCondition waits until the device's condition has the status and reason.
func awaitCondition(t *testing.T, kind obsv1.Kind, ns, name, typ string, status metav1.ConditionStatus, reason string) obsv1.DeviceStatus {
	t.Helper()
	var st obsv1.DeviceStatus
	require.Eventually(t, func() bool {
		st, _ = deviceStatus(t, kind, ns, name)
		c := conditionOf(st, typ)
		return c.Status == status && c.Reason == reason
	}, observeWait, 100*time.Millisecond, "%s %s: %s=%s/%s; last %+v", kind, name, typ, status, reason, st.Conditions)
	return st
}

// awaitSiteWeather waits until the Observatory lab's status.weather is want.
func awaitSiteWeather(t *testing.T, ns, want string) {
	t.Helper()
	var got string
	require.Eventually(t, func() bool {
		var o obsv1.Observatory
		readObject(t, obsv1.KindObservatory, ns, "lab", &o)
		got = o.Status.Weather
		return got == want
	}, observeWait, 100*time.Millisecond, "the Observatory's weather is %q, not %q", got, want)
}

// setWind sets the weather simulator's wind and has it evaluate its limits at once.
func setWind(t *testing.T, ctx context.Context, c *indi.Client, kph float64) {
	t.Helper()
	_, err := c.SetNumber(ctx, "Weather Simulator", "WEATHER_CONTROL", map[string]float64{"Wind": kph}, 0)
	require.NoError(t, err)
	require.NoError(t, c.Press(ctx, "Weather Simulator", "WEATHER_REFRESH", "REFRESH"))
}

func TestTheDevicesOfAReadyReservationShowWhatTheirDriversReport(t *testing.T) {
	site := inditest.StartServer(t, "indi_simulator_dome", "indi_simulator_weather")
	scope := inditest.Start(t, "indi_simulator_telescope")
	ctx, cancel := context.WithTimeout(context.Background(), 5*observeWait)
	defer cancel()
	c, err := indi.Dial(ctx, site.Addr)
	require.NoError(t, err)
	defer c.Close()
	m, err := indi.Dial(ctx, scope)
	require.NoError(t, err)
	defer m.Close()
	// Connect, as the steps do before a reservation is Ready.
	for _, dev := range []string{"Dome Simulator", "Weather Simulator"} {
		require.NoError(t, c.Sync(ctx, dev))
		_, err := c.Connect(ctx, dev)
		require.NoError(t, err)
	}
	require.NoError(t, m.Sync(ctx, "Telescope Simulator"))
	_, err = m.Connect(ctx, "Telescope Simulator")
	require.NoError(t, err)

	ns := observatoryNamespace(t, "observe-"+utilrand.String(5))
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	createObject(t, obsv1.KindDome, ns, &obsv1.Dome{ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}}}})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}}})

	a := newActivities()
	a.INDI = serverResolver{"lab-observatory": site.Addr, "east-telescope": scope}
	in := StepInput{Namespace: ns, Reservation: "tonight", Holder: "ada", Telescope: "east", Observatory: "lab", Step: "Observe"}
	// observe runs the activity; ended waits until it returns, cancelled first or not.
	observe := func() (ended func(cancelFirst bool) error) {
		octx, ocancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- a.ObserveDevices(octx, in) }()
		return func(cancelFirst bool) error {
			if cancelFirst {
				ocancel()
			}
			defer ocancel()
			select {
			case err := <-done:
				return err
			case <-time.After(observeWait):
				return errors.New("ObserveDevices did not return")
			}
		}
	}
	old := observeRereadEvery
	observeRereadEvery = time.Second // the observer looks for devices that join every second
	t.Cleanup(func() { observeRereadEvery = old })
	ended := observe()

	// The simulator's dome starts unparked with its shutter closed.
	dome := awaitCondition(t, obsv1.KindDome, ns, "lab", obsv1.ConditionParked, metav1.ConditionFalse, kube.ReasonUnparked)
	assert.Equal(t, obsv1.DeviceConnected, dome.Phase)
	assert.Equal(t, "Dome Simulator", dome.IndiDevice)
	assert.Equal(t, "Dome lab is unparked", conditionOf(dome, obsv1.ConditionParked).Message)
	assert.Equal(t, kube.ReasonClosed, conditionOf(dome, obsv1.ConditionOpen).Reason)
	assert.Equal(t, "Unparked", dome.Readings[obsv1.ReadingPark])
	assert.Equal(t, "Closed", dome.Display[obsv1.ReadingShutter])
	assert.Contains(t, dome.Display, obsv1.ReadingAzimuth)
	assert.NotEmpty(t, dome.Properties)
	for _, p := range dome.Properties {
		if p.Name == "DOME_PARK" {
			assert.Equal(t, []obsv1.PropertyElement{{Name: "PARK", Label: "Park(ed)", Value: "Off"}, {Name: "UNPARK", Label: "UnPark(ed)", Value: "On"}}, p.Elements)
		}
	}
	// A device that joins while the reservation is Ready is observed too.
	createObject(t, obsv1.KindWeatherStation, ns, &obsv1.WeatherStation{ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.WeatherStationSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_weather"}}}})
	weather := awaitCondition(t, obsv1.KindWeatherStation, ns, "lab", obsv1.ConditionSafe, metav1.ConditionTrue, kube.ReasonSafe)
	assert.Equal(t, kube.SafetySafe, weather.Display[obsv1.ReadingSafety])
	assert.Contains(t, weather.Readings, "windSpeed")
	awaitSiteWeather(t, ns, kube.SafetySafe)
	require.Eventually(t, func() bool {
		st, _ := deviceStatus(t, obsv1.KindMount, ns, "east")
		return st.Phase == obsv1.DeviceConnected && st.Display[obsv1.ReadingRA] != ""
	}, observeWait, 100*time.Millisecond, "the mount on the telescope's server shows where it points")
	mount, _ := deviceStatus(t, obsv1.KindMount, ns, "east")
	assert.Equal(t, "Telescope Simulator", mount.IndiDevice)
	assert.Equal(t, kube.ReasonUnparked, conditionOf(mount, obsv1.ConditionParked).Reason)

	// Park the dome, and unpark it again: the condition and readings follow.
	unparkedAt := conditionOf(dome, obsv1.ConditionParked).LastTransitionTime
	_, err = c.SetDomeParked(ctx, "Dome Simulator", true)
	require.NoError(t, err)
	dome = awaitCondition(t, obsv1.KindDome, ns, "lab", obsv1.ConditionParked, metav1.ConditionTrue, kube.ReasonParked)
	assert.Equal(t, "Dome lab is parked", conditionOf(dome, obsv1.ConditionParked).Message)
	assert.Equal(t, "Parked", dome.Display[obsv1.ReadingPark])
	parkedAt := conditionOf(dome, obsv1.ConditionParked).LastTransitionTime
	assert.False(t, parkedAt.Before(&unparkedAt))
	_, err = c.SetDomeParked(ctx, "Dome Simulator", false)
	require.NoError(t, err)
	dome = awaitCondition(t, obsv1.KindDome, ns, "lab", obsv1.ConditionOpen, metav1.ConditionTrue, kube.ReasonOpen)
	assert.Equal(t, kube.ReasonUnparked, conditionOf(dome, obsv1.ConditionParked).Reason)
	assert.Equal(t, "Open", dome.Display[obsv1.ReadingShutter])

	// One Event per transition: Unparked at first and after the unpark (counted on one Event,
	// as its reason and message are the same), Parked once, Open once; the moves between
	// them show as Moving (the simulator also moves its shutter while it parks).
	_, types := awaitEventCounts(t, ns, obsv1.KindDome, "lab",
		map[string]int32{kube.ReasonUnparked: 2, kube.ReasonParked: 1, kube.ReasonOpen: 1})
	assert.Equal(t, corev1.EventTypeNormal, types[kube.ReasonParked])

	// The weather turns: a wind near its limit warns, past it is a danger, both as Warnings.
	setWind(t, ctx, c, 19)
	weather = awaitCondition(t, obsv1.KindWeatherStation, ns, "lab", obsv1.ConditionSafe, metav1.ConditionFalse, kube.ReasonWarning)
	assert.Equal(t, "WeatherStation lab reports a warning: Wind", conditionOf(weather, obsv1.ConditionSafe).Message)
	assert.Equal(t, kube.SafetyWarning, weather.Readings[obsv1.ReadingSafety])
	assert.Equal(t, "19 kph", weather.Display["windSpeed"])
	awaitSiteWeather(t, ns, kube.SafetyWarning)
	setWind(t, ctx, c, 30)
	awaitCondition(t, obsv1.KindWeatherStation, ns, "lab", obsv1.ConditionSafe, metav1.ConditionFalse, kube.ReasonDanger)
	awaitSiteWeather(t, ns, kube.SafetyDanger)
	setWind(t, ctx, c, 0)
	awaitCondition(t, obsv1.KindWeatherStation, ns, "lab", obsv1.ConditionSafe, metav1.ConditionTrue, kube.ReasonSafe)
	awaitSiteWeather(t, ns, kube.SafetySafe)
	counts, types := awaitEventCounts(t, ns, obsv1.KindWeatherStation, "lab",
		map[string]int32{kube.ReasonSafe: 2, kube.ReasonWarning: 1, kube.ReasonDanger: 1})
	assert.Len(t, counts, 4, "%v", counts)
	assert.Equal(t, int32(1), counts[string(obsv1.DeviceConnected)], "Ready went True once: Connected")
	assert.Equal(t, corev1.EventTypeWarning, types[kube.ReasonWarning])
	assert.Equal(t, corev1.EventTypeWarning, types[kube.ReasonDanger])
	assert.Equal(t, corev1.EventTypeNormal, types[kube.ReasonSafe])

	// Cancelled, it returns nil. Started again (a retry, another worker), it finds every
	// status in place: the dome is not written again and no Event is posted twice.
	require.NoError(t, ended(true))
	_, domeVersion := deviceStatus(t, obsv1.KindDome, ns, "lab")
	domeEvents, _ := eventCounts(t, ns, obsv1.KindDome, "lab")
	weatherEvents, _ := eventCounts(t, ns, obsv1.KindWeatherStation, "lab")
	ended = observe()
	// The simulated mount's RA moves all the time, so its status is written every second:
	// two writes by the new observer mean it has looked at every device.
	for range 2 {
		_, v := deviceStatus(t, obsv1.KindMount, ns, "east")
		require.Eventually(t, func() bool {
			_, now := deviceStatus(t, obsv1.KindMount, ns, "east")
			return now != v
		}, observeWait, 100*time.Millisecond)
	}
	_, v := deviceStatus(t, obsv1.KindDome, ns, "lab")
	assert.Equal(t, domeVersion, v, "the restarted observer wrote the same dome status again")
	again, _ := eventCounts(t, ns, obsv1.KindDome, "lab")
	assert.Equal(t, domeEvents, again)
	again, _ = eventCounts(t, ns, obsv1.KindWeatherStation, "lab")
	assert.Equal(t, weatherEvents, again)

	// The observatory's server goes away: the activity fails, for Temporal to run it again.
	site.Kill()
	err = ended(false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lab-observatory")
}
