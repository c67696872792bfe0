// Package skytest places a test's site where the sky does something soon: on the equator, at
// the longitude where the Sun passes an altitude at a given instant, rising (dawn) or setting
// (dusk). Tests of the site guard and of nights booked by the sky stage their dawn and dusk
// with it. Production code never imports it.
package skytest

import (
	"fmt"
	"time"

	"liken.sh/runner/sky"
)

// Longitude is the longitude on the equator where the Sun's altitude passes level at at,
// rising or setting. Eastward the Sun is further on its way: higher in the morning, lower in
// the evening; the crossing is found in steps of a degree, then bisected.
func Longitude(level float64, at time.Time, rising bool) (float64, error) {
	above := func(lon float64) bool { return sky.Sun(sky.Place{Longitude: lon}, at).Altitude > level }
	for lon := -180.0; lon < 180; lon++ {
		if above(lon) == rising || above(lon+1) != rising {
			continue
		}
		lo, hi := lon, lon+1
		for hi-lo > 1e-5 {
			if mid := (lo + hi) / 2; above(mid) == rising {
				hi = mid
			} else {
				lo = mid
			}
		}
		return lo, nil
	}
	return 0, fmt.Errorf("no longitude on the equator where the Sun passes %g° at %s", level, at)
}
