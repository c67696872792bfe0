// The mount's site and clock commands, which INDI's LX200 drivers read on connect and write
// when a client sets the location or time, and the sexagesimal formats of the protocol. Meade
// keeps longitude west positive and the UTC offset as the hours added to local time to get
// UTC, both the opposite of INDI's; the driver converts, so the mount keeps Meade's.

package lx200

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

var siteCommands = map[string]command{
	"Gt": {do: func(s *state, _ string) string { return formatGeo(s.lat, 2) + "#" }},
	"Gg": {do: func(s *state, _ string) string { return formatGeo(s.long, 3) + "#" }},
	"St": {args: true, do: func(s *state, a string) string { return setCoord(&s.lat, a, -90, 90) }},
	"Sg": {args: true, do: func(s *state, a string) string { return setCoord(&s.long, a, -360, 360) }},
	"GG": {do: func(s *state, _ string) string { return fmt.Sprintf("%+05.1f#", s.utcOffset) }},
	"SG": {args: true, do: setUTCOffset},
	"GL": {do: func(s *state, _ string) string { return s.local().Format("15:04:05#") }},
	"Ga": {do: func(s *state, _ string) string { return s.local().Format("03:04:05#") }},
	"GC": {do: func(s *state, _ string) string { return s.local().Format("01/02/06#") }},
	"GS": {do: func(s *state, _ string) string { return formatRA(s.sidereal(), true) + "#" }},
	"SL": {args: true, do: setTime},
	"SC": {args: true, do: setDate},
	"Gc": {do: clockFormat},
	"H":  {do: func(s *state, _ string) string { s.twelve = !s.twelve; return "" }},
	"GM": {do: func(s *state, _ string) string { return s.sites[0] + "#" }},
	"GN": {do: func(s *state, _ string) string { return s.sites[1] + "#" }},
	"GO": {do: func(s *state, _ string) string { return s.sites[2] + "#" }},
	"GP": {do: func(s *state, _ string) string { return s.sites[3] + "#" }},
	"SM": {args: true, do: func(s *state, a string) string { return setSiteName(s, 0, a) }},
	"SN": {args: true, do: func(s *state, a string) string { return setSiteName(s, 1, a) }},
	"SO": {args: true, do: func(s *state, a string) string { return setSiteName(s, 2, a) }},
	"SP": {args: true, do: func(s *state, a string) string { return setSiteName(s, 3, a) }},
	"W":  {args: true, do: selectSite},
}

func clockFormat(s *state, _ string) string {
	if s.twelve {
		return "12#"
	}
	return "24#"
}

func setUTCOffset(s *state, arg string) string {
	h, err := strconv.ParseFloat(strings.TrimSpace(arg), 64)
	if err != nil || math.Abs(h) > 14 {
		return "0"
	}
	local := s.local()
	s.utcOffset = h
	s.setLocal(local) // the clock keeps local time
	return "1"
}

func setTime(s *state, arg string) string {
	var h, m, sec int
	if _, err := fmt.Sscanf(strings.TrimSpace(arg), "%d:%d:%d", &h, &m, &sec); err != nil ||
		h > 23 || m > 59 || sec > 59 {
		return "0"
	}
	t := s.local()
	s.setLocal(time.Date(t.Year(), t.Month(), t.Day(), h, m, sec, 0, time.UTC))
	return "1"
}

// setDate answers as an Autostar: valid, then a second '#'-terminated section of blanks,
// which the driver reads too.
func setDate(s *state, arg string) string {
	var mo, d, y int
	if _, err := fmt.Sscanf(strings.TrimSpace(arg), "%d/%d/%d", &mo, &d, &y); err != nil ||
		mo < 1 || mo > 12 || d < 1 || d > 31 {
		return "0"
	}
	t := s.local()
	s.setLocal(time.Date(2000+y%100, time.Month(mo), d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC))
	return "1Updating Planetary Data#" + strings.Repeat(" ", 32) + "#"
}

func setSiteName(s *state, i int, name string) string {
	if name == "" || len(name) > 15 {
		return "0"
	}
	s.sites[i] = name
	return "1"
}

// selectSite answers :W<n>#: n is 0..3 in the 2002 manual, which INDI follows.
func selectSite(s *state, arg string) string {
	if n, err := strconv.Atoi(arg); err == nil && n >= 0 && n < 4 {
		s.site = n
	}
	return ""
}

// formatRA is HH:MM:SS in high precision, HH:MM.T in low.
func formatRA(h float64, high bool) string {
	if high {
		sec := int(math.Round(wrapHours(h)*3600)) % 86400
		return fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	}
	t := int(math.Round(wrapHours(h)*600)) % 14400 // tenths of a minute
	return fmt.Sprintf("%02d:%02d.%d", t/600, t/10%60, t%10)
}

// formatDec is sDD*MM:SS in high precision, sDD*MM in low.
func formatDec(d float64, high bool) string {
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	if high {
		sec := int(math.Round(d * 3600))
		return fmt.Sprintf("%s%02d*%02d:%02d", sign, sec/3600, sec/60%60, sec%60)
	}
	m := int(math.Round(d * 60))
	return fmt.Sprintf("%s%02d*%02d", sign, m/60, m%60)
}

// formatGeo is sDD*MM (or sDDD*MM for digits 3), as :Gt# and :Gg# answer.
func formatGeo(v float64, digits int) string {
	sign := "+"
	if v < 0 {
		sign, v = "-", -v
	}
	m := int(math.Round(v * 60))
	return fmt.Sprintf("%s%0*d*%02d", sign, digits, m/60, m%60)
}

// parseSexa reads [s]D[sep]M[sep]S with any separators (':', '*', the degree sign, '.'
// within a number, spaces), as the drivers write them.
func parseSexa(str string) (float64, bool) {
	str = strings.TrimSpace(str)
	neg := strings.HasPrefix(str, "-")
	str = strings.TrimLeft(str, "+-")
	fields := strings.FieldsFunc(str, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if len(fields) == 0 || len(fields) > 3 {
		return 0, false
	}
	v, scale := 0.0, 1.0
	for _, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return 0, false
		}
		v += x / scale
		scale *= 60
	}
	if neg {
		v = -v
	}
	return v, true
}
