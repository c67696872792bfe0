// The sky over an Observatory, for its status: where the Sun and the Moon stand, how dark it
// is, tonight's astronomical dusk and dawn, and the conditions triggers name, from the sky
// package. The inventory puts it in at each pass, and the watcher asks for a pass every few
// minutes (SkyEvery), so it is computed for the start of the current few minutes: passes
// within them compose the same sky and write nothing new.
package kube

import (
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/sky"
)

// SkyEvery is how often an Observatory's sky is computed again.
const SkyEvery = 5 * time.Minute

// The keys of the Observatory's status.display that say the sky.
const (
	DisplaySun  = "sun"
	DisplayMoon = "moon"
	DisplayDusk = "dusk"
	DisplayDawn = "dawn"
)

// How dark it is, by the Sun's altitude.
const (
	DarknessDay          = "Day"
	DarknessCivil        = "Civil Twilight"
	DarknessNautical     = "Nautical Twilight"
	DarknessAstronomical = "Astronomical Twilight"
	DarknessNight        = "Night"
)

// The Observatory's conditions of the sky, which triggers name (kind: Observatory): each
// night while the Sun is below its twilight's level, and MoonUp while the Moon's centre is
// above the horizon. They change at the pass that first sees the sky past the level, within
// SkyEvery.
const (
	ConditionAstronomicalNight = "AstronomicalNight"
	ConditionNauticalNight     = "NauticalNight"
	ConditionCivilNight        = "CivilNight"
	ConditionMoonUp            = "MoonUp"
)

// SkyConditionTypes are the sky's condition types, in the order they are written.
var SkyConditionTypes = []string{ConditionAstronomicalNight, ConditionNauticalNight, ConditionCivilNight, ConditionMoonUp}

// SkyConditions are conds with the sky's conditions of s put in; a condition whose status
// stays keeps its transition time.
func SkyConditions(conds []obsv1.Condition, s obsv1.Sky, generation int64, now time.Time) []obsv1.Condition {
	for _, n := range []struct {
		typ   string
		level sky.Twilight
	}{{ConditionAstronomicalNight, sky.Astronomical}, {ConditionNauticalNight, sky.Nautical}, {ConditionCivilNight, sky.Civil}} {
		below := fmt.Sprintf("%g°", -n.level.Altitude())
		c := obsv1.Condition{Type: n.typ, Status: metav1.ConditionFalse, Reason: "SunAbove",
			Message: "The Sun is less than " + below + " below the horizon"}
		if s.SunAltitude < n.level.Altitude() {
			c.Status, c.Reason, c.Message = metav1.ConditionTrue, "SunBelow", "The Sun is more than "+below+" below the horizon"
		}
		conds = WithCondition(conds, c, generation, now)
	}
	moon := obsv1.Condition{Type: ConditionMoonUp, Status: metav1.ConditionFalse, Reason: "MoonBelow", Message: "The Moon is below the horizon"}
	if s.MoonAltitude > 0 {
		moon.Status, moon.Reason, moon.Message = metav1.ConditionTrue, "MoonAbove", "The Moon is above the horizon"
	}
	return WithCondition(conds, moon, generation, now)
}

// SkyStatus is the sky over loc in the SkyEvery that holds now.
func SkyStatus(loc obsv1.Location, now time.Time) obsv1.Sky {
	at := now.UTC().Truncate(SkyEvery)
	place := placeOf(loc)
	sun := sky.Sun(place, at).Altitude
	lit := sky.MoonIllumination(at)
	st := obsv1.Sky{
		Time:             metav1.NewTime(at),
		SunAltitude:      tenth(sun),
		MoonAltitude:     tenth(sky.Moon(place, at).Altitude),
		MoonIllumination: int32(math.Round(lit * 100)),
		MoonPhase:        moonPhase(lit, sky.MoonWaxing(at)),
		Darkness:         darkness(sun),
	}
	night := tonight(place, at)
	switch {
	case night.Darkness == sky.NeverFalls:
		st.Tonight = "no astronomical night: the Sun stays less than 18° below the horizon"
	case night.Darkness == sky.AllDay:
		st.Tonight = "polar night: astronomical darkness all day"
	default:
		if !night.Dusk.IsZero() {
			st.Dusk = &metav1.Time{Time: night.Dusk}
		}
		if !night.Dawn.IsZero() {
			st.Dawn = &metav1.Time{Time: night.Dawn}
		}
		st.Tonight = "astronomical night " + clock(st.Dusk, "from before noon") + " to " + clock(st.Dawn, "past the next noon")
	}
	return st
}

// SkyDisplay is the sky in the words of status.display.
func SkyDisplay(s obsv1.Sky) map[string]string {
	return map[string]string{
		DisplaySun:  fmt.Sprintf("%.1f°", s.SunAltitude),
		DisplayMoon: fmt.Sprintf("%d%% %s", s.MoonIllumination, s.MoonPhase),
		DisplayDusk: clock(s.Dusk, "-"),
		DisplayDawn: clock(s.Dawn, "-"),
	}
}

// tonight is the astronomical night under way at t, or by day the coming one. The sky
// package counts a night from one local noon to the next, by longitude.
func tonight(p sky.Place, t time.Time) sky.NightTimes {
	date := sky.SolarDate(p, t)
	if t.Before(sky.Noon(p, date)) {
		if last := sky.Night(p, date.AddDate(0, 0, -1), sky.Astronomical); last.Darkness == sky.Falls && (last.Dawn.IsZero() || t.Before(last.Dawn)) {
			return last
		}
	}
	return sky.Night(p, date, sky.Astronomical)
}

// darkness names how dark it is with the Sun's centre at altitude sun.
func darkness(sun float64) string {
	switch {
	case sun >= sky.Sunset.Altitude():
		return DarknessDay
	case sun >= sky.Civil.Altitude():
		return DarknessCivil
	case sun >= sky.Nautical.Altitude():
		return DarknessNautical
	case sun >= sky.Astronomical.Altitude():
		return DarknessAstronomical
	}
	return DarknessNight
}

// moonPhase names the Moon's phase from its lit fraction and whether it waxes: the quarters
// within two percent of half lit, new and full within two percent of dark and of lit.
func moonPhase(lit float64, waxing bool) string {
	side := "Waning "
	if waxing {
		side = "Waxing "
	}
	switch {
	case lit < 0.02:
		return "New"
	case lit > 0.98:
		return "Full"
	case math.Abs(lit-0.5) <= 0.02 && waxing:
		return "First Quarter"
	case math.Abs(lit-0.5) <= 0.02:
		return "Last Quarter"
	case lit < 0.5:
		return side + "Crescent"
	}
	return side + "Gibbous"
}

// placeOf is where a Location is, as the sky package takes it.
func placeOf(loc obsv1.Location) sky.Place {
	return sky.Place{Latitude: loc.Latitude, Longitude: loc.Longitude}
}

func tenth(v float64) float64 { return math.Round(v*10) / 10 }

// clock writes a time of day, or none when t is nil.
func clock(t *metav1.Time, none string) string {
	if t == nil {
		return none
	}
	return t.UTC().Format("15:04 UTC")
}
