package guard

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTheDomeHearsParkedOnlyWhenEveryMountIsParkedAndStill(t *testing.T) {
	parked := Mount{Park: Park{Device: "a", Reported: true, Parked: true}}
	for _, tc := range []struct {
		name   string
		mounts []Mount
		want   bool
	}{
		{"no mount", nil, true},
		{"all parked", []Mount{parked, parked}, true},
		{"one unparked", []Mount{parked, {Park: Park{Device: "b", Reported: true}}}, false},
		{"one parking", []Mount{parked, {Park: Park{Device: "b", Reported: true, Parked: true, Moving: true}}}, false},
		{"one silent", []Mount{parked, {Park: Park{Device: "b"}}}, false},
	} {
		assert.Equal(t, tc.want, MountsParked(tc.mounts), tc.name)
	}
}

func TestTheMountsHearASilentOrMovingDomeAsParked(t *testing.T) {
	assert.True(t, DomeParked(Park{}))
	assert.True(t, DomeParked(Park{Reported: true, Moving: true}))
	assert.False(t, DomeParked(Park{Reported: true}))
	assert.True(t, DomeParked(Park{Reported: true, Parked: true}))
}

func TestACauseParksOncePerTransition(t *testing.T) {
	now := time.Date(2026, 12, 5, 23, 14, 0, 0, time.UTC)
	cfg := Config{Telescopes: []Telescope{{Name: "east"}}, HeartbeatTimeoutSeconds: 120, BeatEverySeconds: 10}
	v := View{Now: now, Config: cfg, Weather: map[string]bool{"Weather Simulator": true}, Beats: map[string]time.Time{"east": now.Add(-time.Minute)}}

	causes, held := NewCauses(v, nil)
	assert.Equal(t, []Cause{{Kind: CauseWeather, Reason: "Weather Simulator reports Alert"}}, causes)
	causes, held = NewCauses(v, held)
	assert.Empty(t, causes, "the Alert holds: no second trip")

	v.Now = now.Add(90 * time.Second) // the last beat is 2m30s old
	causes, held = NewCauses(v, held)
	assert.Equal(t, []Cause{{Kind: CauseHeartbeat, Reason: "no heartbeat from the runner for Telescope east in 2m0s"}}, causes)

	v.Weather["Weather Simulator"] = false
	_, held = NewCauses(v, held)
	v.Weather["Weather Simulator"] = true
	causes, _ = NewCauses(v, held)
	assert.Equal(t, CauseWeather, causes[0].Kind, "a new Alert after calm parks again")
}

func TestNoHeartbeatIsWatchedWithATimeoutOfZeroOrForATelescopeThatLeft(t *testing.T) {
	now := time.Now()
	v := View{Now: now, Config: Config{Telescopes: []Telescope{{Name: "east"}}}, Beats: map[string]time.Time{"east": now.Add(-time.Hour)}}
	assert.Empty(t, v.Silent())
	v.Config.HeartbeatTimeoutSeconds = 60
	assert.Equal(t, []string{"east"}, v.Silent())
	v.Config.Telescopes = nil
	assert.Empty(t, v.Silent())
}

func TestTheRunnerIsAwayOnceItSaidNothingForThreeBeats(t *testing.T) {
	now := time.Now()
	v := View{Now: now, Config: Config{BeatEverySeconds: 10}, LastWord: now.Add(-25 * time.Second)}
	assert.False(t, v.RunnerAway())
	v.LastWord = now.Add(-31 * time.Second)
	assert.True(t, v.RunnerAway())
	assert.True(t, View{Now: now, Config: Config{BeatEverySeconds: 10}}.RunnerAway(), "it never said a word")
}

func TestArmedNamesEachLayerAndWhatIsMissing(t *testing.T) {
	v := View{Domes: []Park{{Device: "Dome Simulator"}}, Weather: map[string]bool{"Weather Simulator": false},
		Config: Config{HeartbeatTimeoutSeconds: 120}}
	armed, msg := Armed(v)
	assert.True(t, armed)
	assert.Equal(t, "Armed: the dome lock (Dome Simulator closes only once every mount is parked); "+
		"the weather interlock on Weather Simulator; the heartbeat watch (2m0s)", msg)
	v.Weather = nil
	armed, msg = Armed(v)
	assert.False(t, armed)
	assert.Contains(t, msg, "Not armed: no weather station runs at the site")
}

func TestTripWordsSayWhatWasDoneWhenAndWhy(t *testing.T) {
	at := time.Date(2026, 12, 5, 23, 14, 5, 0, time.UTC)
	trip := Trip{Time: at, Kind: CauseWeather, Reason: "Weather Simulator reports Alert", RunnerAway: true, Finished: true,
		Parked: []Done{{Telescope: "east", Device: "Telescope Simulator"}}, Closed: []Done{{Device: "Dome Simulator"}}}
	assert.Equal(t, "parked Telescope Simulator of Telescope east, then closed Dome Simulator at 23:14:05 UTC because Weather Simulator reports Alert, "+
		"while the runner was away", TripWords(trip))
}

func TestAReportSeesTheMountsOfRunningTelescopesOnly(t *testing.T) {
	cfg := Config{Telescopes: []Telescope{
		{Name: "east", Address: "east:7624", Mounts: []string{"EQMod Mount"}},
		{Name: "west", Mounts: []string{"Telescope Simulator"}}, // its server does not run
	}}
	r := Report{Mounts: []Mount{{Telescope: "east", Park: Park{Device: "EQMod Mount"}}}}
	assert.False(t, r.Sees(cfg), "east's mount is not reported yet")
	r.Mounts[0].Reported = true
	assert.True(t, r.Sees(cfg))
}
