// What a device's INDI properties become on its status: state conditions and readings for each
// kind, properties without BLOBs, transition times, Events, and a site's weather verdict.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/prop"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func sw(name string, state prop.State, on string, elems ...string) prop.Property {
	p := prop.Property{Name: name, Type: prop.Switch, State: state, Perm: prop.ReadWrite, Rule: prop.OneOfMany}
	for _, e := range elems {
		v := "Off"
		if e == on {
			v = "On"
		}
		p.Elements = append(p.Elements, prop.Element{Name: e, Value: v})
	}
	return p
}

func num(name string, state prop.State, pairs ...any) prop.Property {
	p := prop.Property{Name: name, Type: prop.Number, State: state, Perm: prop.ReadWrite}
	for i := 0; i < len(pairs); i += 2 {
		v := pairs[i+1].(float64)
		p.Elements = append(p.Elements, prop.Element{Name: pairs[i].(string), Value: prop.FormatNumber(v), Number: v})
	}
	return p
}

func lights(state prop.State, pairs ...string) prop.Property {
	p := prop.Property{Name: "WEATHER_STATUS", Type: prop.Light, State: state}
	for i := 0; i < len(pairs); i += 2 {
		p.Elements = append(p.Elements, prop.Element{Name: pairs[i], Label: pairs[i] + " (kph)", Value: pairs[i+1]})
	}
	return p
}

var connected = sw("CONNECTION", prop.Ok, "CONNECT", "CONNECT", "DISCONNECT")

func stateCond(typ string, status metav1.ConditionStatus, reason, msg string) obsv1.Condition {
	return obsv1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
}

