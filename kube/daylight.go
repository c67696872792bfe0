// Whether a booked window lies wholly in the site's daylight, as its site guard counts it:
// while the Sun stands above spec.safety.sunAltitude the guard keeps every mount parked and
// every dome closed, so a window that never leaves daylight can observe nothing. The booking
// says so when it is made, not on the night: the usual cause is a window meant in local time
// and written in UTC. A window is sampled every two minutes, so only a darkness shorter than
// that could go unseen.
package kube

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/sky"
)

// ReasonDaylight is the Confirmed condition's reason for a window wholly in daylight.
const ReasonDaylight = "Daylight"

const (
	daylightStep = 2 * time.Minute
	// daylightSpan bounds what is sampled: a longer window passes a night outside a polar day.
	daylightSpan = 72 * time.Hour
)

// MarkDaylight turns a confirmed booking of r into one marked Daylight when the Sun stays
// above the site's limit all through r's window. It stays unrefused: the telescope is held,
// and the site may change its limit before the night.
func MarkDaylight(b Booking, r Booked, site obsv1.ObservatorySpec) Booking {
	if !b.Confirmed {
		return b
	}
	if why := inDaylight(r, site.Location, site.Safety.SunAltitudeOrDefault()); why != "" {
		b.Confirmed, b.Reason, b.Message = false, ReasonDaylight, why
	}
	return b
}

// inDaylight says, in words, that the Sun stays above limit all through r's window at loc, and
// when it is next below; "" when it is not, or the window has no end or is longer than
// daylightSpan.
func inDaylight(r Booked, loc obsv1.Location, limit float64) string {
	if r.End == nil || r.End.Sub(r.Start) > daylightSpan || limit >= 90 {
		return ""
	}
	place := placeOf(loc)
	if _, dark := firstDark(place, r.Start, *r.End, limit); dark {
		return ""
	}
	start, end := metav1.NewTime(r.Start), metav1.NewTime(*r.End)
	why := fmt.Sprintf("In daylight: the Sun stays above %g° all through %s, and the site guard keeps the site parked and closed while it does (the Observatory's spec.safety.sunAltitude); book by spec.night",
		limit, contract.Window(&start, &end))
	if t, dark := firstDark(place, *r.End, r.End.Add(24*time.Hour), limit); dark {
		return why + ", or from " + contract.At(t.Truncate(time.Minute).Add(time.Minute)) + " on"
	}
	return why
}

// firstDark is the first sample, from from until to, at which the Sun is at or below limit.
func firstDark(place sky.Place, from, to time.Time, limit float64) (time.Time, bool) {
	for t := from; t.Before(to); t = t.Add(daylightStep) {
		if sky.Sun(place, t).Altitude <= limit {
			return t, true
		}
	}
	return time.Time{}, false
}
