// The path of one reservation to Ready: when each of its activities was scheduled and
// closed, from spec.start. Printed for the reservation at the p50 of Ready and for the first
// to its Activation (whose turn runs the site's tiers, which the others wait for), it shows
// where twenty telescopes' Ready time goes that one telescope's does not (a step that waits
// for a neighbour starts or ends later than its own work explains).
package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// span is one activity of a reservation's history, scheduled to closed.
type span struct {
	name             string
	scheduled, close time.Time
}

// medianReady is the name of the reservation at the p50 of the Ready times.
func medianReady(ready map[string]time.Time) string {
	names := make([]string, 0, len(ready))
	for name := range ready {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return ready[a].Compare(ready[b]) })
	if len(names) == 0 {
		return ""
	}
	return names[(len(names)-1)/2]
}

// firstTo is the reservation whose activity of that name was scheduled first.
func firstTo(paths map[string][]span, activity string) string {
	var first string
	var at time.Time
	for name, spans := range paths {
		for _, s := range spans {
			if s.name == activity && (first == "" || s.scheduled.Before(at)) {
				first, at = name, s.scheduled
			}
		}
	}
	return first
}

// printPath prints the activities that were scheduled before the reservation was Ready, in
// the order of their scheduling: "Configure 4.1-9.5", in seconds from start.
func printPath(w io.Writer, which, name string, start, ready time.Time, spans []span) {
	var b strings.Builder
	for _, s := range spans {
		if !s.scheduled.Before(ready) {
			continue
		}
		end := "…"
		if !s.close.IsZero() {
			end = fmt.Sprintf("%.1f", s.close.Sub(start).Seconds())
		}
		fmt.Fprintf(&b, " %s %.1f-%s;", s.name, s.scheduled.Sub(start).Seconds(), end)
	}
	fmt.Fprintf(w, "  path of %s (%s, Ready at %.1f s), activities in seconds from spec.start:%s\n",
		name, which, ready.Sub(start).Seconds(), b.String())
}
