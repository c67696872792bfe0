// The staged crossing is where the Sun is at the level, going the way asked.
package skytest

import (
	"math"
	"testing"
	"time"

	"liken.sh/runner/sky"
)

func TestTheSunPassesTheLevelThereAtThatInstant(t *testing.T) {
	at := time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	for _, rising := range []bool{true, false} {
		lon, err := Longitude(-6, at, rising)
		if err != nil {
			t.Fatal(err)
		}
		place := sky.Place{Longitude: lon}
		now, later := sky.Sun(place, at).Altitude, sky.Sun(place, at.Add(time.Minute)).Altitude
		if math.Abs(now+6) > 0.01 || (later > now) != rising {
			t.Errorf("rising %v: at %.4f° the Sun is at %.3f°, a minute later %.3f°", rising, lon, now, later)
		}
	}
}
