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

func TestACauseHoldsForAsLongAsItsLevelDoes(t *testing.T) {
	now := time.Date(2026, 12, 5, 23, 14, 0, 0, time.UTC)
	cfg := Config{Telescopes: []Telescope{{Name: "east"}}, HeartbeatTimeoutSeconds: 120, BeatEverySeconds: 10}
	v := View{Now: now, Config: cfg, Weather: map[string]bool{"Weather Simulator": true}, Beats: map[string]time.Time{"east": now.Add(-time.Minute)}}

	assert.Equal(t, []Cause{{Kind: CauseWeather, Reason: "Weather Simulator reports Alert"}}, Causes(v))
	assert.Equal(t, Causes(v), Causes(v), "the Alert holds: it is a cause at every look, not once")

	v.Now = now.Add(90 * time.Second) // the last word is 2m30s old
	assert.Equal(t, []Cause{{Kind: CauseWeather, Reason: "Weather Simulator reports Alert"},
		{Kind: CauseHeartbeat, Reason: "no heartbeat from the runner for Telescope east in 2m0s"}}, Causes(v))

	v.Weather["Weather Simulator"] = false
	v.Beats["east"] = v.Now
	assert.Empty(t, Causes(v), "calm, and the runner spoke")
}

// At Cambridge on 2030-01-01 the Sun is 26° below the horizon at 02:00 UTC and 14° above it
// at noon; civil dawn (-6°) is near 07:20.
func TestTheSunAboveTheSitesLimitIsACauseUntilItSetsAgain(t *testing.T) {
	limit := -6.0
	v := View{Armed: true, Config: Config{Latitude: 52.2, Longitude: 0.12, SunAltitudeLimit: &limit}}
	sunUp := Cause{Kind: CauseSun, Reason: "the Sun is above the site's limit of -6°"}
	for _, c := range []struct {
		at   string
		want []Cause
	}{
		{"2030-01-01T02:00:00Z", nil}, {"2030-01-01T07:00:00Z", nil}, {"2030-01-01T07:40:00Z", []Cause{sunUp}},
		{"2030-01-01T12:00:00Z", []Cause{sunUp}}, {"2030-01-01T16:20:00Z", []Cause{sunUp}}, {"2030-01-01T17:00:00Z", nil},
	} {
		v.Now, _ = time.Parse(time.RFC3339, c.at)
		assert.Equal(t, c.want, Causes(v), c.at)
	}
	v.Config.SunAltitudeLimit = nil
	v.Now, _ = time.Parse(time.RFC3339, "2030-01-01T12:00:00Z")
	assert.Empty(t, Causes(v), "no limit, no Sun watch")
	limit = 90
	v.Config.SunAltitudeLimit = &limit
	assert.Empty(t, Causes(v), "90°: the Sun never passes it")
}

func TestTheDriveParksEveryMountThenEveryDomeOnceItsLockHeardThem(t *testing.T) {
	mount := func(name string, parked, moving bool) Mount {
		return Mount{Telescope: name, Park: Park{Device: "Telescope Simulator", Reported: true, Parked: parked, Moving: moving}}
	}
	open := Park{Device: "Dome Simulator", Reported: true}
	v := View{Armed: true, Mounts: []Mount{mount("east", false, false), mount("west", true, true)}, Domes: []Park{open}}

	d := DriveToParked(v, false)
	assert.Equal(t, []Mount{mount("east", false, false)}, d.Mounts, "east is unparked; west is parking already")
	assert.Empty(t, d.Domes, "no dome moves while a mount is not parked")
	assert.False(t, d.Done)

	v.Mounts = []Mount{mount("east", true, false), mount("west", true, false)}
	assert.Empty(t, DriveToParked(v, false).Domes, "the domes' locks have not heard the mounts parked yet")
	d = DriveToParked(v, true)
	assert.Empty(t, d.Mounts)
	assert.Equal(t, []Park{open}, d.Domes)
	assert.False(t, d.Done)

	v.Domes = []Park{{Device: "Dome Simulator", Reported: true, Parked: true, Moving: true}}
	d = DriveToParked(v, true)
	assert.Empty(t, d.Domes, "the dome is closing")
	assert.False(t, d.Done, "not done until the dome is still")
	v.Domes[0].Moving = false
	assert.True(t, DriveToParked(v, true).Done)

	v.Mounts[0] = mount("east", false, true) // someone unparks east under the storm
	d = DriveToParked(v, true)
	assert.Equal(t, []Mount{mount("east", false, true)}, d.Mounts, "it is parked again")
	assert.False(t, d.Done)
}

