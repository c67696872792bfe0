// The LX200 commands the mount answers, as Meade's serial protocol and INDI 1.9.9's LX200
// drivers have them. Replies are what those drivers read: get commands end in
// '#'; set commands answer one byte, '1' valid or '0' invalid, with no '#'; :MS# answers '0'
// when the slew starts; ACK, the byte 0x06, answers the alignment ('P'); motion, stop, rate,
// precision and mode commands answer nothing, and the driver flushes its input after them.
// Unknown commands get no answer at all, as from a real mount.

package lx200

import (
	"fmt"
	"strings"
)

// command is one LX200 command: name is as the manual writes it, without ':' and '#'; args
// says arguments follow the name; do runs it and returns the reply.
type command struct {
	args bool
	do   func(s *state, arg string) string
}

var commands = map[string]command{
	"GR": {do: func(s *state, _ string) string { return formatRA(s.ra, s.high) + "#" }},
	"GD": {do: func(s *state, _ string) string { return formatDec(s.dec, s.high) + "#" }},
	"Gr": {do: func(s *state, _ string) string { return formatRA(s.targetRA, s.high) + "#" }},
	"Gd": {do: func(s *state, _ string) string { return formatDec(s.targetDec, s.high) + "#" }},
	"Sr": {args: true, do: func(s *state, a string) string { return setCoord(&s.targetRA, a, 0, 24) }},
	"Sd": {args: true, do: func(s *state, a string) string { return setCoord(&s.targetDec, a, -90, 90) }},
	"MS": {do: func(s *state, _ string) string { s.goTo(s.targetRA, s.targetDec, false); return "0" }},
	"CM": {do: syncTarget},
	"D":  {do: distanceBars},
	"Q":  {do: func(s *state, _ string) string { s.halt(); return "" }},
	"Qn": {do: func(s *state, _ string) string { s.moveDec = 0; return "" }},
	"Qs": {do: func(s *state, _ string) string { s.moveDec = 0; return "" }},
	"Qe": {do: func(s *state, _ string) string { s.moveRA = 0; return "" }},
	"Qw": {do: func(s *state, _ string) string { s.moveRA = 0; return "" }},
	"Mn": {do: func(s *state, _ string) string { return s.move(0, 1) }},
	"Ms": {do: func(s *state, _ string) string { return s.move(0, -1) }},
	"Me": {do: func(s *state, _ string) string { return s.move(1, 0) }},
	"Mw": {do: func(s *state, _ string) string { return s.move(-1, 0) }},
	"Mg": {args: true, do: pulseGuide},
	"RG": {do: func(s *state, _ string) string { s.rate = rateGuide; return "" }},
	"RC": {do: func(s *state, _ string) string { s.rate = rateCenter; return "" }},
	"RM": {do: func(s *state, _ string) string { s.rate = rateFind; return "" }},
	"RS": {do: func(s *state, _ string) string { s.rate = rateMax; return "" }},
	"Sw": {args: true, do: func(*state, string) string { return "1" }},
	"hP": {do: park},
	"I":  {do: func(s *state, _ string) string { s.halt(); s.parked = false; return "" }},
	"U":  {do: func(s *state, _ string) string { s.high = !s.high; return "" }},
	"AP": {do: func(s *state, _ string) string { s.align = 'P'; return "" }},
	"AA": {do: func(s *state, _ string) string { s.align = 'A'; return "" }},
	"AL": {do: func(s *state, _ string) string { s.align = 'L'; return "" }},
	"TQ": {do: nothing}, "TS": {do: nothing}, "TL": {do: nothing}, "TM": {do: nothing},
	"T+": {do: nothing}, "T-": {do: nothing},
	"GT":  {do: func(s *state, _ string) string { return fmt.Sprintf("%04.1f#", s.trackFreq) }},
	"ST":  {args: true, do: setTrackFreq},
	"F":   {args: true, do: nothing}, // focuser motion and speed
	"So":  {args: true, do: func(*state, string) string { return "1" }},
	"Sh":  {args: true, do: func(*state, string) string { return "1" }},
	"GVP": {do: func(*state, string) string { return "Autostar#" }},
	"GVN": {do: func(*state, string) string { return "43Eg#" }},
	"GVD": {do: func(*state, string) string { return "Oct 05 2012#" }},
	"GVT": {do: func(*state, string) string { return "12:00:00#" }},
}

// Site and clock commands are in site.go; they join the table here.
func init() {
	for name, c := range siteCommands {
		commands[name] = c
	}
}

// run answers one command: its name for the counts, the reply, and whether it is known.
func (s *state) run(raw string) (name, reply string, known bool) {
	if raw == ack {
		return "ACK", string(s.align), true
	}
	if c, ok := commands[raw]; ok && !c.args {
		return ":" + raw + "#", c.do(s, ""), true
	}
	for n := min(len(raw), 3); n > 0; n-- {
		if c, ok := commands[raw[:n]]; ok && c.args {
			return ":" + raw[:n], c.do(s, raw[n:]), true
		}
	}
	return ":" + raw + "#", "", false
}

func nothing(*state, string) string { return "" }

// setCoord parses a coordinate into *v and answers whether it was valid.
func setCoord(v *float64, arg string, lo, hi float64) string {
	x, ok := parseSexa(arg)
	if !ok || x < lo || x > hi {
		return "0"
	}
	*v = x
	return "1"
}

// distanceBars answers :D#: one bar while a slew is under way, then nothing, as an Autostar.
func distanceBars(s *state, _ string) string {
	if s.slew != nil {
		return "|#"
	}
	return "#"
}

// syncTarget makes the target the mount's position and answers with the object "matched", which an
// Autostar reports as this fixed string.
func syncTarget(s *state, _ string) string {
	s.halt()
	s.ra, s.dec, s.parked = s.targetRA, s.targetDec, false
	return " M31 EX GAL MAG 3.5 SZ178.0'#"
}

// park slews to the park position, the pole on the meridian, where the mount stops.
func park(s *state, _ string) string {
	dec := 90.0
	if s.lat < 0 {
		dec = -90
	}
	s.goTo(s.sidereal(), dec, true)
	return ""
}

func (s *state) move(ra, dec int) string {
	s.slew, s.parked = nil, false
	if ra != 0 {
		s.moveRA = ra
	}
	if dec != 0 {
		s.moveDec = dec
	}
	return ""
}

// pulseGuide answers :Mg<d><ms>#: a guide-rate move for that long, made at once.
func pulseGuide(s *state, arg string) string {
	var dir byte
	var ms int
	if _, err := fmt.Sscanf(arg, "%c%d", &dir, &ms); err != nil {
		return ""
	}
	d := rateGuide * float64(ms) / 1000
	switch dir {
	case 'n':
		s.nudge(0, d)
	case 's':
		s.nudge(0, -d)
	case 'e':
		s.nudge(d, 0)
	case 'w':
		s.nudge(-d, 0)
	}
	return ""
}

func setTrackFreq(s *state, arg string) string {
	var f float64
	if _, err := fmt.Sscanf(strings.TrimSpace(arg), "%f", &f); err != nil || f <= 0 {
		return "0"
	}
	s.trackFreq = f
	return "1"
}