func TestEachKindsStateConditionsNameTheStateAndTheDevice(t *testing.T) {
	T, F, U := metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown
	for _, tc := range []struct {
		name  string
		kind  obsv1.Kind
		props []prop.Property
		want  []obsv1.Condition
	}{
		{"a parked dome with its shutter closed", obsv1.KindDome, []prop.Property{
			sw("DOME_PARK", prop.Ok, "PARK", "PARK", "UNPARK"), sw("DOME_SHUTTER", prop.Ok, "SHUTTER_CLOSE", "SHUTTER_OPEN", "SHUTTER_CLOSE")},
			[]obsv1.Condition{stateCond("Parked", T, "Parked", "Dome lab is parked"), stateCond("Open", F, "Closed", "Dome lab is closed")}},
		{"an unparking dome with its shutter opening", obsv1.KindDome, []prop.Property{
			sw("DOME_PARK", prop.Busy, "UNPARK", "PARK", "UNPARK"), sw("DOME_SHUTTER", prop.Busy, "SHUTTER_OPEN", "SHUTTER_OPEN", "SHUTTER_CLOSE")},
			[]obsv1.Condition{stateCond("Parked", U, "Moving", "Dome lab is unparking"), stateCond("Open", U, "Moving", "Dome lab is opening")}},
		{"a dome (a roof) without a shutter", obsv1.KindDome, []prop.Property{sw("DOME_PARK", prop.Ok, "UNPARK", "PARK", "UNPARK")},
			[]obsv1.Condition{stateCond("Parked", F, "Unparked", "Dome lab is unparked"),
				stateCond("Open", U, "NotReported", "Dome lab does not report whether it is open")}},
		{"a mount whose park was refused is still unparked", obsv1.KindMount, []prop.Property{sw("TELESCOPE_PARK", prop.Alert, "UNPARK", "PARK", "UNPARK")},
			[]obsv1.Condition{stateCond("Parked", F, "Unparked", "Mount lab is unparked")}},
		{"a parked dust cap is closed", obsv1.KindDustCap, []prop.Property{sw("CAP_PARK", prop.Ok, "PARK", "PARK", "UNPARK")},
			[]obsv1.Condition{stateCond("Open", F, "Closed", "DustCap lab is closed")}},
		{"an unparked dust cap is open", obsv1.KindDustCap, []prop.Property{sw("CAP_PARK", prop.Idle, "UNPARK", "PARK", "UNPARK")},
			[]obsv1.Condition{stateCond("Open", T, "Open", "DustCap lab is open")}},
		{"a lit flat panel", obsv1.KindFlatPanel, []prop.Property{sw("FLAT_LIGHT_CONTROL", prop.Ok, "FLAT_LIGHT_ON", "FLAT_LIGHT_ON", "FLAT_LIGHT_OFF")},
			[]obsv1.Condition{stateCond("Lit", T, "Lit", "FlatPanel lab is lit")}},
		{"a flat panel that says nothing of its light", obsv1.KindFlatPanel, nil,
			[]obsv1.Condition{stateCond("Lit", U, "NotReported", "FlatPanel lab does not report whether it is lit")}},
		{"a camera with its cooler on", obsv1.KindCamera, []prop.Property{sw("CCD_COOLER", prop.Ok, "COOLER_ON", "COOLER_ON", "COOLER_OFF")},
			[]obsv1.Condition{stateCond("Cooling", T, "Cooling", "Camera lab is cooling")}},
		{"a camera whose cooler works (Busy, as libindi keeps it)", obsv1.KindCamera,
			[]prop.Property{sw("CCD_COOLER", prop.Busy, "COOLER_ON", "COOLER_ON", "COOLER_OFF")},
			[]obsv1.Condition{stateCond("Cooling", T, "Cooling", "Camera lab is cooling")}},
		{"a camera switching its cooler off", obsv1.KindCamera,
			[]prop.Property{sw("CCD_COOLER", prop.Busy, "COOLER_OFF", "COOLER_ON", "COOLER_OFF")},
			[]obsv1.Condition{stateCond("Cooling", U, "Moving", "Camera lab is switching its cooler off")}},
		{"a camera with its cooler off", obsv1.KindCamera, []prop.Property{sw("CCD_COOLER", prop.Idle, "COOLER_OFF", "COOLER_ON", "COOLER_OFF")},
			[]obsv1.Condition{stateCond("Cooling", F, "CoolerOff", "Camera lab has its cooler off")}},
		{"a camera without a cooler switch on its way to a set point", obsv1.KindCamera,
			[]prop.Property{num("CCD_TEMPERATURE", prop.Busy, "CCD_TEMPERATURE_VALUE", -3.0)},
			[]obsv1.Condition{stateCond("Cooling", T, "Cooling", "Camera lab is cooling")}},
		{"a camera without a cooler", obsv1.KindCamera, []prop.Property{num("CCD_TEMPERATURE", prop.Idle, "CCD_TEMPERATURE_VALUE", 20.0)},
			[]obsv1.Condition{stateCond("Cooling", U, "NotReported", "Camera lab does not report a cooler")}},
		{"calm weather", obsv1.KindWeatherStation, []prop.Property{lights(prop.Ok, "WEATHER_WIND_SPEED", "Ok")},
			[]obsv1.Condition{stateCond("Safe", T, "Safe", "WeatherStation lab reports safe weather")}},
		{"weather not yet refreshed is safe", obsv1.KindWeatherStation, []prop.Property{lights(prop.Idle, "WEATHER_WIND_SPEED", "Idle")},
			[]obsv1.Condition{stateCond("Safe", T, "Safe", "WeatherStation lab reports safe weather")}},
		{"wind near its limit warns", obsv1.KindWeatherStation, []prop.Property{lights(prop.Busy, "WEATHER_WIND_SPEED", "Busy", "WEATHER_RAIN_HOUR", "Ok")},
			[]obsv1.Condition{stateCond("Safe", F, "Warning", "WeatherStation lab reports a warning: WEATHER_WIND_SPEED")}},
		{"wind past its limit is a danger, whatever the vector says", obsv1.KindWeatherStation,
			[]prop.Property{lights(prop.Busy, "WEATHER_WIND_SPEED", "Alert", "WEATHER_RAIN_HOUR", "Busy")},
			[]obsv1.Condition{stateCond("Safe", F, "Danger", "WeatherStation lab reports danger: WEATHER_WIND_SPEED")}},
		{"a weather station without a status", obsv1.KindWeatherStation, nil,
			[]obsv1.Condition{stateCond("Safe", U, "NotReported", "WeatherStation lab does not report WEATHER_STATUS")}},
		{"a focuser has no state condition", obsv1.KindFocuser, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := ObserveDevice(tc.kind, "lab", append([]prop.Property{connected}, tc.props...))
			assert.True(t, obs.Connected)
			assert.Equal(t, tc.want, obs.Conditions)
			var types []string
			for _, c := range tc.want {
				types = append(types, c.Type)
			}
			assert.Equal(t, types, StateConditionTypes(tc.kind))
		})
	}
}

