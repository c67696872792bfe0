// The booking rules, checked without servers: each rule refuses with its words, an overlap
// is queued or refused as the site says, and only earlier bookings count.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var bookedAt = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// booked is a booking of east made n minutes after bookedAt, from the hour `from` UTC on
// 2026-12-07 for `long` (no end when 0).
func booked(name, holder string, n int, from int, long time.Duration) Booked {
	b := Booked{Name: name, Telescope: "east", Holder: holder, Created: bookedAt.Add(time.Duration(n) * time.Minute),
		Start: time.Date(2026, 12, 7, from, 0, 0, 0, time.UTC)}
	if long > 0 {
		end := b.Start.Add(long)
		b.End = &end
	}
	return b
}

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

func TestABookingWithoutRulesOrOverlapsIsConfirmed(t *testing.T) {
	b := CheckBooking(booked("a", "ada", 1, 20, 2*time.Hour), nil, nil, 0)
	require.Equal(t, Booking{Confirmed: true, Reason: ReasonConfirmed, Message: "Within the site's booking rules; no earlier booking overlaps it"}, b)
}

func TestAnOverlapIsQueuedByDefaultAndRefusedWhenTheSiteSaysSo(t *testing.T) {
	first := booked("tonight", "ada", 1, 20, 0) // no end: overlaps every later window
	second := booked("late", "bob", 2, 23, time.Hour)
	site := []Booked{first, second}

	b := CheckBooking(second, site, nil, 0)
	require.Equal(t, ReasonQueued, b.Reason)
	require.False(t, b.Refused)
	require.Equal(t, "Overlaps Reservation tonight of ada (from 2026-12-07 20:00 UTC until it is deleted): it waits for it in the telescope's queue", b.Message)
	require.True(t, CheckBooking(first, site, nil, 0).Confirmed, "the first booking is untouched")

	refuse := &obsv1.Booking{Overlaps: obsv1.OverlapsRefuse}
	b = CheckBooking(second, site, refuse, 0)
	require.True(t, b.Refused)
	require.Equal(t, ReasonOverlap, b.Reason)
	require.Contains(t, b.Message, "Refused: overlaps Reservation tonight of ada")
	require.True(t, CheckBooking(first, site, refuse, 0).Confirmed, "the first booking is untouched")
}

func TestOnlyWindowsThatMeetOverlap(t *testing.T) {
	refuse := &obsv1.Booking{Overlaps: obsv1.OverlapsRefuse}
	first := booked("early", "ada", 1, 20, 2*time.Hour)
	after := booked("after", "bob", 2, 22, time.Hour) // starts as the first ends
	require.True(t, CheckBooking(after, []Booked{first, after}, refuse, 0).Confirmed)

	other := booked("west", "bob", 2, 20, time.Hour)
	other.Telescope = "west"
	require.True(t, CheckBooking(other, []Booked{first, other}, refuse, 0).Confirmed, "another telescope")

	for _, f := range []func(*Booked){func(b *Booked) { b.Refused = true }, func(b *Booked) { b.Over = true }} {
		gone := first
		f(&gone)
		late := booked("late", "bob", 2, 21, time.Hour)
		require.True(t, CheckBooking(late, []Booked{gone, late}, refuse, 0).Confirmed, "a refused or ended booking holds nothing")
	}
}

func TestEachRuleRefusesInItsOwnWords(t *testing.T) {
	for _, c := range []struct {
		name   string
		rules  obsv1.Booking
		r      Booked
		before []Booked
		reason string
		words  string
	}{
		{"too long", obsv1.Booking{MaxDuration: dur(4 * time.Hour)}, booked("r", "ada", 1, 19, 6*time.Hour), nil,
			ReasonTooLong, "Refused: it lasts 6h; the site allows at most 4h per reservation (spec.booking.maxDuration)"},
		{"no end", obsv1.Booking{MaxDuration: dur(4 * time.Hour), MaxPerWeek: dur(10 * time.Hour)}, booked("r", "ada", 1, 19, 0), nil,
			ReasonNoEnd, "Refused: it has no end, and the site limits booked time (spec.booking.maxDuration, spec.booking.maxPerWeek); give spec.end, or book by spec.night"},
		{"too far ahead", obsv1.Booking{MaxAhead: dur(72 * time.Hour)}, booked("r", "ada", 1, 19, time.Hour), nil,
			ReasonTooFarAhead, "Refused: it starts 153h59m after it was booked; the site allows booking at most 72h ahead (spec.booking.maxAhead)"},
		{"a night's share", obsv1.Booking{MaxPerNight: dur(4 * time.Hour)}, booked("r", "ada", 3, 22, 2*time.Hour),
			[]Booked{booked("dusk", "ada", 1, 18, 3*time.Hour), booked("bobs", "bob", 2, 22, 3*time.Hour)},
			ReasonNightShare, "Refused: ada would hold 5h in the night of 2026-12-07; the site allows 4h per holder (spec.booking.maxPerNight); booked before: dusk"},
		{"a week's share", obsv1.Booking{MaxPerWeek: dur(5 * time.Hour)}, booked("r", "ada", 3, 20, 3*time.Hour),
			[]Booked{daysLater(booked("wed", "ada", 1, 20, 3*time.Hour), 2), daysLater(booked("next", "ada", 2, 20, 3*time.Hour), 7)},
			ReasonWeekShare, "Refused: ada would hold 6h in the week of 2026-12-07; the site allows 5h per holder (spec.booking.maxPerWeek); booked before: wed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := CheckBooking(c.r, append(c.before, c.r), &c.rules, 0)
			require.True(t, b.Refused)
			require.Equal(t, c.reason, b.Reason)
			require.Equal(t, c.words, b.Message)
		})
	}
}

