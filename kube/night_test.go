// A night booked by the sky: its dusk and dawn are the sky package's for the site and the
// twilight, a night with no such darkness says what to book instead, and a polar night runs
// from noon to noon.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/sky"
)

func TestANightRunsFromItsDuskToItsDawn(t *testing.T) {
	place := placeOf(cambridge)
	christmas := time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
	for twilight, level := range map[string]sky.Twilight{"": sky.Astronomical, "astronomical": sky.Astronomical,
		"nautical": sky.Nautical, "civil": sky.Civil} {
		p := PlanNight(obsv1.ReservationSpec{Night: "2026-12-24", Twilight: twilight}, cambridge)
		require.NotNil(t, p.Window, twilight)
		want := sky.Night(place, christmas, level)
		assert.Equal(t, want.Dusk, p.Window.Start.Time, twilight)
		assert.Equal(t, want.Dawn, p.Window.End.Time, twilight)
		assert.Empty(t, p.Refused)
	}
	p := PlanNight(obsv1.ReservationSpec{Night: "2026-12-24"}, cambridge)
	assert.Equal(t, "astronomical dusk", p.Dusk)
	assert.Equal(t, "astronomical dusk to astronomical dawn", p.Window.Between)
	assert.Equal(t, "2026-12-24", p.Window.Start.UTC().Format(time.DateOnly), "the evening of the date")
	assert.Equal(t, "2026-12-25", p.Window.End.UTC().Format(time.DateOnly), "to the next morning")
}

func TestANightWithoutThatDarknessSaysWhatToBookInstead(t *testing.T) {
	oslo := obsv1.Location{Latitude: 59.9, Longitude: 10.75}
	p := PlanNight(obsv1.ReservationSpec{Night: "2026-06-21"}, oslo)
	assert.Nil(t, p.Window)
	assert.Equal(t, "No astronomical night at the site on 2026-06-21: the Sun stays less than 18° below the horizon; "+
		"book a lighter twilight (nautical) or another night", p.Refused)
	assert.Contains(t, PlanNight(obsv1.ReservationSpec{Night: "2026-06-21", Twilight: "nautical"}, oslo).Refused,
		"book a lighter twilight (civil)")
	civil := PlanNight(obsv1.ReservationSpec{Night: "2026-06-21", Twilight: "civil"}, oslo)
	require.NotNil(t, civil.Window, "Oslo's midsummer night is civil twilight at its darkest")

	assert.Contains(t, PlanNight(obsv1.ReservationSpec{Night: "2026-06-21", Twilight: "civil"},
		obsv1.Location{Latitude: 70, Longitude: 25}).Refused, "book another night", "the midnight Sun")
	assert.Contains(t, PlanNight(obsv1.ReservationSpec{Night: "24 December"}, oslo).Refused, "write it as YYYY-MM-DD")
}

func TestAPolarNightRunsFromNoonToNoon(t *testing.T) {
	p := PlanNight(obsv1.ReservationSpec{Night: "2026-12-21"}, obsv1.Location{Latitude: 85, Longitude: 0})
	require.NotNil(t, p.Window)
	assert.Equal(t, time.Date(2026, 12, 21, 12, 0, 0, 0, time.UTC), p.Window.Start.UTC())
	assert.Equal(t, time.Date(2026, 12, 22, 12, 0, 0, 0, time.UTC), p.Window.End.UTC())
}