func TestTheWeatherSimulatorsLabelsNameTheParametersWithoutTheirUnits(t *testing.T) {
	p := prop.Property{Name: "WEATHER_STATUS", Type: prop.Light, State: prop.Alert, Elements: []prop.Element{
		{Name: "WEATHER_FORECAST", Label: "Weather", Value: "Ok"},
		{Name: "WEATHER_WIND_SPEED", Label: "Wind (kph)", Value: "Alert"},
	}}
	obs := ObserveDevice(obsv1.KindWeatherStation, "lab", []prop.Property{connected, p})
	assert.Equal(t, "WeatherStation lab reports danger: Wind", obs.Conditions[0].Message)
	assert.Equal(t, SafetyDanger, obs.Readings[obsv1.ReadingSafety])
}

func TestADeviceThatIsNotConnectedHasNoStateConditionsAndNoReadings(t *testing.T) {
	for _, c := range []prop.Property{
		sw("CONNECTION", prop.Ok, "DISCONNECT", "CONNECT", "DISCONNECT"),
		sw("CONNECTION", prop.Busy, "CONNECT", "CONNECT", "DISCONNECT"),
	} {
		obs := ObserveDevice(obsv1.KindDome, "lab", []prop.Property{c, sw("DOME_PARK", prop.Ok, "PARK", "PARK", "UNPARK")})
		assert.False(t, obs.Connected)
		assert.Nil(t, obs.Conditions)
		assert.Nil(t, obs.Readings)
		assert.Len(t, obs.Properties, 2, "its properties are still shown")
	}
	assert.False(t, ObserveDevice(obsv1.KindDome, "lab", nil).Connected, "no CONNECTION: the driver has not defined it")
}

