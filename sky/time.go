// Time scales: the Julian day the series are written in, the few seconds by which the Earth's
// rotation lags the uniform time the orbits run on, and the sidereal time that turns the sky's
// coordinates into the local ones.
package sky

import (
	"math"
	"time"
)

// j2000 is the Julian day of 2000 January 1 at noon, the epoch the series count centuries from.
const j2000 = 2451545.0

// julianDay is the Julian day of t on the UTC scale.
func julianDay(t time.Time) float64 {
	return 2440587.5 + float64(t.UnixNano())/86400e9
}

// centuries is the time since j2000 in Julian centuries of uniform (dynamical) time, which the
// orbits of the Sun and the Moon are written in.
func centuries(jdUTC float64) float64 {
	return (jdUTC + deltaT(jdUTC)/86400 - j2000) / 36525
}

// deltaT is how many seconds dynamical time runs ahead of UTC, from a polynomial fitted to this
// century's measurements. A few seconds of error move the Moon by a thousandth of a degree.
func deltaT(jd float64) float64 {
	y := 2000 + (jd-j2000)/365.25
	u := y - 2000
	return 62.92 + 0.32217*u + 0.005589*u*u
}

// siderealTime is the apparent sidereal time at Greenwich in degrees: the mean sidereal time,
// which follows the Earth's rotation, shifted by the nutation of the equinox.
func siderealTime(jd float64, n nutation) float64 {
	d := jd - j2000
	t := d / 36525
	mean := 280.46061837 + 360.98564736629*d + 0.000387933*t*t - t*t*t/38710000
	return norm360(mean + n.longitude*cosd(n.obliquity))
}

// norm360 brings an angle in degrees into 0 to 360.
func norm360(a float64) float64 {
	a = math.Mod(a, 360)
	if a < 0 {
		a += 360
	}
	return a
}

func sind(a float64) float64 { return math.Sin(a * math.Pi / 180) }
func cosd(a float64) float64 { return math.Cos(a * math.Pi / 180) }

func atan2d(y, x float64) float64 { return math.Atan2(y, x) * 180 / math.Pi }
func asind(x float64) float64     { return math.Asin(x) * 180 / math.Pi }
