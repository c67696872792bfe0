// A Reservation booked by the sky (spec.night and spec.twilight) resolved at its site: the
// night's dusk and dawn from the sky package, in the site's solar day, or why the night can
// never start. The runner reads it with the Reservation (ReadReservation), so the workflow
// waits for the dusk and ends at the dawn as it would for times given by the clock.
package kube

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/sky"
)

// ReasonNightRefused is the Warning Event's reason on a Reservation whose night can never
// start (NightPlan.Refused).
const ReasonNightRefused = "NightRefused"

// NightPlan is spec.night at the site: its window, or why it has none.
type NightPlan struct {
	// Window is when it starts and ends; nil when Refused.
	Window *obsv1.ReservationNight `json:",omitempty"`
	// Dusk names its start in words: "astronomical dusk".
	Dusk string `json:",omitempty"`
	// Refused says why the night can never start, and what to book instead.
	Refused string `json:",omitempty"`
}

// twilights are the spec's twilights, lightest last, with the sky's level of each.
var twilights = []struct {
	name  string
	level sky.Twilight
}{{obsv1.TwilightAstronomical, sky.Astronomical}, {obsv1.TwilightNautical, sky.Nautical}, {obsv1.TwilightCivil, sky.Civil}}

// PlanNight resolves spec.night at loc. A night that is dark all day (the polar night) runs
// from one local noon to the next; one whose darkness began before noon or lasts past the
// next noon starts or ends there.
func PlanNight(spec obsv1.ReservationSpec, loc obsv1.Location) NightPlan {
	date, err := time.Parse(time.DateOnly, spec.Night)
	if err != nil {
		return NightPlan{Refused: fmt.Sprintf("spec.night %q is not a date: write it as YYYY-MM-DD", spec.Night)}
	}
	name := spec.Twilight
	if name == "" {
		name = obsv1.TwilightAstronomical
	}
	i := 0
	for i < len(twilights)-1 && twilights[i].name != name {
		i++
	}
	level := twilights[i].level
	place := placeOf(loc)
	n := sky.Night(place, date, level)
	if n.Darkness == sky.NeverFalls {
		instead := "another night"
		if i < len(twilights)-1 {
			instead = "a lighter twilight (" + twilights[i+1].name + ") or another night"
		}
		return NightPlan{Refused: fmt.Sprintf("No %s night at the site on %s: the Sun stays less than %g° below the horizon; book %s",
			name, spec.Night, -level.Altitude(), instead)}
	}
	noon := sky.Noon(place, date)
	start, end := n.Dusk, n.Dawn
	if start.IsZero() {
		start = noon
	}
	if end.IsZero() {
		end = noon.Add(24 * time.Hour)
	}
	return NightPlan{
		Window: &obsv1.ReservationNight{Start: metav1.NewTime(start), End: metav1.NewTime(end),
			Between: name + " dusk to " + name + " dawn"},
		Dusk: name + " dusk",
	}
}
