// Unit tests of the pieces against worked values that do not need the reference file: Julian
// days of known dates, the sidereal time, the Moon's series and whether it waxes, and the nights
// that do not come or never end near the poles.
package sky

import (
	"math"
	"testing"
	"time"
)

func TestJulianDay(t *testing.T) {
	for _, c := range []struct {
		t    time.Time
		want float64
	}{
		{time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC), 2451545.0},
		{time.Date(1987, 4, 10, 0, 0, 0, 0, time.UTC), 2446895.5},
		{time.Date(1957, 10, 4, 19, 26, 24, 0, time.UTC), 2436116.31},
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), 2440587.5},
		{time.Date(2026, 6, 21, 6, 0, 0, 0, time.UTC), 2461212.75},
	} {
		if got := julianDay(c.t); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("julianDay(%v) = %.6f, want %.6f", c.t, got, c.want)
		}
	}
}

func TestSiderealTime(t *testing.T) {
	// 1987 April 10 at 0h UT: mean sidereal time 13h10m46.3668s, apparent 13h10m46.1351s.
	jd := julianDay(time.Date(1987, 4, 10, 0, 0, 0, 0, time.UTC))
	want := (13 + 10/60.0 + 46.1351/3600) * 15
	if got := siderealTime(jd, nutationAt(centuries(jd))); math.Abs(got-want) > 0.0005 {
		t.Errorf("sidereal time %.6f°, want %.6f°", got, want)
	}
}

func TestMoonSeries(t *testing.T) {
	// 1992 April 12 at 0h dynamical time: longitude 133.162655°, latitude -3.229126°,
	// distance 368409.7 km from the full series of main terms.
	tc := (2448724.5 - j2000) / 36525
	lon, lat, dist := moonEcliptic(tc)
	if math.Abs(lon-133.162655) > 1e-5 || math.Abs(lat+3.229126) > 1e-5 || math.Abs(dist-368409.7) > 0.1 {
		t.Errorf("Moon at 1992-04-12: %.6f° %.6f° %.1f km", lon, lat, dist)
	}
}

func TestNightsNearThePoles(t *testing.T) {
	oslo, tromso := Place{60, 10}, Place{70, 25}
	day := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		name  string
		p     Place
		date  time.Time
		level Twilight
		want  Darkness
	}{
		{"white night at 60° N in June", oslo, day(6, 21), Astronomical, NeverFalls},
		{"yet the Sun sets at 60° N in June", oslo, day(6, 21), Sunset, Falls},
		{"polar day at 70° N in June", tromso, day(6, 21), Sunset, NeverFalls},
		{"polar night at 70° N in December", tromso, day(12, 21), Sunset, AllDay},
		{"civil twilight at noon in the polar night", tromso, day(12, 21), Civil, Falls},
	} {
		n := Night(c.p, c.date, c.level)
		if n.Darkness != c.want {
			t.Errorf("%s: darkness %d, want %d", c.name, n.Darkness, c.want)
		}
		if (n.Darkness != Falls) != (n.Dusk.IsZero() && n.Dawn.IsZero()) {
			t.Errorf("%s: dusk %v and dawn %v with darkness %d", c.name, n.Dusk, n.Dawn, n.Darkness)
		}
	}
}

func TestPolarNightBeginsAndEnds(t *testing.T) {
	tromso := Place{70, 25}
	first := Night(tromso, time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC), Sunset)
	if first.Darkness != Falls || first.Dusk.IsZero() || !first.Dawn.IsZero() {
		t.Errorf("first night of the polar night: %+v, want a dusk and no dawn", first)
	}
	last := Night(tromso, time.Date(2026, 1, 16, 0, 0, 0, 0, time.UTC), Sunset)
	if last.Darkness != Falls || !last.Dusk.IsZero() || last.Dawn.IsZero() {
		t.Errorf("last night of the polar night: %+v, want a dawn and no dusk", last)
	}
}

func TestNightAtTheEquator(t *testing.T) {
	// At the equinox the night between sunset and sunrise is just under 12 hours, centred on
	// local midnight, and each deeper twilight lies inside the shallower one.
	p := Place{0, 0}
	date := time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)
	prev := Night(p, date, Sunset)
	length := prev.Dawn.Sub(prev.Dusk)
	if length < 11*time.Hour+45*time.Minute || length > 12*time.Hour {
		t.Errorf("equinox night at the equator lasts %v", length)
	}
	for _, level := range []Twilight{Civil, Nautical, Astronomical} {
		n := Night(p, date, level)
		if n.Darkness != Falls || !n.Dusk.After(prev.Dusk) || !n.Dawn.Before(prev.Dawn) {
			t.Errorf("twilight %d: %+v not inside %+v", level, n, prev)
		}
		prev = n
	}
}

func TestDateIsTakenAsACalendarDay(t *testing.T) {
	// The clock time and the zone of date do not matter, only its calendar day.
	p := Place{52.5, 13.4}
	a := Night(p, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Civil)
	b := Night(p, time.Date(2026, 3, 1, 23, 59, 0, 0, time.FixedZone("CET", 3600)), Civil)
	if a != b {
		t.Errorf("%+v != %+v", a, b)
	}
}

// The Moon waxes from new to full and wanes after: around the new Moon of the total solar
// eclipse of 2024-04-08 (18:21 UTC), the full Moon of 2024-04-23 (23:49 UTC) and the full Moon
// of the total lunar eclipse of 2025-03-14 (06:58 UTC).
func TestMoonWaxesFromNewToFull(t *testing.T) {
	for _, c := range []struct {
		at     string
		waxing bool
	}{
		{"2024-04-08T12:00:00Z", false}, {"2024-04-09T00:00:00Z", true}, {"2024-04-16T00:00:00Z", true},
		{"2024-04-23T18:00:00Z", true}, {"2024-04-24T06:00:00Z", false}, {"2024-04-30T00:00:00Z", false},
		{"2025-03-13T18:00:00Z", true}, {"2025-03-14T18:00:00Z", false},
	} {
		at, _ := time.Parse(time.RFC3339, c.at)
		if got := MoonWaxing(at); got != c.waxing {
			t.Errorf("MoonWaxing(%s) = %v, want %v", c.at, got, c.waxing)
		}
	}
}

// A place's solar day runs an hour ahead of UTC for each 15° east.
func TestTheSolarDayAndItsNoonGoByLongitude(t *testing.T) {
	late := time.Date(2030, 1, 1, 23, 0, 0, 0, time.UTC)
	if got := SolarDate(Place{Longitude: 30}, late); !got.Equal(time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("30° east at 23:00 UTC is on %s, want the next day", got)
	}
	if got := SolarDate(Place{Longitude: -30}, late); !got.Equal(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("30° west at 23:00 UTC is on %s, want the same day", got)
	}
	if got := Noon(Place{Longitude: 90}, late); !got.Equal(time.Date(2030, 1, 1, 6, 0, 0, 0, time.UTC)) {
		t.Errorf("noon at 90° east is %s, want 06:00 UTC", got)
	}
}
