// A device's readings (status.readings) and their display (status.display): the values as
// numbers a program reads, and the same with units and rounding for a person, keyed alike.
// Here are the readings of the switch boxes and GPS receivers, which take more than one
// property to read, and the formatting every kind shares (decimals, angles, hours, units).
package kube

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"liken.sh/runner/indi/prop"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// readings collects a device's readings: values for status.readings, text for status.display.
type readings struct{ values, text map[string]string }

func (r readings) set(key, value, text string) {
	r.values[key] = value
	r.text[key] = text
}

func (r readings) setState(key string, s twoState) {
	if w := capitalized(s.word()); w != "" {
		r.set(key, w, w)
	}
}

func capitalized(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// weatherKey is the readings key of a weather parameter: WEATHER_WIND_SPEED is windSpeed.
func weatherKey(element string) string {
	parts := strings.Split(strings.ToLower(strings.TrimPrefix(element, "WEATHER_")), "_")
	for i := 1; i < len(parts); i++ {
		parts[i] = capitalized(parts[i])
	}
	return strings.Join(parts, "")
}

// unitOf is the unit a label names in parentheses at its end: "Wind (kph)" is kph.
func unitOf(label string) string {
	label = strings.TrimSpace(label)
	open := strings.LastIndex(label, "(")
	if open < 0 || !strings.HasSuffix(label, ")") {
		return ""
	}
	return label[open+1 : len(label)-1]
}

func withUnit(v, unit string) string {
	switch unit {
	case "":
		return v
	case "C":
		return v + " °C"
	case "F":
		return v + " °F"
	case "%":
		return v + "%"
	}
	return v + " " + unit
}

// switchReadings: outputs is how many DIGITAL_OUTPUT_<n> there are, on which of them are
// on, inputs the DIGITAL_INPUT_<n> states.
func switchReadings(ps propertySet, _ string, r readings) []obsv1.Condition {
	var outputs, inputs []int
	for name := range ps {
		if n, ok := numbered(name, "DIGITAL_OUTPUT_"); ok {
			outputs = append(outputs, n)
		} else if n, ok := numbered(name, "DIGITAL_INPUT_"); ok {
			inputs = append(inputs, n)
		}
	}
	if len(outputs) > 0 {
		sort.Ints(outputs)
		var on []string
		for _, n := range outputs {
			if ps["DIGITAL_OUTPUT_"+strconv.Itoa(n)].SwitchOn("ON") {
				on = append(on, strconv.Itoa(n))
			}
		}
		r.set(obsv1.ReadingOutputs, strconv.Itoa(len(outputs)), strconv.Itoa(len(outputs)))
		text := "none"
		if len(on) > 0 {
			text = strings.Join(on, ", ")
		}
		r.set(obsv1.ReadingOn, strings.Join(on, ","), text)
	}
	if len(inputs) > 0 {
		sort.Ints(inputs)
		var vals, text []string
		for _, n := range inputs {
			v := "Off"
			if ps["DIGITAL_INPUT_"+strconv.Itoa(n)].SwitchOn("ON") {
				v = "On"
			}
			vals = append(vals, strconv.Itoa(n)+"="+v)
			text = append(text, strconv.Itoa(n)+" "+strings.ToLower(v))
		}
		r.set(obsv1.ReadingInputs, strings.Join(vals, ","), strings.Join(text, ", "))
	}
	return nil
}

func numbered(name, prefix string) (int, bool) {
	if !strings.HasPrefix(name, prefix) {
		return 0, false
	}
	n, err := strconv.Atoi(name[len(prefix):])
	return n, err == nil && n > 0
}

// gpsReadings: fix from the state of GEOGRAPHIC_COORD (Ok once the receiver has a fix), time
// from TIME_UTC, position as latitude, longitude (east positive, -180..180) and elevation.
func gpsReadings(ps propertySet, _ string, r readings) []obsv1.Condition {
	if geo, ok := ps["GEOGRAPHIC_COORD"]; ok {
		fix := "No fix"
		switch geo.State {
		case prop.Ok:
			fix = "Fix"
		case prop.Busy:
			fix = "Searching"
		}
		r.set(obsv1.ReadingFix, fix, fix)
		lat, ok1 := geo.Number("LAT")
		lon, ok2 := geo.Number("LONG")
		elev, ok3 := geo.Number("ELEV")
		if ok1 && ok2 && ok3 {
			if lon > 180 {
				lon -= 360
			}
			ns, ew := "N", "E"
			if lat < 0 {
				ns = "S"
			}
			if lon < 0 {
				ew = "W"
			}
			r.set(obsv1.ReadingPosition, decimal(lat, 6)+","+decimal(lon, 6)+","+decimal(elev, 1),
				fmt.Sprintf("%.4f° %s, %.4f° %s, %s m", math.Abs(lat), ns, math.Abs(lon), ew, decimal(elev, 0)))
		}
	}
	if t, ok := ps.text("TIME_UTC", "UTC"); ok && t != "" {
		r.set(obsv1.ReadingTime, t, strings.Replace(t, "T", " ", 1)+" UTC")
	}
	return nil
}

// decimal writes v rounded to at most places decimals, without trailing zeros.
func decimal(v float64, places int) string {
	p := math.Pow(10, float64(places))
	r := math.Round(v*p) / p
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func degrees(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "°" }

func celsius(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + " °C" }

// hms writes hours as 05h34m32s.
func hms(hours float64) string {
	s := int(math.Round(math.Mod(hours, 24) * 3600))
	if s < 0 {
		s += 24 * 3600
	}
	s %= 24 * 3600
	return fmt.Sprintf("%02dh%02dm%02ds", s/3600, s/60%60, s%60)
}

// dms writes degrees as +22°00'52".
func dms(deg float64) string {
	sign := "+"
	if deg < 0 {
		sign = "-"
	}
	s := int(math.Round(math.Abs(deg) * 3600))
	return fmt.Sprintf("%s%02d°%02d'%02d\"", sign, s/3600, s/60%60, s%60)
}
