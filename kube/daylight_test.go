// Daylight at booking, without servers: a window wholly above the site's Sun limit is marked
// and told when it is next dark enough; one that reaches the dark, has no end, or is at a site
// that opens by day is left as the rules said.
package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/sky"
)

func TestAWindowWhollyInDaylightIsMarkedWithTheNextDark(t *testing.T) {
	// Cambridge, 2026-12-07: sunset about 15:43 UTC, civil dusk (the Sun at -6°) about 16:23.
	site := obsv1.ObservatorySpec{Location: obsv1.Location{Latitude: 52.2, Longitude: 0.1}}
	confirmed := CheckBooking(booked("noon", "ada", 1, 11, 2*time.Hour), nil, nil, 0)
	b := MarkDaylight(confirmed, booked("noon", "ada", 1, 11, 2*time.Hour), site)
	require.False(t, b.Confirmed)
	require.False(t, b.Refused, "the telescope stays held: the site may change its limit")
	require.Equal(t, ReasonDaylight, b.Reason)
	require.True(t, strings.HasPrefix(b.Message, "In daylight: the Sun stays above -6° all through 2026-12-07 11:00–13:00 UTC, "+
		"and the site guard keeps the site parked and closed while it does (the Observatory's spec.safety.sunAltitude); book by spec.night, or from 2026-12-07 16:"), b.Message)

	dusk := sky.Night(sky.Place{Latitude: 52.2, Longitude: 0.1}, time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC), sky.Civil).Dusk
	from, err := time.Parse("2006-01-02 15:04 UTC", strings.TrimSuffix(b.Message[strings.LastIndex(b.Message, "from ")+5:], " on"))
	require.NoError(t, err)
	require.True(t, !from.Before(dusk) && from.Sub(dusk) <= 3*time.Minute, "from %s, civil dusk %s", from, dusk)
	require.InDelta(t, 16*60+23, dusk.Hour()*60+dusk.Minute(), 5, "civil dusk %s", dusk)
}

func TestOnlyAWindowWhollyInDaylightIsMarked(t *testing.T) {
	site := obsv1.ObservatorySpec{Location: obsv1.Location{Latitude: 52.2, Longitude: 0.1}}
	byDay := 90.0
	for name, c := range map[string]struct {
		r    Booked
		site obsv1.ObservatorySpec
	}{
		"reaches the dusk": {booked("late", "ada", 1, 15, 2*time.Hour), site},
		"has no end":       {booked("open", "ada", 1, 11, 0), site},
		"opens by day":     {booked("noon", "ada", 1, 11, 2*time.Hour), obsv1.ObservatorySpec{Location: site.Location, Safety: obsv1.Safety{SunAltitude: &byDay}}},
	} {
		t.Run(name, func(t *testing.T) {
			confirmed := CheckBooking(c.r, nil, nil, 0)
			require.Equal(t, confirmed, MarkDaylight(confirmed, c.r, c.site))
		})
	}
	queued := Booking{Reason: ReasonQueued, Message: "Overlaps …"}
	require.Equal(t, queued, MarkDaylight(queued, booked("noon", "ada", 1, 11, 2*time.Hour), site), "the rules' word comes first")
}
