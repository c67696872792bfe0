// The sky an Observatory shows: which night is tonight by night and by day, the nights that
// have no astronomical darkness or no end of it, how dark it is and the Moon's phase in words,
// and the same sky for every pass within a few minutes. The numbers themselves are the sky
// package's, tested there against an independent implementation.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/sky"
)

var cambridge = obsv1.Location{Latitude: 52.2043, Longitude: 0.1149}

func TestTonightIsTheNightUnderWayOrByDayTheComingOne(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	place := placeOf(cambridge)
	newYear := sky.Night(place, at("2030-01-01T00:00:00Z"), sky.Astronomical)
	next := sky.Night(place, at("2030-01-02T00:00:00Z"), sky.Astronomical)
	for _, c := range []struct {
		now      string
		want     sky.NightTimes
		darkness string
		why      string
	}{
		{"2030-01-01T14:00:00Z", newYear, DarknessDay, "the afternoon before"},
		{"2030-01-01T22:00:00Z", newYear, DarknessNight, "in the evening"},
		{"2030-01-02T04:00:00Z", newYear, DarknessNight, "after midnight, before dawn"},
		{"2030-01-02T10:00:00Z", next, DarknessDay, "in the morning after dawn: the coming night"},
	} {
		st := SkyStatus(cambridge, at(c.now))
		require.NotNil(t, st.Dusk, c.why)
		require.NotNil(t, st.Dawn, c.why)
		assert.Equal(t, c.want.Dusk, st.Dusk.Time, c.why)
		assert.Equal(t, c.want.Dawn, st.Dawn.Time, c.why)
		assert.Equal(t, c.darkness, st.Darkness, c.why)
		assert.Equal(t, "astronomical night "+c.want.Dusk.Format("15:04 UTC")+" to "+c.want.Dawn.Format("15:04 UTC"), st.Tonight, c.why)
	}
}

func TestANightWithoutAstronomicalDarknessSaysSo(t *testing.T) {
	midsummer := time.Date(2030, 6, 21, 23, 0, 0, 0, time.UTC)
	st := SkyStatus(obsv1.Location{Latitude: 60, Longitude: 10}, midsummer)
	assert.Nil(t, st.Dusk)
	assert.Nil(t, st.Dawn)
	assert.Contains(t, st.Tonight, "no astronomical night")
	assert.NotEqual(t, DarknessNight, st.Darkness, "it never gets fully dark")
	assert.Equal(t, "-", SkyDisplay(st)[DisplayDusk])

	polar := SkyStatus(obsv1.Location{Latitude: 85, Longitude: 0}, time.Date(2030, 12, 21, 12, 0, 0, 0, time.UTC))
	assert.Contains(t, polar.Tonight, "polar night")
	assert.Equal(t, DarknessNight, polar.Darkness, "even at noon")
}

func TestTheSkyIsTheSameForEveryPassWithinAFewMinutes(t *testing.T) {
	start := time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	st := SkyStatus(cambridge, start)
	assert.Equal(t, st, SkyStatus(cambridge, start.Add(SkyEvery-time.Second)))
	assert.Equal(t, start, st.Time.Time)
	assert.NotEqual(t, st.SunAltitude, SkyStatus(cambridge, start.Add(SkyEvery)).SunAltitude)
	place := placeOf(cambridge)
	assert.InDelta(t, sky.Sun(place, start).Altitude, st.SunAltitude, 0.05)
	assert.InDelta(t, sky.Moon(place, start).Altitude, st.MoonAltitude, 0.05)
}

func TestHowDarkItIsByTheSunsAltitude(t *testing.T) {
	for sun, want := range map[float64]string{
		10: DarknessDay, -0.5: DarknessDay, -3: DarknessCivil, -9: DarknessNautical, -15: DarknessAstronomical, -18.5: DarknessNight,
	} {
		assert.Equal(t, want, darkness(sun), "the Sun at %.1f°", sun)
	}
}

func TestTheMoonsPhaseInWords(t *testing.T) {
	for _, c := range []struct {
		lit    float64
		waxing bool
		want   string
	}{
		{0.01, true, "New"}, {0.2, true, "Waxing Crescent"}, {0.51, true, "First Quarter"}, {0.8, true, "Waxing Gibbous"},
		{0.99, false, "Full"}, {0.8, false, "Waning Gibbous"}, {0.49, false, "Last Quarter"}, {0.2, false, "Waning Crescent"},
	} {
		assert.Equal(t, c.want, moonPhase(c.lit, c.waxing), "%.2f lit, waxing %v", c.lit, c.waxing)
	}
	st := SkyStatus(cambridge, time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC))
	assert.Equal(t, "-35.7°", SkyDisplay(st)[DisplaySun])
	assert.Equal(t, "7% Waning Crescent", SkyDisplay(st)[DisplayMoon])
}

func TestTheSkysConditionsSayWhichNightsHoldAndKeepTheirTransitionTimes(t *testing.T) {
	evening := time.Date(2030, 1, 1, 17, 0, 0, 0, time.UTC) // the Sun about 9° below at Cambridge
	conds := SkyConditions(nil, SkyStatus(cambridge, evening), 1, evening)
	status := func(typ string) metav1.ConditionStatus { return ConditionOf(conds, typ).Status }
	assert.Equal(t, metav1.ConditionFalse, status(ConditionAstronomicalNight))
	assert.Equal(t, metav1.ConditionFalse, status(ConditionNauticalNight))
	assert.Equal(t, metav1.ConditionTrue, status(ConditionCivilNight))
	assert.Equal(t, "The Sun is more than 6° below the horizon", ConditionOf(conds, ConditionCivilNight).Message)

	later := evening.Add(2 * time.Hour)
	conds = SkyConditions(conds, SkyStatus(cambridge, later), 1, later)
	assert.Equal(t, metav1.ConditionTrue, status(ConditionAstronomicalNight), "dark two hours later")
	assert.Equal(t, later, ConditionOf(conds, ConditionAstronomicalNight).LastTransitionTime.Time)
	assert.Equal(t, evening, ConditionOf(conds, ConditionCivilNight).LastTransitionTime.Time, "civil night held all along")
	assert.NotNil(t, ConditionOf(conds, ConditionMoonUp))
}
