// The site guard's rules, pure: what the dome is told of the mounts, what the mounts are told
// of the dome, and when the guard parks the site (a storm, the runner silent, the Sun up).
// The runtime (guard.go) reads the servers into a View and does what these functions say.
package guard

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"liken.sh/runner/sky"
)

// Park is what a dome or a mount reports of its park vector.
type Park struct {
	Device   string `json:"device"`
	Reported bool   `json:"reported"` // its driver defines the park vector on a server the guard reaches
	Parked   bool   `json:"parked"`   // PARK is On
	Moving   bool   `json:"moving"`   // the vector is Busy
}

// Mount is one mount of the site, with the telescope it belongs to.
type Mount struct {
	Telescope string `json:"telescope"`
	Park
}

// View is what the guard sees at one moment.
type View struct {
	Now     time.Time
	Config  Config
	Mounts  []Mount
	Domes   []Park
	Weather map[string]bool // station → it reports Alert
	// Disconnected are the site's devices that report disconnected (the guard aside).
	Disconnected []string
	// Beats are when the runner last spoke for each telescope: its last heartbeat, or, until
	// its first, the last config that listed it (a telescope that left has none).
	Beats map[string]time.Time
	// LastWord is when the runner last beat or wrote a config; zero if it never did.
	LastWord time.Time
	// Armed: the runner has told the guard the site (now, or before the guard restarted).
	Armed bool
	// StateError says why the guard cannot keep what it was armed with; "" when it can.
	StateError string
}

// MountsParked is the one state the dome's mount lock hears: parked only when every mount is
// parked and still. A silent mount counts as unparked: it may point out of a dome that would
// close on it. A site with no mount listed is parked.
func MountsParked(mounts []Mount) bool {
	for _, m := range mounts {
		if !m.Reported || m.Moving || !m.Parked {
			return false
		}
	}
	return true
}

// DomeParked is the state the mounts' dome lock hears: a dome that is silent or moving
// counts as parked, so no mount unparks under a dome that may be closing.
func DomeParked(d Park) bool { return !d.Reported || d.Moving || d.Parked }

// Settled says a device reports parked and is still.
func (p Park) Settled() bool { return p.Reported && p.Parked && !p.Moving }

// Cause is one reason the guard parks the site.
type Cause struct {
	Kind   string // CauseWeather or CauseHeartbeat
	Reason string // in words, for the record and the runner's Events
}

// The kinds of Cause.
const (
	CauseWeather   = "Weather"
	CauseHeartbeat = "Heartbeat"
	CauseSun       = "Sun"
)

