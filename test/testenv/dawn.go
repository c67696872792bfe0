// A dawn staged for the site guard's end-to-end tests: the example's Observatory, whose
// guard watches no Sun, moved to where the Sun passes the default limit soon, and a look at
// whether the runner has told the site guard so.
package testenv

import (
	"fmt"
	"math"
	"testing"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/sky/skytest"
)

// DawnLimit is the Sun's altitude the staged dawn passes: the Observatory's default limit.
const DawnLimit = -6.0

// DawnPatch is a merge patch of an Observatory that moves it to the equator, at the longitude
// where the Sun passes DawnLimit rising at dawn, and sets that limit. It returns the longitude.
func DawnPatch(t testing.TB, dawn time.Time) (patch []byte, longitude float64) {
	t.Helper()
	lon, err := skytest.Longitude(DawnLimit, dawn, true)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Appendf(nil, `{"spec":{"location":{"latitude":0,"longitude":%g},"safety":{"sunAltitude":%g}}}`, lon, DawnLimit), lon
}

// GuardTold says whether the runner has told the site guard the place and limit of a
// DawnPatch: its server's GUARD_CONFIG holds them.
func GuardTold(site *indi.Client, longitude float64) bool {
	cfg := GuardConfig(site)
	return cfg.SunAltitudeLimit != nil && *cfg.SunAltitudeLimit == DawnLimit && math.Abs(cfg.Longitude-longitude) < 1e-9
}

// GuardConfig is what the runner last told the site guard (its server's GUARD_CONFIG), empty
// while it has told it nothing.
func GuardConfig(site *indi.Client) guard.Config {
	p, _ := site.Property(guard.Device, guard.PropConfig)
	text, _ := p.Text(guard.ElemConfig)
	cfg, _ := guard.DecodeConfig(text)
	return cfg
}
