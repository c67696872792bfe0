// What the runner and the guard tell each other, as JSON in the guard's INDI properties: the
// runner writes the Config (GUARD_CONFIG) and beats (GUARD_HEARTBEAT); the guard writes its
// Report (GUARD_STATUS), which the runner reads when it comes back to learn what the guard did
// without it.
package guard

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"liken.sh/runner/indi/prop"
)

// Device is the INDI device the guard defines on the site's server. Each Dome's mount lock
// snoops its TELESCOPE_PARK (ACTIVE_DEVICES.ACTIVE_TELESCOPE): the state of every mount.
const Device = "Site Guard"

// Driver is the name the guard runs under: indiserver's driver, a link to the program that
// holds the guard (indi-shim in the server pods, the worker in dev mode).
const Driver = "site-guard"

// Protocol numbers what the runner and the guard say to each other: the Config, the beats and
// the Report. A change that an older guard would misread (a field it would ignore while the
// runner counts on it) takes the next number. The runner arms only a guard that speaks its
// protocol (Report.Speaks): a site server still running another build's image is refused,
// never half-armed.
const Protocol = 2 // 2: the Sun's limit

// The guard's properties and their elements.
const (
	PropConfig     = "GUARD_CONFIG"    // text CONFIG: a Config
	PropHeartbeat  = "GUARD_HEARTBEAT" // text TELESCOPE, STATE (Beat or Leave)
	PropStatus     = "GUARD_STATUS"    // text STATE (in words), REPORT (a Report)
	ElemConfig     = "CONFIG"
	ElemTelescope  = "TELESCOPE"
	ElemBeatState  = "STATE"
	ElemState      = "STATE"
	ElemReport     = "REPORT"
	BeatState      = "Beat"
	LeaveState     = "Leave"
	MountParkProp  = "TELESCOPE_PARK"
	DomeParkProp   = "DOME_PARK"
	WeatherProp    = "WEATHER_STATUS"
	parkElement    = "PARK"
	unparkElement  = "UNPARK"
	driverInfoProp = "DRIVER_INFO"
)

// Config is what the runner tells the guard of the site.
type Config struct {
	// Telescopes are the site's telescopes whose mounts count: those a reservation holds.
	Telescopes []Telescope `json:"telescopes"`
	// HeartbeatTimeoutSeconds is how long a telescope's heartbeat may stop before the guard
	// parks the site; 0 watches no heartbeat.
	HeartbeatTimeoutSeconds float64 `json:"heartbeatTimeoutSeconds"`
	// BeatEverySeconds is how often the runner beats; three missed beats mean it is away.
	BeatEverySeconds float64 `json:"beatEverySeconds"`
	// Latitude and Longitude are the site's place in degrees, for the Sun's altitude.
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	// SunAltitudeLimit is the Sun's altitude in degrees above which the guard parks the site;
	// nil watches no Sun.
	SunAltitudeLimit *float64 `json:"sunAltitudeLimit,omitempty"`
	// WrittenAt is when the runner wrote it: every config is new, so the guard looks at the
	// site again before it answers, and the report after its answer is as fresh as the write.
	WrittenAt time.Time `json:"writtenAt"`
}

// Telescope is one telescope's server and mounts.
type Telescope struct {
	Name string `json:"name"`
	// Address is its INDI server's host:port; "" while the server does not run.
	Address string `json:"address"`
	// Mounts are its mounts' INDI device names; "" for one whose driver has not named it yet
	// (silent: it counts as unparked).
	Mounts []string `json:"mounts"`
}

// HeartbeatTimeout is the timeout as a duration.
func (c Config) HeartbeatTimeout() time.Duration { return seconds(c.HeartbeatTimeoutSeconds) }

// BeatEvery is the beat's period as a duration.
func (c Config) BeatEvery() time.Duration { return seconds(c.BeatEverySeconds) }

// Has says whether the telescope's mounts count.
func (c Config) Has(telescope string) bool {
	return slices.ContainsFunc(c.Telescopes, func(t Telescope) bool { return t.Name == telescope })
}

