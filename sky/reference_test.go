// Tests against testdata/reference.json, written by an independent implementation
// (astronomy-engine, through testdata/reference.mjs): positions, illumination and twilight
// times for six places across 2026, checked to the accuracy this package promises.
package sky

import (
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"
)

type referenceSky struct {
	Positions []struct {
		Lat, Lon  float64
		Time      time.Time
		Sun, Moon struct{ Alt, Az float64 }
	}
	Illumination []struct {
		Time     time.Time
		Fraction float64
	}
	Nights []map[string]json.RawMessage
}

type referenceNight struct {
	Dusk, Dawn *time.Time
	Kind       string
}

func loadReference(t *testing.T) referenceSky {
	t.Helper()
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var r referenceSky
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Positions) == 0 || len(r.Illumination) == 0 || len(r.Nights) == 0 {
		t.Fatal("reference.json holds no cases")
	}
	return r
}

// angleDiff is the smallest difference between two angles in degrees.
func angleDiff(a, b float64) float64 {
	d := math.Abs(math.Mod(a-b, 360))
	return math.Min(d, 360-d)
}

// checkPosition compares a position with the reference and returns the errors in altitude and
// azimuth. The azimuth error is measured on the sky, shrunk by the cosine of the altitude, since
// near the zenith a tiny shift swings the azimuth wildly; within a degree of it, it is skipped.
func checkPosition(t *testing.T, what string, got, want Position, tol float64) (dAlt, dAz float64) {
	t.Helper()
	dAlt = math.Abs(got.Altitude - want.Altitude)
	if want.Altitude < 89 {
		dAz = angleDiff(got.Azimuth, want.Azimuth) * math.Cos(want.Altitude*math.Pi/180)
	}
	if dAlt > tol || dAz > tol {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
	return dAlt, dAz
}

func TestPositionsAgainstReference(t *testing.T) {
	r := loadReference(t)
	var sunMax, moonMax float64
	for _, c := range r.Positions {
		p := Place{Latitude: c.Lat, Longitude: c.Lon}
		name := c.Time.Format(time.RFC3339)
		a, z := checkPosition(t, "Sun "+name, Sun(p, c.Time), Position{c.Sun.Alt, c.Sun.Az}, 0.01)
		sunMax = math.Max(sunMax, math.Max(a, z))
		a, z = checkPosition(t, "Moon "+name, Moon(p, c.Time), Position{c.Moon.Alt, c.Moon.Az}, 0.1)
		moonMax = math.Max(moonMax, math.Max(a, z))
	}
	t.Logf("%d positions; largest error: Sun %.4f°, Moon %.4f°", len(r.Positions), sunMax, moonMax)
}

func TestIlluminationAgainstReference(t *testing.T) {
	r := loadReference(t)
	var worst float64
	for _, c := range r.Illumination {
		got := MoonIllumination(c.Time)
		d := math.Abs(got - c.Fraction)
		worst = math.Max(worst, d)
		if d > 0.01 {
			t.Errorf("illumination at %s: got %.4f, want %.4f", c.Time.Format(time.RFC3339), got, c.Fraction)
		}
	}
	t.Logf("%d instants; largest error %.5f", len(r.Illumination), worst)
}

var levelNames = map[string]Twilight{
	"sunset": Sunset, "civil": Civil, "nautical": Nautical, "astronomical": Astronomical,
}

var darknessNames = map[string]Darkness{"falls": Falls, "never": NeverFalls, "all day": AllDay}

func TestNightsAgainstReference(t *testing.T) {
	r := loadReference(t)
	var worst time.Duration
	for _, c := range r.Nights {
		var p Place
		var day string
		mustUnmarshal(t, c["lat"], &p.Latitude)
		mustUnmarshal(t, c["lon"], &p.Longitude)
		mustUnmarshal(t, c["date"], &day)
		date, err := time.Parse(time.DateOnly, day)
		if err != nil {
			t.Fatal(err)
		}
		for name, level := range levelNames {
			var want referenceNight
			mustUnmarshal(t, c[name], &want)
			got := Night(p, date, level)
			what := day + " " + name + " at " + formatPlace(p)
			if got.Darkness != darknessNames[want.Kind] {
				t.Errorf("%s: darkness %d, want %q", what, got.Darkness, want.Kind)
			}
			worst = max(worst, checkTime(t, what+" dusk", got.Dusk, want.Dusk))
			worst = max(worst, checkTime(t, what+" dawn", got.Dawn, want.Dawn))
		}
	}
	t.Logf("%d nights × 4 twilights; largest error %v", len(r.Nights), worst)
}

// checkTime compares an event with the reference, where nil means there is none, and returns
// the error.
func checkTime(t *testing.T, what string, got time.Time, want *time.Time) time.Duration {
	t.Helper()
	if want == nil || got.IsZero() {
		if want != nil || !got.IsZero() {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
		return 0
	}
	d := got.Sub(*want).Abs()
	if d > time.Minute {
		t.Errorf("%s: got %v, want %v", what, got, *want)
	}
	return d
}

func mustUnmarshal(t *testing.T, b json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

func formatPlace(p Place) string {
	b, _ := json.Marshal(p)
	return string(b)
}
