// The Moon's coordinates from its mean orbit plus the main periodic terms in longitude, latitude
// and distance, with the small extra terms from Venus, Jupiter and the Earth's flattening: good
// to a few thousandths of a degree in direction. Also the fraction of its disc that is lit.
package sky

import (
	"math"
	"time"
)

// moonEquatorial is the Moon's apparent direction and distance from the Earth's centre at the
// Julian day jd.
func moonEquatorial(jd float64) equatorial {
	t := centuries(jd)
	n := nutationAt(t)
	longitude, latitude, distance := moonEcliptic(t)
	return fromEcliptic(longitude+n.longitude, latitude, distance, n.obliquity)
}

// moonArgs are the Moon's mean longitude and the four angles its periodic terms are built on,
// in degrees, with the factor by which the shrinking eccentricity of the Earth's orbit scales
// the terms that involve the Sun's anomaly.
type moonArgs struct{ longitude, d, m, mm, f, e float64 }

func moonArgsAt(t float64) moonArgs {
	t2, t3, t4 := t*t, t*t*t, t*t*t*t
	return moonArgs{
		longitude: 218.3164477 + 481267.88123421*t - 0.0015786*t2 + t3/538841 - t4/65194000,
		d:         297.8501921 + 445267.1114034*t - 0.0018819*t2 + t3/545868 - t4/113065000,
		m:         357.5291092 + 35999.0502909*t - 0.0001536*t2 + t3/24490000,
		mm:        134.9633964 + 477198.8675055*t + 0.0087414*t2 + t3/69699 - t4/14712000,
		f:         93.2720950 + 483202.0175233*t - 0.0036539*t2 - t3/3526000 + t4/863310000,
		e:         1 - 0.002516*t - 0.0000074*t2,
	}
}

// angle is a term's argument, and scale its factor for the eccentricity of the Earth's orbit.
func (a moonArgs) angle(k moonTerm) float64 {
	return float64(k.d)*a.d + float64(k.m)*a.m + float64(k.mm)*a.mm + float64(k.f)*a.f
}

func (a moonArgs) scale(k moonTerm) float64 {
	switch k.m {
	case 1, -1:
		return a.e
	case 2, -2:
		return a.e * a.e
	}
	return 1
}

// moonEcliptic is the Moon's geometric longitude and latitude in degrees against the mean
// equinox of date, and its distance in kilometres, t Julian centuries after j2000.
func moonEcliptic(t float64) (longitude, latitude, distance float64) {
	a := moonArgsAt(t)
	var sl, sr, sb float64
	for _, k := range moonLongitudeDistance {
		x, s := a.angle(k), a.scale(k)
		sl += s * k.a * sind(x)
		sr += s * k.b * cosd(x)
	}
	for _, k := range moonLatitude {
		sb += a.scale(k) * k.a * sind(a.angle(k))
	}
	// Venus, Jupiter and the flattening of the Earth pull on the Moon too.
	a1 := 119.75 + 131.849*t
	a2 := 53.09 + 479264.290*t
	a3 := 313.45 + 481266.484*t
	sl += 3958*sind(a1) + 1962*sind(a.longitude-a.f) + 318*sind(a2)
	sb += -2235*sind(a.longitude) + 382*sind(a3) + 175*sind(a1-a.f) + 175*sind(a1+a.f) +
		127*sind(a.longitude-a.mm) - 115*sind(a.longitude+a.mm)
	return norm360(a.longitude + sl/1e6), sb / 1e6, 385000.56 + sr/1000
}

// MoonIllumination is the fraction of the Moon's disc lit by the Sun at t, 0 at new Moon to 1 at
// full, as seen from the Earth's centre.
func MoonIllumination(t time.Time) float64 {
	tc := centuries(julianDay(t))
	moonLon, moonLat, moonDist := moonEcliptic(tc)
	sunLon, sunDist := sunEcliptic(tc)
	// The elongation of the Moon from the Sun, then the Sun-Moon-Earth angle: the phase angle.
	elongation := math.Acos(cosd(moonLat) * cosd(moonLon-sunLon))
	r := sunDist * auKm
	phase := math.Atan2(r*math.Sin(elongation), moonDist-r*math.Cos(elongation))
	return (1 + math.Cos(phase)) / 2
}

// MoonWaxing says whether the Moon's lit part grows at t: from new Moon to full, when the
// Moon stands east of the Sun, less than half a turn ahead of it in ecliptic longitude.
func MoonWaxing(t time.Time) bool {
	tc := centuries(julianDay(t))
	moonLon, _, _ := moonEcliptic(tc)
	sunLon, _ := sunEcliptic(tc)
	return norm360(moonLon-sunLon) < 180
}