// daysLater moves a booking days later.
func daysLater(b Booked, days int) Booked {
	b.Start = b.Start.AddDate(0, 0, days)
	end := b.End.AddDate(0, 0, days)
	b.End = &end
	return b
}

func TestNightsAreTheSitesSolarDays(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 12, 7, h, 0, 0, 0, time.UTC) }
	require.Equal(t, "2026-12-06", nightOf(at(1), 0).Format(time.DateOnly), "01:00 is the night before's morning")
	require.Equal(t, "2026-12-07", nightOf(at(13), 0).Format(time.DateOnly))
	require.Equal(t, "2026-12-07", nightOf(at(1), 180).Format(time.DateOnly), "12 hours east, 01:00 UTC is 13:00 there")
}

func TestASharesHoursAreTheHoursHeldInsideItsNightOrWeek(t *testing.T) {
	night := &obsv1.Booking{MaxPerNight: dur(4 * time.Hour)}
	// 10:00-14:00 holds the last two hours of the night of the 6th and the first two of the 7th.
	noon := booked("noon", "ada", 1, 10, 4*time.Hour)
	evening := booked("evening", "ada", 2, 20, 3*time.Hour)
	b := CheckBooking(evening, []Booked{noon, evening}, night, 0)
	require.Equal(t, "Refused: ada would hold 5h in the night of 2026-12-07; the site allows 4h per holder (spec.booking.maxPerNight); booked before: noon", b.Message)

	// Thirty hours from 20:00 hold 16 in the night of the 7th and 14 in the night of the 8th.
	long := &obsv1.Booking{MaxPerNight: dur(20 * time.Hour)}
	twoNights := booked("two-nights", "ada", 2, 20, 30*time.Hour)
	require.True(t, CheckBooking(twoNights, []Booked{twoNights}, long, 0).Confirmed)
	nextDusk := daysLater(booked("next-dusk", "ada", 1, 18, 7*time.Hour), 1) // 18:00-01:00 of the 8th
	b = CheckBooking(twoNights, []Booked{nextDusk, twoNights}, long, 0)
	require.Equal(t, "Refused: ada would hold 21h in the night of 2026-12-08; the site allows 20h per holder (spec.booking.maxPerNight); booked before: next-dusk", b.Message)

	// A night that runs past Monday's noon counts in both weeks.
	week := &obsv1.Booking{MaxPerWeek: dur(5 * time.Hour)}
	sunday := daysLater(booked("sunday", "ada", 1, 10, 4*time.Hour), 7) // Sunday's night to Monday the 14th, 14:00
	monday := daysLater(booked("monday", "ada", 2, 20, 4*time.Hour), 7)
	require.True(t, CheckBooking(sunday, []Booked{sunday}, week, 0).Confirmed)
	b = CheckBooking(monday, []Booked{sunday, monday}, week, 0)
	require.Equal(t, "Refused: ada would hold 6h in the week of 2026-12-14; the site allows 5h per holder (spec.booking.maxPerWeek); booked before: sunday", b.Message)
}

func TestPrioritiesComeFromTheSitesList(t *testing.T) {
	rules := &obsv1.Booking{Priorities: []obsv1.HolderPriority{{Holder: "ada", Priority: 10}}}
	require.Equal(t, int32(10), CheckBooking(booked("r", "ada", 1, 20, time.Hour), nil, rules, 0).Priority)
	require.Equal(t, int32(0), CheckBooking(booked("r", "bob", 1, 20, time.Hour), nil, rules, 0).Priority)
}

func TestOnlyARuleRefusesABookingsHours(t *testing.T) {
	cond := func(status metav1.ConditionStatus, reason string) *obsv1.Condition {
		return &obsv1.Condition{Type: obsv1.ConditionConfirmed, Status: status, Reason: reason}
	}
	require.False(t, BookingRefused(nil))
	require.False(t, BookingRefused(cond(metav1.ConditionTrue, ReasonConfirmed)))
	require.False(t, BookingRefused(cond(metav1.ConditionFalse, ReasonQueued)), "a queued booking holds its hours")
	require.False(t, BookingRefused(cond(metav1.ConditionFalse, ReasonDaylight)), "so does one in daylight")
	require.True(t, BookingRefused(cond(metav1.ConditionFalse, ReasonNightShare)))
}
