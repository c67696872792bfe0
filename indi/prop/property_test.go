// Tests of the property values that need no server: numbers as INDI writes them.
package prop

import (
	"math"
	"testing"
)

func TestNumbersAreReadInDecimalAndSexagesimal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"12.5", 12.5, true},
		{" -3 ", -3, true},
		{"1e3", 1000, true},
		{"12:30:00", 12.5, true},
		{"-12:30", -12.5, true},
		{"-0:30:00", -0.5, true},
		{"12 30 36", 12.51, true},
		{"12;30", 12.5, true},
		{"12:-30", 0, false},
		{"1:2:3:4", 0, false},
		{"abc", 0, false},
		{"", 0, false},
	} {
		got, err := ParseNumber(tc.in)
		if (err == nil) != tc.ok || tc.ok && math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
