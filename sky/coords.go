// Coordinate conversions: the nutation and the obliquity of the equator, ecliptic to equatorial
// coordinates, the shift from the Earth's centre to a place on its surface, and equatorial to
// horizontal coordinates.
package sky

import "math"

// earthRadius is the Earth's equatorial radius in kilometres, and earthFlattening the ratio of
// its polar to its equatorial radius: a place's latitude on the ellipsoid is not the direction to
// the Earth's centre.
const (
	earthRadius     = 6378.14
	earthFlattening = 0.99664719
	auKm            = 149597870.7
)

// nutation is the nodding of the Earth's axis, in degrees: its shift of the ecliptic longitudes
// and the true obliquity of the equator it gives.
type nutation struct{ longitude, obliquity float64 }

// nutationAt keeps the four largest terms of the nutation, driven by the Moon's node and the
// mean longitudes of the Sun and the Moon: good to a thousandth of a degree.
func nutationAt(t float64) nutation {
	node := 125.04452 - 1934.136261*t
	sun := 280.4665 + 36000.7698*t
	moon := 218.3165 + 481267.8813*t
	dpsi := -17.20*sind(node) - 1.32*sind(2*sun) - 0.23*sind(2*moon) + 0.21*sind(2*node)
	deps := 9.20*cosd(node) + 0.57*cosd(2*sun) + 0.10*cosd(2*moon) - 0.09*cosd(2*node)
	mean := 23.43929111 - (46.8150*t+0.00059*t*t-0.001813*t*t*t)/3600
	return nutation{longitude: dpsi / 3600, obliquity: mean + deps/3600}
}

// equatorial is a body's direction from the Earth's centre against the equator and equinox of
// date, in degrees, and its distance in kilometres.
type equatorial struct{ rightAscension, declination, distance float64 }

// fromEcliptic turns ecliptic longitude and latitude into equatorial coordinates.
func fromEcliptic(longitude, latitude, distance, obliquity float64) equatorial {
	ra := atan2d(sind(longitude)*cosd(obliquity)-math.Tan(latitude*math.Pi/180)*sind(obliquity), cosd(longitude))
	dec := asind(sind(latitude)*cosd(obliquity) + cosd(latitude)*sind(obliquity)*sind(longitude))
	return equatorial{rightAscension: norm360(ra), declination: dec, distance: distance}
}

// horizontal is where a body at e stands in the sky of p at the Julian day jd. It moves the
// observer from the Earth's centre to p first, which shifts the Moon by up to a degree.
func horizontal(p Place, jd float64, e equatorial) Position {
	local := siderealTime(jd, nutationAt(centuries(jd))) + p.Longitude
	x, y, z := cartesian(e.rightAscension, e.declination, e.distance)
	ox, oy, oz := observer(p.Latitude, local)
	ra := atan2d(y-oy, x-ox)
	dec := atan2d(z-oz, math.Hypot(x-ox, y-oy))

	hour := local - ra
	alt := asind(sind(p.Latitude)*sind(dec) + cosd(p.Latitude)*cosd(dec)*cosd(hour))
	az := atan2d(-cosd(dec)*sind(hour), sind(dec)*cosd(p.Latitude)-cosd(dec)*cosd(hour)*sind(p.Latitude))
	return Position{Altitude: alt, Azimuth: norm360(az)}
}

// cartesian is the point at distance along right ascension ra and declination dec.
func cartesian(ra, dec, distance float64) (x, y, z float64) {
	return distance * cosd(dec) * cosd(ra), distance * cosd(dec) * sind(ra), distance * sind(dec)
}

// observer is where a place at geodetic latitude lat lies from the Earth's centre, in
// kilometres along the equatorial axes, when its local sidereal time is local.
func observer(lat, local float64) (x, y, z float64) {
	u := math.Atan(earthFlattening * math.Tan(lat*math.Pi/180))
	rhoSin := earthFlattening * math.Sin(u)
	rhoCos := math.Cos(u)
	return earthRadius * rhoCos * cosd(local), earthRadius * rhoCos * sind(local), earthRadius * rhoSin
}
