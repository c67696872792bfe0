// A night of minutes, where the Sun only grazes the twilight's level: Night finds it between
// its samples, at the place skytest stages it.
package sky_test

import (
	"math"
	"testing"
	"time"

	"liken.sh/runner/sky"
	"liken.sh/runner/sky/skytest"
)

func TestANightOfMinutesIsFoundBetweenTheSamples(t *testing.T) {
	for _, at := range []time.Time{time.Date(2030, 12, 7, 23, 1, 0, 0, time.UTC), time.Date(2031, 6, 21, 4, 30, 0, 0, time.UTC)} {
		level := sky.Astronomical.Altitude()
		place, err := skytest.Grazing(level, 0.0005, at)
		if err != nil {
			t.Fatal(err)
		}
		n := sky.Night(place, sky.SolarDate(place, at.Add(-12*time.Hour)), sky.Astronomical)
		if n.Darkness != sky.Falls || !n.Dusk.Before(at) || !n.Dawn.After(at) {
			t.Fatalf("at %.4f°, %.4f° around %s: %+v, want a night around it", place.Latitude, place.Longitude, at, n)
		}
		if long := n.Dawn.Sub(n.Dusk); long < time.Minute || long > 4*time.Minute {
			t.Errorf("the night lasts %s, want about two minutes", long)
		}
		for _, edge := range []time.Time{n.Dusk, n.Dawn} {
			if alt := sky.Sun(place, edge).Altitude; math.Abs(alt-level) > 1e-5 {
				t.Errorf("at %s the Sun is at %.6f°, want %g°", edge, alt, level)
			}
		}
	}
}