func TestEachKindReadsItsMainValuesWithUnitsForPeople(t *testing.T) {
	wheelNames := prop.Property{Name: "FILTER_NAME", Type: prop.Text, Elements: []prop.Element{
		{Name: "FILTER_SLOT_NAME_1", Value: "Red"}, {Name: "FILTER_SLOT_NAME_2", Value: "Green"}}}
	weather := num("WEATHER_PARAMETERS", prop.Ok, "WEATHER_TEMPERATURE", 15.0, "WEATHER_WIND_SPEED", 19.0, "WEATHER_FORECAST", 0.0)
	weather.Elements[0].Label, weather.Elements[1].Label, weather.Elements[2].Label = "Temperature (C)", "Wind (kph)", "Weather"
	intensity := num("FLAT_LIGHT_INTENSITY", prop.Idle, "FLAT_LIGHT_INTENSITY_VALUE", 128.0)
	intensity.Elements[0].Max = 255
	utc := prop.Property{Name: "TIME_UTC", Type: prop.Text, Elements: []prop.Element{{Name: "UTC", Value: "2026-11-30T01:50:35"}}}
	for _, tc := range []struct {
		name          string
		kind          obsv1.Kind
		props         []prop.Property
		want, display map[string]string
	}{
		{"a tracking mount", obsv1.KindMount, []prop.Property{
			num("EQUATORIAL_EOD_COORD", prop.Ok, "RA", 5.575538888, "DEC", -5.389),
			sw("TELESCOPE_PARK", prop.Ok, "UNPARK", "PARK", "UNPARK")},
			map[string]string{"ra": "5.575539", "dec": "-5.389", "state": "Tracking"},
			map[string]string{"ra": "05h34m32s", "dec": "-05°23'20\"", "state": "Tracking"}},
		{"a slewing mount", obsv1.KindMount, []prop.Property{
			num("EQUATORIAL_EOD_COORD", prop.Busy, "RA", 23.99999, "DEC", 90.0),
			sw("TELESCOPE_PARK", prop.Ok, "UNPARK", "PARK", "UNPARK")},
			map[string]string{"ra": "23.99999", "dec": "90", "state": "Slewing"},
			map[string]string{"ra": "00h00m00s", "dec": "+90°00'00\"", "state": "Slewing"}},
		{"a parking mount", obsv1.KindMount, []prop.Property{
			num("EQUATORIAL_EOD_COORD", prop.Busy, "RA", 0.0, "DEC", 0.0), sw("TELESCOPE_PARK", prop.Busy, "PARK", "PARK", "UNPARK")},
			map[string]string{"ra": "0", "dec": "0", "state": "Parking"},
			map[string]string{"ra": "00h00m00s", "dec": "+00°00'00\"", "state": "Parking"}},
		{"a dome", obsv1.KindDome, []prop.Property{
			num("ABS_DOME_POSITION", prop.Ok, "DOME_ABSOLUTE_POSITION", 90.0),
			sw("DOME_PARK", prop.Ok, "PARK", "PARK", "UNPARK"), sw("DOME_SHUTTER", prop.Busy, "SHUTTER_CLOSE", "SHUTTER_OPEN", "SHUTTER_CLOSE")},
			map[string]string{"azimuth": "90", "shutter": "Closing", "park": "Parked"},
			map[string]string{"azimuth": "90.0°", "shutter": "Closing", "park": "Parked"}},
		{"a dust cap", obsv1.KindDustCap, []prop.Property{sw("CAP_PARK", prop.Ok, "PARK", "PARK", "UNPARK")},
			map[string]string{"cover": "Closed"}, map[string]string{"cover": "Closed"}},
		{"a flat panel", obsv1.KindFlatPanel, []prop.Property{sw("FLAT_LIGHT_CONTROL", prop.Ok, "FLAT_LIGHT_ON", "FLAT_LIGHT_ON", "FLAT_LIGHT_OFF"), intensity},
			map[string]string{"light": "Lit", "brightness": "128"}, map[string]string{"light": "Lit", "brightness": "128/255"}},
		{"a cooling camera in an exposure", obsv1.KindCamera, []prop.Property{
			num("CCD_TEMPERATURE", prop.Busy, "CCD_TEMPERATURE_VALUE", -9.504),
			sw("CCD_COOLER", prop.Ok, "COOLER_ON", "COOLER_ON", "COOLER_OFF"),
			num("CCD_COOLER_POWER", prop.Ok, "CCD_COOLER_VALUE", 45.2),
			num("CCD_EXPOSURE", prop.Busy, "CCD_EXPOSURE_VALUE", 12.54)},
			map[string]string{"temperature": "-9.5", "cooler": "On", "exposure": "12.54"},
			map[string]string{"temperature": "-9.5 °C", "cooler": "On, 45%", "exposure": "12.5 s left"}},
		{"an idle camera", obsv1.KindCamera, []prop.Property{num("CCD_EXPOSURE", prop.Idle, "CCD_EXPOSURE_VALUE", 1.0)},
			map[string]string{"exposure": "0"}, map[string]string{"exposure": "Idle"}},
		{"a filter wheel", obsv1.KindFilterWheel, []prop.Property{num("FILTER_SLOT", prop.Ok, "FILTER_SLOT_VALUE", 2.0), wheelNames},
			map[string]string{"slot": "2", "filter": "Green"}, map[string]string{"slot": "2", "filter": "Green"}},
		{"a turning filter wheel", obsv1.KindFilterWheel, []prop.Property{num("FILTER_SLOT", prop.Busy, "FILTER_SLOT_VALUE", 1.0), wheelNames},
			map[string]string{"slot": "1", "filter": "Red"}, map[string]string{"slot": "moving to 1", "filter": "Red"}},
		{"a focuser", obsv1.KindFocuser, []prop.Property{num("ABS_FOCUS_POSITION", prop.Ok, "FOCUS_ABSOLUTE_POSITION", 50000.0)},
			map[string]string{"position": "50000"}, map[string]string{"position": "50000 steps"}},
		{"a rotator", obsv1.KindRotator, []prop.Property{num("ABS_ROTATOR_ANGLE", prop.Ok, "ANGLE", 12.345)},
			map[string]string{"angle": "12.35"}, map[string]string{"angle": "12.3°"}},
		{"a weather station", obsv1.KindWeatherStation, []prop.Property{lights(prop.Busy, "WEATHER_WIND_SPEED", "Busy"), weather},
			map[string]string{"safety": "Warning", "temperature": "15", "windSpeed": "19", "forecast": "0"},
			map[string]string{"safety": "Warning", "temperature": "15 °C", "windSpeed": "19 kph", "forecast": "0"}},
		{"a sky quality meter", obsv1.KindSkyQualityMeter, []prop.Property{num("SKY_QUALITY", prop.Ok, "SKY_BRIGHTNESS", 16.899999999999998579)},
			map[string]string{"brightness": "16.9"}, map[string]string{"brightness": "16.90 mag/arcsec²"}},
		{"a switch", obsv1.KindSwitch, []prop.Property{
			sw("DIGITAL_OUTPUT_2", prop.Ok, "OFF", "ON", "OFF"), sw("DIGITAL_OUTPUT_1", prop.Ok, "ON", "ON", "OFF"),
			sw("DIGITAL_OUTPUT_10", prop.Ok, "ON", "ON", "OFF"), sw("DIGITAL_INPUT_1", prop.Ok, "ON", "ON", "OFF")},
			map[string]string{"outputs": "3", "on": "1,10", "inputs": "1=On"},
			map[string]string{"outputs": "3", "on": "1, 10", "inputs": "1 on"}},
		{"a receiver", obsv1.KindReceiver, []prop.Property{num("RECEIVER_SETTINGS", prop.Ok, "RECEIVER_FREQUENCY", 1420.405751)},
			map[string]string{"frequency": "1420.405751"}, map[string]string{"frequency": "1420.406 MHz"}},
		{"a GPS west of Greenwich", obsv1.KindGPS, []prop.Property{num("GEOGRAPHIC_COORD", prop.Ok, "LAT", 51.0, "LONG", 357.7, "ELEV", 72.0), utc},
			map[string]string{"fix": "Fix", "position": "51,-2.3,72", "time": "2026-11-30T01:50:35"},
			map[string]string{"fix": "Fix", "position": "51.0000° N, 2.3000° W, 72 m", "time": "2026-11-30 01:50:35 UTC"}},
		{"a polar aligner reads nothing", obsv1.KindPolarAligner, []prop.Property{num("ABS_FOCUS_POSITION", prop.Ok, "FOCUS_ABSOLUTE_POSITION", 1.0)}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := ObserveDevice(tc.kind, "lab", append([]prop.Property{connected}, tc.props...))
			assert.Equal(t, tc.want, obs.Readings)
			assert.Equal(t, tc.display, obs.Display)
		})
	}
}