// Alerts are the stations that report Alert, sorted.
func (v View) Alerts() []string {
	var out []string
	for s, alert := range v.Weather {
		if alert {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// Silent are the telescopes whose runner has said nothing for longer than the timeout,
// sorted; none when the heartbeat is not watched.
func (v View) Silent() []string {
	timeout := v.Config.HeartbeatTimeout()
	if timeout <= 0 {
		return nil
	}
	var out []string
	for tel, last := range v.Beats {
		if v.Config.Has(tel) && v.Now.Sub(last) > timeout {
			out = append(out, tel)
		}
	}
	slices.Sort(out)
	return out
}

// RunnerAway says whether the runner has said nothing lately (three beats' time): no
// heartbeat and no config. A config counts, since a reservation that is still activating
// writes one before its moves but beats only once Ready. What the guard did while the runner
// was away, the runner reports when it comes back.
func (v View) RunnerAway() bool {
	every := v.Config.BeatEvery()
	if every <= 0 || v.LastWord.IsZero() {
		return true
	}
	return v.Now.Sub(v.LastWord) > 3*every
}

// SunUp says whether the Sun stands above the site's limit now; never without a limit.
func (v View) SunUp() bool {
	limit := v.Config.SunAltitudeLimit
	return limit != nil && sky.Sun(sky.Place{Latitude: v.Config.Latitude, Longitude: v.Config.Longitude}, v.Now).Altitude > *limit
}

// Causes are the causes to park the site that hold now: each station in Alert, each
// telescope whose runner fell silent, the Sun above the site's limit. The guard acts on them
// for as long as they hold, as a level, not once per change: a park that fails is tried
// again, and a mount that unparks under a storm, or by day, is parked again.
func Causes(v View) []Cause {
	var out []Cause
	for _, s := range v.Alerts() {
		out = append(out, Cause{Kind: CauseWeather, Reason: s + " reports Alert"})
	}
	for _, tel := range v.Silent() {
		out = append(out, Cause{Kind: CauseHeartbeat,
			Reason: fmt.Sprintf("no heartbeat from the runner for Telescope %s in %s", tel, v.Config.HeartbeatTimeout())})
	}
	if v.SunUp() {
		out = append(out, Cause{Kind: CauseSun, Reason: fmt.Sprintf("the Sun is above the site's limit of %g°", *v.Config.SunAltitudeLimit)})
	}
	return out
}

// Drive is what the guard moves now, while a cause holds, to bring the site to parked.
type Drive struct {
	Mounts []Mount // to park: reported, and neither parked nor parking
	Domes  []Park  // to park (and close), once every mount is parked and the domes heard it
	Silent []Mount // mounts the guard cannot reach: the domes stay as they are
	Done   bool    // every mount parked and every dome closed, all still
}

// DriveToParked says what to move: every mount that is not parked or parking; then, once
// every mount reports parked and still and the domes' locks have heard it (domesHeard), every
// dome that is not parked or parking. Mounts first, so no dome closes on a mount pointing out
// of it. A guard that was never armed knows no mount, and so moves nothing.
func DriveToParked(v View, domesHeard bool) Drive {
	var d Drive
	if !v.Armed {
		return d
	}
	for _, m := range v.Mounts {
		switch {
		case !m.Reported:
			d.Silent = append(d.Silent, m)
		case !m.Parked:
			d.Mounts = append(d.Mounts, m)
		}
	}
	if !MountsParked(v.Mounts) {
		return d
	}
	d.Done = true
	for _, dome := range v.Domes {
		d.Done = d.Done && dome.Settled()
		if dome.Reported && !dome.Parked && domesHeard {
			d.Domes = append(d.Domes, dome)
		}
	}
	return d
}

// Armed says in words which layers guard the site, and what is missing.
func Armed(v View) (armed bool, message string) {
	var on, missing []string
	if !v.Armed {
		missing = append(missing, "the runner has not told the guard the site's telescopes, so it parks nothing")
	}
	if v.StateError != "" {
		missing = append(missing, "the guard cannot keep what it was armed with, so a restart would forget the site ("+v.StateError+")")
	}
	if len(v.Domes) > 0 {
		var names []string
		for _, d := range v.Domes {
			names = append(names, d.Device)
		}
		on = append(on, fmt.Sprintf("the dome lock (%s closes only once every mount is parked)", strings.Join(names, ", ")))
	}
	if len(v.Weather) > 0 {
		on = append(on, "the weather interlock on "+strings.Join(sortedKeys(v.Weather), ", "))
	} else {
		missing = append(missing, "no weather station runs at the site")
	}
	if t := v.Config.HeartbeatTimeout(); t > 0 {
		on = append(on, "the heartbeat watch ("+t.String()+")")
	} else {
		missing = append(missing, "the heartbeat timeout is 0")
	}
	if limit := v.Config.SunAltitudeLimit; limit != nil && *limit < 90 {
		on = append(on, fmt.Sprintf("the Sun watch (closed while the Sun is above %g°)", *limit))
	}
	if len(missing) > 0 {
		return false, "Not armed: " + strings.Join(missing, "; ") + ". Armed: " + orNothing(on)
	}
	return true, "Armed: " + strings.Join(on, "; ")
}

func orNothing(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, "; ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