// Address is the telescope's server, "" when it is not listed or its server does not run.
func (c Config) Address(telescope string) string {
	for _, t := range c.Telescopes {
		if t.Name == telescope {
			return t.Address
		}
	}
	return ""
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Encode is the config as CONFIG's text.
func (c Config) Encode() string {
	b, _ := json.Marshal(c) // plain fields: cannot fail
	return string(b)
}

// DecodeConfig reads CONFIG's text.
func DecodeConfig(s string) (Config, error) {
	var c Config
	err := json.Unmarshal([]byte(s), &c)
	return c, err
}

// Report is what the guard tells of itself.
type Report struct {
	Armed        bool    `json:"armed"`
	ArmedMessage string  `json:"armedMessage"`
	Mounts       []Mount `json:"mounts"`
	Domes        []Park  `json:"domes"`
	MountsParked bool    `json:"mountsParked"`
	// Heartbeats are the telescopes whose heartbeat the guard watches: from a Ready
	// reservation's first beat until it leaves.
	Heartbeats []string `json:"heartbeats,omitempty"`
	// RunnerAway: the runner said nothing lately (View.RunnerAway).
	RunnerAway bool `json:"runnerAway"`
	// ConfigVersion counts the configs the guard took, so a runner that wrote one can wait
	// until the guard has relayed under it.
	ConfigVersion int `json:"configVersion"`
	// Trips are the times the guard parked the site, the latest last (at most maxTrips).
	Trips []Trip `json:"trips,omitempty"`
	// Version is the build of the guard (the runner's version it was built with).
	Version string `json:"version,omitempty"`
	// Protocol is the guard's Protocol; 0 for a guard built before there was one.
	Protocol int `json:"protocol,omitempty"`
}

// Speaks says, as an error, why the guard whose report this is cannot be armed by a runner
// of the build runner: it speaks another protocol. nil when it speaks this one.
func (r Report) Speaks(runner string) error {
	if r.Protocol == Protocol {
		return nil
	}
	build := r.Version
	if build == "" {
		build = "of an unknown build"
	}
	return fmt.Errorf("the site guard %s speaks protocol %d and this runner (%s) speaks %d: "+
		"its site server runs another build's image, not the one this runner names", build, r.Protocol, runner, Protocol)
}

// Trip is one time the guard parked the site: from the first cause that found it unparked
// until every mount is parked and every dome closed (or every cause is gone).
type Trip struct {
	Time time.Time `json:"time"`
	// Kind and Reason are the first cause's: CauseWeather or CauseHeartbeat, and in words.
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	// Causes are the reasons of every cause that held during the trip, the first first.
	Causes     []string `json:"causes,omitempty"`
	RunnerAway bool     `json:"runnerAway"`
	// Parked and Closed are the mounts and domes it parked, with when each was done.
	Parked []Done `json:"parked,omitempty"`
	Closed []Done `json:"closed,omitempty"`
	// Failing says what fails now and is being tried again ("Telescope Simulator of
	// Telescope east did not park: ..."), "" when nothing does.
	Failing string `json:"failing,omitempty"`
	// Failed says what did not go as it should, once the trip has ended ("" when all went
	// well); Finished is false while the guard still drives the site toward parked.
	Failed   string `json:"failed,omitempty"`
	Finished bool   `json:"finished"`
}

// Done is one device the guard moved, and when it reported the move done.
type Done struct {
	Telescope string    `json:"telescope,omitempty"`
	Device    string    `json:"device"`
	At        time.Time `json:"at"`
}

// maxTrips bounds the report: the runner reads it at least every few minutes while it runs.
const maxTrips = 10

// DecodeReport reads REPORT's text.
func DecodeReport(s string) (Report, error) {
	var r Report
	err := json.Unmarshal([]byte(s), &r)
	return r, err
}

// ReportOf reads GUARD_STATUS's report; an empty Report when it holds none.
func ReportOf(p prop.Property) Report {
	text, _ := p.Text(ElemReport)
	r, _ := DecodeReport(text)
	return r
}

// PortEnv names the port of the indiserver that runs the guard, where it is not the INDI
// port 7624 (the dev mode's local servers take free ports).
const PortEnv = "INDISERVER_PORT"

// ServerAddress is the address of the indiserver that runs the guard, on this host.
func ServerAddress(getenv func(string) string) string {
	port := getenv(PortEnv)
	if port == "" {
		port = "7624"
	}
	return "127.0.0.1:" + port
}

// Sees says whether the guard reports every named mount of every running telescope in cfg:
// it is connected to their servers and has told their locks the dome's state.
func (r Report) Sees(cfg Config) bool {
	for _, t := range cfg.Telescopes {
		for _, m := range t.Mounts {
			if t.Address == "" || m == "" {
				continue
			}
			if !slices.ContainsFunc(r.Mounts, func(s Mount) bool { return s.Telescope == t.Name && s.Device == m && s.Reported }) {
				return false
			}
		}
	}
	return true
}