func TestThePropertiesShowEveryVectorWithoutBLOBData(t *testing.T) {
	blob := prop.Property{Name: "CCD1", Type: prop.BLOB, State: prop.Ok, Perm: prop.ReadOnly,
		Elements: []prop.Element{{Name: "CCD1", Label: "Image", Value: "iVBORw0KGgo="}}}
	temp := num("CCD_TEMPERATURE", prop.Busy, "CCD_TEMPERATURE_VALUE", -9.5)
	temp.Label, temp.Group, temp.Elements[0].Value = "Temperature", "Main Control", "\n-9.5\n"
	got := StatusProperties([]prop.Property{connected, temp, blob, temp})
	assert.Equal(t, []obsv1.Property{
		{Name: "CONNECTION", Type: "Switch", State: "Ok", Permission: "rw", Rule: "OneOfMany",
			Elements: []obsv1.PropertyElement{{Name: "CONNECT", Value: "On"}, {Name: "DISCONNECT", Value: "Off"}}},
		{Name: "CCD_TEMPERATURE", Label: "Temperature", Group: "Main Control", Type: "Number", State: "Busy", Permission: "rw",
			Elements: []obsv1.PropertyElement{{Name: "CCD_TEMPERATURE_VALUE", Value: "-9.5"}}},
		{Name: "CCD1", Type: "BLOB", State: "Ok", Permission: "ro", Elements: []obsv1.PropertyElement{{Name: "CCD1", Label: "Image"}}},
	}, got)
	assert.Nil(t, StatusProperties(nil))
}