func TestASilentMountKeepsTheDomesAsTheyAre(t *testing.T) {
	v := View{Armed: true, Mounts: []Mount{{Telescope: "east", Park: Park{Device: "EQMod Mount"}}},
		Domes: []Park{{Device: "Dome Simulator", Reported: true}}}
	d := DriveToParked(v, true)
	assert.Equal(t, v.Mounts, d.Silent)
	assert.Empty(t, d.Mounts)
	assert.Empty(t, d.Domes)
	assert.False(t, d.Done)
}

func TestAGuardNeverArmedMovesNothing(t *testing.T) {
	v := View{Domes: []Park{{Device: "Dome Simulator", Reported: true}}, Weather: map[string]bool{"Weather Simulator": true}}
	assert.Equal(t, Drive{}, DriveToParked(v, true), "it knows no mount, so it closes no dome onto one")
	armed, msg := Armed(v)
	assert.False(t, armed)
	assert.Contains(t, msg, "the runner has not told the guard the site's telescopes, so it parks nothing")
}

func TestAFailedMoveIsTriedAgainAfterABackOffThatGrowsToItsLongest(t *testing.T) {
	assert.Equal(t, []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second},
		[]time.Duration{retryAfter(1), retryAfter(2), retryAfter(3), retryAfter(4), retryAfter(5), retryAfter(50)})
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

func TestTheGuardConnectsTheSitesDevicesOnlyWhileArmedAndTheRunnerIsAway(t *testing.T) {
	now := time.Now()
	v := View{Now: now, Armed: true, Config: Config{BeatEverySeconds: 10, Telescopes: []Telescope{{Name: "east"}}},
		LastWord: now.Add(-5 * time.Second), Disconnected: []string{"Weather Simulator"}}
	assert.Empty(t, ToConnect(v), "the runner is there: it connects what it wants connected")
	v.LastWord = now.Add(-time.Minute)
	assert.Equal(t, []string{"Weather Simulator"}, ToConnect(v))
	v.Config.Telescopes = nil
	assert.Empty(t, ToConnect(v), "no night under way: the runner stops the site")
	v.Config.Telescopes, v.Armed = []Telescope{{Name: "east"}}, false
	assert.Empty(t, ToConnect(v), "a guard never armed touches nothing")
}

func TestArmedNamesEachLayerAndWhatIsMissing(t *testing.T) {
	limit := -6.0
	v := View{Armed: true, Domes: []Park{{Device: "Dome Simulator"}}, Weather: map[string]bool{"Weather Simulator": false},
		Config: Config{HeartbeatTimeoutSeconds: 120, SunAltitudeLimit: &limit}}
	armed, msg := Armed(v)
	assert.True(t, armed)
	assert.Equal(t, "Armed: the dome lock (Dome Simulator closes only once every mount is parked); "+
		"the weather interlock on Weather Simulator; the heartbeat watch (2m0s); the Sun watch (closed while the Sun is above -6°)", msg)
	v.Weather = nil
	armed, msg = Armed(v)
	assert.False(t, armed)
	assert.Contains(t, msg, "Not armed: no weather station runs at the site")
	v.StateError = "read-only file system"
	_, msg = Armed(v)
	assert.Contains(t, msg, "a restart would forget the site (read-only file system)")
}

func TestTripWordsNameEveryCauseAndWhatIsFailing(t *testing.T) {
	at := time.Date(2026, 12, 5, 23, 14, 5, 0, time.UTC)
	trip := Trip{Time: at, Kind: CauseWeather, Reason: "Weather Simulator reports Alert",
		Causes:  []string{"Weather Simulator reports Alert", "no heartbeat from the runner for Telescope east in 2m0s"},
		Failing: "Dome Simulator did not park: Alert: mount is locking"}
	assert.Equal(t, "parking the site at 23:14:05 UTC because Weather Simulator reports Alert and no heartbeat from the runner "+
		"for Telescope east in 2m0s (failing, tried again: Dome Simulator did not park: Alert: mount is locking)", TripWords(trip))
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

func TestATripsCausesAreNamedAllInTheOrderTheyCame(t *testing.T) {
	for name, tc := range map[string]struct {
		trip Trip
		want string
	}{
		"a guard that names no causes":  {Trip{Reason: "a"}, "a"},
		"one cause":                     {Trip{Reason: "a", Causes: []string{"a"}}, "a"},
		"two causes":                    {Trip{Reason: "a", Causes: []string{"a", "b"}}, "a and b"},
		"three causes, the first first": {Trip{Reason: "a", Causes: []string{"a", "b", "c"}}, "a, b and c"},
	} {
		t.Run(name, func(t *testing.T) { assert.Equal(t, tc.want, TripCauses(tc.trip)) })
	}
}
