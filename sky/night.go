// The nights of each twilight: when the Sun's centre goes below a level in the evening and comes
// back above it in the morning. The times are found on the Sun's altitude itself, sampled across
// the day and refined by bisection (and, where the Sun only grazes the level between two
// samples, by finding its lowest point), so the polar day and the polar night, when the Sun
// never crosses the level, come out of the same search instead of needing special cases.
package sky

import (
	"math"
	"time"
)

// Twilight is how far below the horizon the Sun's centre must be for the night to count.
type Twilight int

const (
	// Sunset is the Sun's upper limb on the horizon, refraction included.
	Sunset Twilight = iota
	// Civil is the end of the light to work outdoors by.
	Civil
	// Nautical is when the horizon at sea can no longer be seen.
	Nautical
	// Astronomical is when the sky is as dark as the Sun will leave it.
	Astronomical
)

// Altitude is the Sun's altitude in degrees, without refraction, that marks the twilight.
func (l Twilight) Altitude() float64 {
	switch l {
	case Civil:
		return -6
	case Nautical:
		return -12
	case Astronomical:
		return -18
	}
	// Refraction lifts the Sun by 34 arcminutes at the horizon and its radius is 16.
	return -0.833
}

// Darkness says whether a night of a twilight comes at all.
type Darkness int

const (
	// Falls is a night that comes: the Sun goes below the level, and Dusk and Dawn say when.
	Falls Darkness = iota
	// NeverFalls is a night that does not come because the Sun stays above the level all the
	// way round: the polar day, or a white night of that twilight.
	NeverFalls
	// AllDay is the polar night: the Sun stays below the level all day, so it is that dark the
	// whole time and there is neither dusk nor dawn.
	AllDay
)

// NightTimes is one night of a twilight at a place. Dusk is zero when the Sun was already below
// the level at local noon (the last days before a polar night ends), Dawn is zero when the Sun
// is still below it at the next local noon (the first night of a polar night).
type NightTimes struct {
	Darkness   Darkness
	Dusk, Dawn time.Time
}

// sampling is the step of the search: short enough that the Sun cannot go below a level and
// come back above it between two samples, except by grazing it; where the samples pass the
// Sun's lowest point without a crossing, that point is found and looked at (a night of
// minutes, at the latitude where the night of that twilight begins or ends for the year).
const sampling = 10 * time.Minute

// Night is the night of the given twilight at p that starts in the evening of date's calendar
// day, local by longitude (solar time, not a time zone): the search runs from that day's local
// noon to the next.
func Night(p Place, date time.Time, level Twilight) NightTimes {
	noon := Noon(p, date)
	next := noon.Add(24 * time.Hour)
	below := func(t time.Time) float64 { return level.Altitude() - Sun(p, t).Altitude }

	var n NightTimes
	wasDark := below(noon) > 0
	prev, last := below(noon.Add(-sampling)), below(noon)
	for t := noon; t.Before(next); t = t.Add(sampling) {
		u := t.Add(sampling)
		b := below(u)
		dark := b > 0
		switch {
		case dark && !wasDark && n.Dusk.IsZero() && n.Dawn.IsZero():
			n.Dusk = crossing(below, t, u)
		case !dark && wasDark && n.Dawn.IsZero():
			n.Dawn = crossing(below, t, u)
		case !dark && !wasDark && last > prev && last >= b && n.Dusk.IsZero() && n.Dawn.IsZero():
			// The Sun was lowest near t: a night too short for the samples to see?
			if lowest := highest(below, t.Add(-sampling), u); below(lowest) > 0 {
				n.Dusk, n.Dawn = crossing(below, t.Add(-sampling), lowest), crossing(below, lowest, u)
			}
		}
		wasDark, prev, last = dark, last, b
	}
	if n.Dusk.IsZero() && n.Dawn.IsZero() {
		n.Darkness = NeverFalls
		if below(noon) > 0 {
			n.Darkness = AllDay
		}
	}
	return n
}

// Noon is the local noon of date's calendar day at p, by longitude (solar time, not a time
// zone): where Night's search for that day's night begins.
func Noon(p Place, date time.Time) time.Time {
	y, m, d := date.Date()
	return time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Add(-solarOffset(p))
}

// SolarDate is the calendar day at p at t by its solar time, as midnight UTC of that day:
// the date Night takes for the night that begins that evening.
func SolarDate(p Place, t time.Time) time.Time {
	local := t.UTC().Add(solarOffset(p))
	return time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, time.UTC)
}

// solarOffset is how far p's solar time runs ahead of UTC: an hour each 15° east.
func solarOffset(p Place) time.Duration { return time.Duration(p.Longitude / 15 * float64(time.Hour)) }

// highest is when f is highest between a and b, where it rises and then falls, by
// golden-section search to under a second.
func highest(f func(time.Time) float64, a, b time.Time) time.Time {
	const golden = 0.6180339887498949
	inner := func(a, b time.Time) (time.Time, time.Time) {
		d := time.Duration(golden * float64(b.Sub(a)))
		return b.Add(-d), a.Add(d)
	}
	c, d := inner(a, b)
	for b.Sub(a) > 500*time.Millisecond {
		if f(c) > f(d) {
			b = d
		} else {
			a = c
		}
		c, d = inner(a, b)
	}
	return a.Add(b.Sub(a) / 2)
}

// crossing is when f changes sign between a and b, by bisection to under a second.
func crossing(f func(time.Time) float64, a, b time.Time) time.Time {
	fa := f(a)
	for b.Sub(a) > 500*time.Millisecond {
		mid := a.Add(b.Sub(a) / 2)
		fm := f(mid)
		if math.Signbit(fm) == math.Signbit(fa) {
			a, fa = mid, fm
		} else {
			b = mid
		}
	}
	return a.Add(b.Sub(a) / 2).Round(time.Second)
}