func TestAnObservedStatusKeepsTheTransitionTimeUntilTheStateChanges(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	parent := obsv1.Condition{Type: obsv1.ConditionParentFound, Status: metav1.ConditionTrue, Reason: "Found", LastTransitionTime: metav1.NewTime(t0)}
	st := obsv1.DeviceStatus{StatusBase: obsv1.StatusBase{Conditions: []obsv1.Condition{parent}}, Pod: "lab-dome",
		Procedures: []obsv1.ProcedureRecord{{Trigger: TriggerActivation}}}
	ready := obsv1.Condition{Type: obsv1.ConditionReady, Status: metav1.ConditionTrue, ObservedGeneration: 2,
		LastTransitionTime: metav1.NewTime(t0), Reason: "Connected", Message: "Connected as Dome Simulator"}
	dome := func(park string, state prop.State) DeviceObservation {
		return ObserveDevice(obsv1.KindDome, "lab", []prop.Property{connected, sw("DOME_PARK", state, park, "PARK", "UNPARK"),
			sw("DOME_SHUTTER", prop.Ok, "SHUTTER_CLOSE", "SHUTTER_OPEN", "SHUTTER_CLOSE")})
	}

	parked := ObservedDeviceStatus(st, obsv1.KindDome, "Dome Simulator", dome("PARK", prop.Ok), 2, t0)
	assert.Equal(t, obsv1.DeviceConnected, parked.Phase)
	assert.Equal(t, "Dome Simulator", parked.IndiDevice)
	assert.Equal(t, "lab-dome", parked.Pod, "what others write stays")
	assert.Len(t, parked.Procedures, 1)
	require.Len(t, parked.Conditions, 4)
	assert.Equal(t, parent, parked.Conditions[0], "what others write stays")
	assert.Equal(t, ready, parked.Conditions[1])
	assert.Equal(t, obsv1.Condition{Type: "Parked", Status: metav1.ConditionTrue, ObservedGeneration: 2,
		LastTransitionTime: metav1.NewTime(t0), Reason: "Parked", Message: "Dome lab is parked"}, parked.Conditions[2])
	assert.Equal(t, "Parked", parked.Readings[obsv1.ReadingPark])
	assert.Empty(t, st.Phase, "the input is not changed")

	// The same again later: nothing moves.
	again := ObservedDeviceStatus(parked, obsv1.KindDome, "Dome Simulator", dome("PARK", prop.Ok), 2, t0.Add(time.Minute))
	assert.Equal(t, parked, again)
	assert.Empty(t, DeviceConditionEvents(obsv1.KindDome, parked.Conditions, again.Conditions))

	// Unparking: Unknown/Moving, then False/Unparked, each with its own time.
	t1, t2 := t0.Add(time.Hour), t0.Add(time.Hour+time.Minute)
	moving := ObservedDeviceStatus(again, obsv1.KindDome, "Dome Simulator", dome("UNPARK", prop.Busy), 2, t1)
	assert.Equal(t, metav1.NewTime(t1), moving.Conditions[2].LastTransitionTime)
	assert.Equal(t, []Event{{Type: corev1.EventTypeNormal, Reason: "Moving", Message: "Dome lab is unparking"}},
		DeviceConditionEvents(obsv1.KindDome, again.Conditions, moving.Conditions))
	unparked := ObservedDeviceStatus(moving, obsv1.KindDome, "Dome Simulator", dome("UNPARK", prop.Ok), 2, t2)
	assert.Equal(t, metav1.NewTime(t2), unparked.Conditions[2].LastTransitionTime)
	assert.Equal(t, metav1.NewTime(t0), unparked.Conditions[3].LastTransitionTime, "the shutter stayed closed")

	// The site guard had parked it: once unparked (by the site's own rules), that is over.
	guarded := ObservedDeviceStatus(again, obsv1.KindDome, "Dome Simulator", dome("PARK", prop.Ok), 2, t0)
	guarded.Conditions = WithCondition(guarded.Conditions, ParkedBySafetyCondition("Weather", "Closed by the site guard"), 2, t0)
	stillParked := ObservedDeviceStatus(guarded, obsv1.KindDome, "Dome Simulator", dome("PARK", prop.Ok), 2, t1)
	assert.True(t, hasCondition(stillParked.Conditions, obsv1.ConditionParkedBySafety), "it stays while the dome is parked")
	reopened := ObservedDeviceStatus(stillParked, obsv1.KindDome, "Dome Simulator", dome("UNPARK", prop.Ok), 2, t2)
	assert.False(t, hasCondition(reopened.Conditions, obsv1.ConditionParkedBySafety), "it goes once the dome unparks")

	// Disconnected: Connecting, and the state conditions and readings go; Ready says so.
	off := ObservedDeviceStatus(unparked, obsv1.KindDome, "Dome Simulator", ObserveDevice(obsv1.KindDome, "lab",
		[]prop.Property{sw("CONNECTION", prop.Ok, "DISCONNECT", "CONNECT", "DISCONNECT")}), 2, t2)
	assert.Equal(t, obsv1.DeviceConnecting, off.Phase)
	connecting := obsv1.Condition{Type: obsv1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: 2,
		LastTransitionTime: metav1.NewTime(t2), Reason: "Connecting", Message: "Connecting Dome Simulator"}
	assert.Equal(t, []obsv1.Condition{parent, connecting}, off.Conditions)
	assert.Nil(t, off.Readings)
	assert.Equal(t, []Event{{Type: corev1.EventTypeNormal, Reason: "Connecting", Message: "Connecting Dome Simulator"}},
		DeviceConditionEvents(obsv1.KindDome, unparked.Conditions, off.Conditions), "only Ready is news: the others went")
}

