// Package sky computes where the Sun and the Moon stand for a place and an instant, how much of
// the Moon is lit, and when the nights of each twilight fall. It follows the classic truncated
// series for the Sun's and the Moon's coordinates, good to about a hundredth of a degree for the
// Sun and a few hundredths for the Moon over this century: enough to plan a night of observing,
// not to point a telescope blind. Altitudes are geometric, without refraction, so a body on the
// horizon reads about half a degree lower than it looks. Every function is pure: the same place
// and instant give the same answer.
package sky

import "time"

// Place is where on Earth the sky is seen from: geodetic latitude and longitude in degrees, east
// positive. Elevation is ignored; it shifts nothing here by more than a few hundredths of a degree.
type Place struct{ Latitude, Longitude float64 }

// Position is a body's place in the local sky, in degrees: Altitude above the horizon without
// refraction, Azimuth from north through east, 0 to 360.
type Position struct{ Altitude, Azimuth float64 }

// Sun is where the Sun's centre stands in the sky of p at t.
func Sun(p Place, t time.Time) Position {
	jd := julianDay(t)
	return horizontal(p, jd, sunEquatorial(jd))
}

// Moon is where the Moon's centre stands in the sky of p at t, seen from p rather than from the
// Earth's centre: the Moon is close enough that the difference reaches a degree.
func Moon(p Place, t time.Time) Position {
	jd := julianDay(t)
	return horizontal(p, jd, moonEquatorial(jd))
}
