// A dawn staged for the site guard's end-to-end tests: the example's Observatory, whose
// guard watches no Sun, moved to where the Sun passes the default limit soon, once the
// runner has told the site guard so.
package testenv

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/sky/skytest"
)

// DawnLimit is the Sun's altitude the staged dawn passes: the Observatory's default limit.
const DawnLimit = -6.0

// StageDawn moves the Observatory name to the equator, at the longitude where the Sun passes
// DawnLimit rising after lead, with that limit, and waits until the runner has told the site
// guard on site (a Ready reservation's observer reads the Observatory every 10 seconds). It
// returns that dawn.
func StageDawn(t testing.TB, ctx context.Context, observatories dynamic.ResourceInterface, name string,
	site *indi.Client, lead time.Duration) time.Time {
	t.Helper()
	dawn := time.Now().Add(lead)
	lon, err := skytest.Longitude(DawnLimit, dawn, true)
	if err != nil {
		t.Fatal(err)
	}
	patch := fmt.Appendf(nil, `{"spec":{"location":{"latitude":0,"longitude":%g},"safety":{"sunAltitude":%g}}}`, lon, DawnLimit)
	if _, err := observatories.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	Eventually(t, time.Until(dawn), "the runner tells the site guard the Observatory's new place before its dawn", func() (bool, string) {
		cfg := GuardConfig(site)
		return told(cfg, lon), fmt.Sprintf("it has %+v", cfg)
	})
	t.Logf("the runner told the site guard of dawn %s before it", time.Until(dawn).Round(time.Second))
	return dawn
}

// told says whether the guard's config has the staged place and limit.
func told(cfg guard.Config, longitude float64) bool {
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
