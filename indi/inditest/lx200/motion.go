// The mount's state and how it moves. Motion is worked out when asked (advance) rather than on
// a ticker: a slew goes from where it started to its target in slewTime, straight in RA (the
// short way round) and Dec, and a manual motion moves at the rate last chosen. Coordinates
// are JNow, as LX200 controllers keep them. While not slewing they hold: the mount tracks, and
// when parked it does not drift in RA as a real one with its motors off would.

package lx200

import (
	"math"
	"time"
)

// Manual motion rates in degrees per second for :RG#, :RC#, :RM# and :RS#: roughly what an
// Autostar's guide (1x sidereal), centering, find and maximum rates are.
const (
	rateGuide  = 15.0 / 3600
	rateCenter = 16 * rateGuide
	rateFind   = 0.5
	rateMax    = 3.0
)

// state is everything the mount's controller keeps; Mount guards it with its mutex.
type state struct {
	now      time.Time // when advance last ran: handlers read the clock here
	ra, dec  float64   // hours, degrees
	slewTime time.Duration
	slew     *slew

	targetRA, targetDec float64
	moveRA, moveDec     int     // manual motion: -1, 0 or +1 (east and north are +)
	rate                float64 // manual motion, degrees per second
	parked              bool

	high      bool    // high precision coordinates (toggled by :U#)
	align     byte    // 'P' polar, 'A' alt-az, 'L' land: the answer to ACK
	lat, long float64 // the site: north positive; longitude west positive, as LX200s keep it
	utcOffset float64 // hours added to local time to give UTC, as LX200s keep it
	shift     time.Duration
	twelve    bool // the hand controller shows 12 hour time (toggled by :H#)
	site      int  // 0..3, chosen by :W<n>#
	sites     [4]string
	trackFreq float64
}

type slew struct {
	fromRA, fromDec, toRA, toDec float64
	start                        time.Time
	park                         bool // a park: the mount stops there and reports parked
}

func newState(now time.Time) state {
	// Powered on at home: at the pole, where a polar-aligned mount starts.
	return state{now: now, ra: 0, dec: 90, slewTime: DefaultSlewTime, rate: rateMax, high: true,
		align: 'P', sites: [4]string{"HOME", "SITE2", "SITE3", "SITE4"}, trackFreq: 60.1}
}

// advance brings the position up to now.
func (s *state) advance(now time.Time) {
	dt := now.Sub(s.now).Seconds()
	s.now = now
	if v := s.slew; v != nil {
		f := 1.0
		if s.slewTime > 0 {
			f = now.Sub(v.start).Seconds() / s.slewTime.Seconds()
		}
		if f >= 1 {
			s.ra, s.dec, s.slew = v.toRA, v.toDec, nil
			s.parked = v.park
			return
		}
		s.ra = wrapHours(v.fromRA + hourDiff(v.toRA, v.fromRA)*f)
		s.dec = v.fromDec + (v.toDec-v.fromDec)*f
		return
	}
	if dt > 0 {
		s.nudge(float64(s.moveRA)*s.rate*dt, float64(s.moveDec)*s.rate*dt)
	}
}

// nudge moves the mount by dra and ddec degrees.
func (s *state) nudge(dra, ddec float64) {
	s.ra = wrapHours(s.ra + dra/15)
	s.dec = clampDec(s.dec + ddec)
}

// goTo starts a slew to ra, dec; a park one ends with the mount parked.
func (s *state) goTo(ra, dec float64, park bool) {
	s.halt()
	s.parked = false
	s.slew = &slew{fromRA: s.ra, fromDec: s.dec, toRA: ra, toDec: dec, start: s.now, park: park}
}

// halt stops every motion where the mount is now.
func (s *state) halt() {
	s.slew = nil
	s.moveRA, s.moveDec = 0, 0
}

// hourDiff is to - from the short way round the 24 hour circle.
func hourDiff(to, from float64) float64 {
	d := math.Mod(to-from, 24)
	switch {
	case d > 12:
		d -= 24
	case d < -12:
		d += 24
	}
	return d
}

func wrapHours(h float64) float64 {
	h = math.Mod(h, 24)
	if h < 0 {
		h += 24
	}
	return h
}

func clampDec(d float64) float64 { return math.Max(-90, math.Min(90, d)) }

// local is the time on the mount's clock, which keeps local time.
func (s *state) local() time.Time {
	return s.now.UTC().Add(s.shift - time.Duration(s.utcOffset*float64(time.Hour)))
}

// setLocal sets the mount's clock.
func (s *state) setLocal(t time.Time) {
	s.shift = t.Sub(s.now.UTC().Add(-time.Duration(s.utcOffset * float64(time.Hour))))
}

// sidereal is the local sidereal time in hours, from the mount's clock and site.
func (s *state) sidereal() float64 {
	utc := s.now.UTC().Add(s.shift)
	days := float64(utc.UnixNano())/86400e9 + 2440587.5 - 2451545.0 // since J2000.0
	return wrapHours(18.697374558 + 24.06570982441908*days - s.long/15)
}
