// A booking against the site's rules (Observatory spec.booking): whether a Reservation's
// window overlaps another's on its telescope, and whether it keeps to the longest
// reservation, the holder's share of a night and of a week, and how far ahead one may book.
// Only the bookings made before it count, so a new request never moves the first booking:
// it is the one refused or marked. A pure function of the site's reservations, checked at
// each read until the reservation takes its telescope.
package kube

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/sky"
)

// The Confirmed condition's reasons.
const (
	ReasonConfirmed   = "Confirmed"
	ReasonQueued      = "Queued"
	ReasonOverlap     = "Overlap"
	ReasonNoEnd       = "NoEnd"
	ReasonTooLong     = "TooLong"
	ReasonTooFarAhead = "TooFarAhead"
	ReasonNightShare  = "OverNightlyShare"
	ReasonWeekShare   = "OverWeeklyShare"
)

// Booked is a reservation of the site as the rules see it.
type Booked struct {
	Name, Telescope, Holder string
	// Start is spec.start, the night's dusk, or the creation time; End is nil when the
	// reservation has no end.
	Start   time.Time
	End     *time.Time
	Created time.Time
	// Refused: its own booking was refused, so it holds no time. Over: it ended (Released,
	// Failed) or is being deleted, so it holds no telescope (its hours still count).
	Refused, Over bool
}

// Booking is what the rules say of one reservation: its Confirmed condition, and whether it
// is refused (it does not take the telescope until its spec fits).
type Booking struct {
	Confirmed bool   `json:",omitempty"`
	Refused   bool   `json:",omitempty"`
	Reason    string `json:",omitempty"`
	Message   string `json:",omitempty"`
	// Priority is its holder's priority at the site.
	Priority int32 `json:",omitempty"`
}

// CheckBooking checks r against rules (nil: none) among the site's other reservations, at
// a site at longitude (degrees east), where the nights are counted.
func CheckBooking(r Booked, site []Booked, rules *obsv1.Booking, longitude float64) Booking {
	before := bookedBefore(r, site)
	b := Booking{Priority: rules.PriorityOf(r.Holder)}
	if rules == nil {
		rules = &obsv1.Booking{}
	}
	if why, reason := overRule(r, before, rules, longitude); why != "" {
		b.Refused, b.Reason, b.Message = true, reason, "Refused: "+why
		return b
	}
	if other := firstOverlap(r, before); other != nil {
		b.Reason, b.Message = ReasonQueued, fmt.Sprintf("Overlaps %s: it waits for it in the telescope's queue", bookedWords(*other))
		if rules.Overlaps == obsv1.OverlapsRefuse {
			b.Refused, b.Reason = true, ReasonOverlap
			b.Message = fmt.Sprintf("Refused: overlaps %s, and the site refuses overlapping bookings (spec.booking.overlaps); book another time or telescope", bookedWords(*other))
		}
		return b
	}
	b.Confirmed, b.Reason, b.Message = true, ReasonConfirmed, "Within the site's booking rules; no earlier booking overlaps it"
	return b
}

// BookingRefused says whether a Confirmed condition refused its booking: False for a rule it
// broke, not for a queue or daylight, with which it still holds its telescope and its hours.
func BookingRefused(c *obsv1.Condition) bool {
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason != ReasonQueued && c.Reason != ReasonDaylight
}

// overRule is the first rule r breaks, in words, and its reason.
func overRule(r Booked, before []Booked, rules *obsv1.Booking, longitude float64) (string, string) {
	if rules.MaxAhead != nil && r.Start.Sub(r.Created) > rules.MaxAhead.Duration {
		return fmt.Sprintf("it starts %s after it was booked; the site allows booking at most %s ahead (spec.booking.maxAhead)",
			hours(r.Start.Sub(r.Created)), hours(rules.MaxAhead.Duration)), ReasonTooFarAhead
	}
	if r.End == nil {
		if limits := timeLimits(rules); limits != "" {
			return "it has no end, and the site limits booked time (" + limits + "); give spec.end, or book by spec.night", ReasonNoEnd
		}
		return "", ""
	}
	if rules.MaxDuration != nil && r.End.Sub(r.Start) > rules.MaxDuration.Duration {
		return fmt.Sprintf("it lasts %s; the site allows at most %s per reservation (spec.booking.maxDuration)",
			hours(r.End.Sub(r.Start)), hours(rules.MaxDuration.Duration)), ReasonTooLong
	}
	night := nightOf(r.Start, longitude)
	if rules.MaxPerNight != nil {
		for _, p := range periodsOf(r, night, 1, longitude, "the night of ") {
			if why := overShare(r, before, rules.MaxPerNight.Duration, p, "maxPerNight"); why != "" {
				return why, ReasonNightShare
			}
		}
	}
	if rules.MaxPerWeek != nil {
		monday := night.AddDate(0, 0, -((int(night.Weekday()) + 6) % 7)) // weeks run Monday's night to Sunday's
		for _, p := range periodsOf(r, monday, 7, longitude, "the week of ") {
			if why := overShare(r, before, rules.MaxPerWeek.Duration, p, "maxPerWeek"); why != "" {
				return why, ReasonWeekShare
			}
		}
	}
	return "", ""
}

