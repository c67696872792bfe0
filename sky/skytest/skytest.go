// Package skytest places a test's site where the sky does something soon: on the equator, at
// the longitude where the Sun passes an altitude at a given instant, rising (dawn) or setting
// (dusk); or where the Sun only grazes a twilight's level, so its night lasts minutes. Tests of
// the site guard and of nights booked by the sky stage their dawn and dusk with it.
// Production code never imports it.
package skytest

import (
	"fmt"
	"time"

	"liken.sh/runner/sky"
)

// Longitude is the longitude on the equator where the Sun's altitude passes level at at,
// rising or setting. Eastward the Sun is further on its way: higher in the morning, lower in
// the evening.
func Longitude(level float64, at time.Time, rising bool) (float64, error) {
	lon, ok := turn(-180, 180, rising, func(lon float64) bool { return sky.Sun(sky.Place{Longitude: lon}, at).Altitude > level })
	if !ok {
		return 0, fmt.Errorf("no longitude on the equator where the Sun passes %g° at %s", level, at)
	}
	return lon, nil
}

// Grazing is a place where the Sun is lowest at at, depth degrees below level: where the
// night of that twilight lasts only minutes around at (a depth of 0.0005° makes it about two
// minutes long). Its longitude puts the Sun's lower culmination at at; its latitude, on the
// side of the equator where the Sun's declination is, sets how low it goes.
func Grazing(level, depth float64, at time.Time) (sky.Place, error) {
	alt := func(lat, lon float64, t time.Time) float64 {
		return sky.Sun(sky.Place{Latitude: lat, Longitude: lon}, t).Altitude
	}
	// At 45° S the Sun is below the horizon at its lower culmination all year: the
	// longitude where it stops falling and starts rising there.
	lon, ok := turn(-180, 180, true, func(lon float64) bool {
		return alt(-45, lon, at.Add(time.Minute)) > alt(-45, lon, at.Add(-time.Minute)) && alt(-45, lon, at) < 0
	})
	if !ok {
		return sky.Place{}, fmt.Errorf("no longitude where the Sun is lowest at %s", at)
	}
	above := func(lat float64) bool { return alt(lat, lon, at) > level-depth }
	lat, ok := turn(-89, 89, true, above)
	if !ok {
		lat, ok = turn(-89, 89, false, above)
	}
	if !ok {
		return sky.Place{}, fmt.Errorf("no latitude where the Sun is lowest %g° below %g° at %s", depth, level, at)
	}
	return sky.Place{Latitude: lat, Longitude: lon}, nil
}

// turn finds, in steps of a degree from lo to hi and then by bisection, the first x where f
// turns to the value to.
func turn(lo, hi float64, to bool, f func(float64) bool) (float64, bool) {
	for x := lo; x < hi; x++ {
		if f(x) == to || f(x+1) != to {
			continue
		}
		a, b := x, x+1
		for b-a > 1e-9 {
			if mid := (a + b) / 2; f(mid) == to {
				b = mid
			} else {
				a = mid
			}
		}
		return b, true
	}
	return 0, false
}