func TestEachStateTransitionPostsOneEventAndUnsafeWeatherIsAWarning(t *testing.T) {
	safe := stateCond("Safe", metav1.ConditionTrue, "Safe", "WeatherStation lab reports safe weather")
	warn := stateCond("Safe", metav1.ConditionFalse, "Warning", "WeatherStation lab reports a warning: Wind")
	danger := stateCond("Safe", metav1.ConditionFalse, "Danger", "WeatherStation lab reports danger: Wind")
	warnGust := stateCond("Safe", metav1.ConditionFalse, "Warning", "WeatherStation lab reports a warning: Wind, Gust")
	ready := stateCond("Ready", metav1.ConditionFalse, "Error", "the pod failed")
	k := obsv1.KindWeatherStation
	assert.Equal(t, []Event{{Type: "Normal", Reason: "Safe", Message: safe.Message}}, DeviceConditionEvents(k, nil, []obsv1.Condition{safe}),
		"the first observation is a transition")
	assert.Equal(t, []Event{{Type: "Warning", Reason: "Warning", Message: warn.Message}},
		DeviceConditionEvents(k, []obsv1.Condition{safe}, []obsv1.Condition{warn}))
	assert.Equal(t, []Event{{Type: "Warning", Reason: "Danger", Message: danger.Message}},
		DeviceConditionEvents(k, []obsv1.Condition{warn}, []obsv1.Condition{danger}), "a worse verdict is news")
	assert.Empty(t, DeviceConditionEvents(k, []obsv1.Condition{warn}, []obsv1.Condition{warnGust}), "a new message alone is not")
	assert.Equal(t, []Event{{Type: "Warning", Reason: "Error", Message: "the pod failed"}},
		DeviceConditionEvents(k, nil, []obsv1.Condition{ready}), "Ready with reason Error is a Warning")
	parent := stateCond("ParentFound", metav1.ConditionFalse, "NotFound", "Missing Observatory lab")
	assert.Empty(t, DeviceConditionEvents(k, nil, []obsv1.Condition{parent}), "ParentFound is the inventory's to report")
	assert.Equal(t, []Event{{Type: "Warning", Reason: "NotFound", Message: "Missing Observatory lab"}},
		ConditionEvents(nil, []obsv1.Condition{parent}, "ParentFound"), "ParentFound=False is a Warning")
}

func TestASitesWeatherIsItsStationsWorstVerdict(t *testing.T) {
	for _, tc := range []struct {
		verdicts []string
		want     string
	}{
		{nil, "Unknown"},
		{[]string{""}, "Unknown"},
		{[]string{"Safe"}, "Safe"},
		{[]string{"Safe", "", "Warning"}, "Warning"},
		{[]string{"Danger", "Warning", "Safe"}, "Danger"},
	} {
		assert.Equal(t, tc.want, SiteWeather(tc.verdicts), "%v", tc.verdicts)
	}
}

func hasCondition(conds []obsv1.Condition, typ string) bool {
	for _, c := range conds {
		if c.Type == typ {
			return true
		}
	}
	return false
}
