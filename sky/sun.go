// The Sun's coordinates from the Earth's orbit as a Kepler ellipse with its slow changes, plus
// the equation of the centre, the largest pulls of Venus, Jupiter and the Moon, the aberration
// of light and the nutation: good to a few thousandths of a degree.
package sky

// sunEquatorial is the Sun's apparent direction and distance from the Earth's centre at the
// Julian day jd.
func sunEquatorial(jd float64) equatorial {
	t := centuries(jd)
	n := nutationAt(t)
	longitude, distance := sunEcliptic(t)
	// 20.5 arcseconds of aberration: the Sun is seen where it was as its light set out.
	apparent := longitude - 0.00569 + n.longitude
	return fromEcliptic(apparent, 0, distance*auKm, n.obliquity)
}

// sunEcliptic is the Sun's true geometric longitude in degrees against the mean equinox of date,
// and its distance in astronomical units, t Julian centuries after j2000.
func sunEcliptic(t float64) (longitude, distance float64) {
	mean := 280.46646 + 36000.76983*t + 0.0003032*t*t
	anomaly := 357.52911 + 35999.05029*t - 0.0001537*t*t
	e := 0.016708634 - 0.000042037*t - 0.0000001267*t*t
	centre := (1.914602-0.004817*t-0.000014*t*t)*sind(anomaly) +
		(0.019993-0.000101*t)*sind(2*anomaly) + 0.000289*sind(3*anomaly)
	trueAnomaly := anomaly + centre
	distance = 1.000001018 * (1 - e*e) / (1 + e*cosd(trueAnomaly))
	return norm360(mean + centre + perturbations(t)), distance
}

// perturbations are the largest pulls of Venus, Jupiter and the Moon on the Earth's longitude,
// in degrees; the Moon's swings the Earth about their common centre of mass each month.
func perturbations(t float64) float64 {
	t1900 := t + 1
	venus1 := 153.23 + 22518.7541*t1900
	venus2 := 216.57 + 45037.5082*t1900
	jupiter := 312.69 + 32964.3577*t1900
	moon := 350.74 + 445267.1142*t1900 - 0.00144*t1900*t1900
	return 0.00134*cosd(venus1) + 0.00154*cosd(venus2) + 0.00200*cosd(jupiter) + 0.00179*sind(moon)
}
