// A person's colour: the background of their initials and of any photo with
// transparency. It comes from the Person's name alone, so it is the same on
// every screen, across restarts, and after the picture changes.

package avatar

import (
	"fmt"
	"hash/fnv"
	"image/color"
)

// palette is the existing operator's twelve colours, in its order: FNV-1a-32(name)
// mod 12 picks one, so reordering it would change everyone's colour.
var palette = [12]color.RGBA{
	{0xB7, 0x1C, 0x1C, 0xFF},
	{0xAD, 0x14, 0x57, 0xFF},
	{0x6A, 0x1B, 0x9A, 0xFF},
	{0x45, 0x27, 0xA0, 0xFF},
	{0x28, 0x35, 0x93, 0xFF},
	{0x15, 0x65, 0xC0, 0xFF},
	{0x00, 0x69, 0x5C, 0xFF},
	{0x2E, 0x7D, 0x32, 0xFF},
	{0x55, 0x6B, 0x2F, 0xFF},
	{0xBF, 0x36, 0x0C, 0xFF},
	{0x5D, 0x40, 0x37, 0xFF},
	{0x37, 0x47, 0x4F, 0xFF},
}

// Colour is the colour of the Person with this metadata.name.
func Colour(name string) color.RGBA {
	h := fnv.New32a()
	h.Write([]byte(name))
	return palette[h.Sum32()%uint32(len(palette))]
}

// Hex is the #rrggbb form of a colour, as a baker pod takes it on its
// command line. Alpha is ignored.
func Hex(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// ParseHex reads a #rrggbb colour (either case) into an opaque colour.
func ParseHex(s string) (color.RGBA, error) {
	if len(s) != 7 || s[0] != '#' {
		return color.RGBA{}, fmt.Errorf("the colour %q is not of the form #rrggbb", s)
	}
	var v [3]uint8
	for i := range v {
		hi, ok1 := hexDigit(s[1+2*i])
		lo, ok2 := hexDigit(s[2+2*i])
		if !ok1 || !ok2 {
			return color.RGBA{}, fmt.Errorf("the colour %q is not of the form #rrggbb", s)
		}
		v[i] = hi<<4 | lo
	}
	return color.RGBA{v[0], v[1], v[2], 0xFF}, nil
}

func hexDigit(c byte) (uint8, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
