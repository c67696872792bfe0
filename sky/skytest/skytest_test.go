// The staged crossing is where the Sun is at the level, going the way asked; the staged
// grazing night is where the Sun is lowest, that far below the level.
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

func TestTheSunIsLowestThereAtThatInstantThatFarBelowTheLevel(t *testing.T) {
	at := time.Date(2030, 12, 7, 23, 1, 0, 0, time.UTC)
	place, err := Grazing(-18, 0.0005, at)
	if err != nil {
		t.Fatal(err)
	}
	now := sky.Sun(place, at).Altitude
	before, after := sky.Sun(place, at.Add(-time.Minute)).Altitude, sky.Sun(place, at.Add(time.Minute)).Altitude
	if math.Abs(now+18.0005) > 1e-6 || before < now || after < now {
		t.Errorf("at %.4f°, %.4f° the Sun is at %.6f°, a minute before %.6f°, after %.6f°", place.Latitude, place.Longitude, now, before, after)
	}
}