// timeLimits names the rules that limit booked time, which a reservation without an end
// cannot keep to.
func timeLimits(rules *obsv1.Booking) string {
	var names []string
	for _, l := range []struct {
		name string
		set  bool
	}{{"maxDuration", rules.MaxDuration != nil}, {"maxPerNight", rules.MaxPerNight != nil}, {"maxPerWeek", rules.MaxPerWeek != nil}} {
		if l.set {
			names = append(names, "spec.booking."+l.name)
		}
	}
	return strings.Join(names, ", ")
}

// overShare says, in words, when r's holder would hold more than limit in period p, with
// what they booked before in it. Each booking counts the hours it holds inside the period, so
// one that runs past noon counts in both nights, and one past Monday's noon in both weeks.
func overShare(r Booked, before []Booked, limit time.Duration, p period, rule string) string {
	total := p.held(r)
	var earlier []string
	for _, b := range before {
		if b.Holder != r.Holder || b.Refused || b.End == nil {
			continue // an earlier booking without an end was booked before the rule
		}
		if h := p.held(b); h > 0 {
			total += h
			earlier = append(earlier, b.Name)
		}
	}
	if total <= limit {
		return ""
	}
	why := fmt.Sprintf("%s would hold %s in %s; the site allows %s per holder (spec.booking.%s)", r.Holder, hours(total), p.words, hours(limit), rule)
	if len(earlier) > 0 {
		why += "; booked before: " + strings.Join(earlier, ", ")
	}
	return why
}

// bookedBefore are the site's reservations made before r (by creation, then name), but r.
func bookedBefore(r Booked, site []Booked) []Booked {
	var out []Booked
	for _, b := range site {
		if b.Created.Before(r.Created) || (b.Created.Equal(r.Created) && b.Name < r.Name) {
			out = append(out, b)
		}
	}
	return out
}

// firstOverlap is the earliest-starting booking before r on its telescope whose window
// overlaps r's; a window without an end runs for ever.
func firstOverlap(r Booked, before []Booked) *Booked {
	var first *Booked
	for i, b := range before {
		if b.Telescope != r.Telescope || b.Refused || b.Over {
			continue
		}
		if (b.End == nil || b.End.After(r.Start)) && (r.End == nil || r.End.After(b.Start)) {
			if first == nil || b.Start.Before(first.Start) {
				first = &before[i]
			}
		}
	}
	return first
}

// bookedWords names a booking: "Reservation tonight of ada (2026-12-07 20:00 UTC until it
// is deleted)".
func bookedWords(b Booked) string {
	start := metav1.NewTime(b.Start)
	var end *metav1.Time
	if b.End != nil {
		e := metav1.NewTime(*b.End)
		end = &e
	}
	return fmt.Sprintf("Reservation %s of %s (%s)", b.Name, b.Holder, contract.Window(&start, end))
}

// nightOf is the site's night a moment belongs to: the date of its evening by the site's
// solar time (longitude/15 hours from UTC), noon to noon.
func nightOf(t time.Time, longitude float64) time.Time {
	return sky.SolarDate(sky.Place{Longitude: longitude}, t.Add(-12*time.Hour))
}

// period is a span of the site's nights, from the noon that starts its first to the noon
// that ends its last, by the site's solar time.
type period struct {
	from, to time.Time
	words    string // "the night of 2026-12-07", "the week of 2026-12-07"
}

// nights is the period of n nights from the night of date (a nightOf).
func nights(date time.Time, n int, longitude float64, words string) period {
	noon := sky.Noon(sky.Place{Longitude: longitude}, date)
	return period{from: noon, to: noon.AddDate(0, 0, n), words: words + date.Format(time.DateOnly)}
}

// held is how long b holds within p.
func (p period) held(b Booked) time.Duration {
	from, to := b.Start, *b.End
	if from.Before(p.from) {
		from = p.from
	}
	if to.After(p.to) {
		to = p.to
	}
	return max(to.Sub(from), 0)
}

// periodsOf are the periods of days nights, the first from the night first, that r holds
// time in.
func periodsOf(r Booked, first time.Time, days int, longitude float64, words string) []period {
	var out []period
	for date := first; ; date = date.AddDate(0, 0, days) {
		p := nights(date, days, longitude, words)
		out = append(out, p)
		if !p.to.Before(*r.End) {
			return out
		}
	}
}

// hours is a duration as a booking sheet writes it: "4h", "2h30m", "45m".
func hours(d time.Duration) string {
	d = d.Round(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case m == 0:
		return fmt.Sprintf("%dh", h)
	case h == 0:
		return fmt.Sprintf("%dm", m)
	}
	return fmt.Sprintf("%dh%02dm", h, m)
}
