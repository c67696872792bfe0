// The colour is part of the compatibility contract: a person keeps the colour
// the existing operator gave them. So the test computes FNV-1a-32 from its
// definition and indexes its own copy of the palette.

package avatar

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
)

var specPalette = strings.Fields("B71C1C AD1457 6A1B9A 4527A0 283593 1565C0 00695C 2E7D32 556B2F BF360C 5D4037 37474F")

// fnv1a32 is FNV-1a with 32 bits, from its definition.
func fnv1a32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

func TestAPersonsColourIsThePaletteEntryAtFNV1aOfTheNameModTwelve(t *testing.T) {
	names := []string{"", "ada", "grace", "alan-turing", "margaret.hamilton", "a", "zé", "李小龍",
		strings.Repeat("very-long-name-", 16)}
	for i := range 100 {
		names = append(names, fmt.Sprintf("person-%d", i))
	}
	seen := map[int]bool{}
	for _, name := range names {
		i := int(fnv1a32(name) % 12)
		seen[i] = true
		if got, want := Hex(Colour(name)), "#"+strings.ToLower(specPalette[i]); got != want {
			t.Errorf("Colour(%q) = %s, want %s (palette index %d)", name, got, want, i)
		}
		if Colour(name).A != 0xFF {
			t.Errorf("Colour(%q) is not opaque", name)
		}
	}
	if len(seen) != 12 {
		t.Errorf("the names reach %d palette entries, want all 12", len(seen))
	}
}

func TestKnownNamesHaveTheirKnownColours(t *testing.T) {
	// FNV-1a-32("ada") = 0x38390dbb, mod 12 = 7; FNV-1a-32("") is the offset
	// basis 0x811c9dc5, mod 12 = 1.
	for _, tc := range []struct{ name, hex string }{
		{"ada", "#2e7d32"},
		{"", "#ad1457"},
	} {
		if got := Hex(Colour(tc.name)); got != tc.hex {
			t.Errorf("Colour(%q) = %s, want %s", tc.name, got, tc.hex)
		}
	}
}

func TestAHexColourReadsBackAsItself(t *testing.T) {
	for _, s := range specPalette {
		c, err := ParseHex("#" + s)
		if err != nil {
			t.Fatalf("ParseHex(#%s): %v", s, err)
		}
		if got := Hex(c); got != "#"+strings.ToLower(s) {
			t.Errorf("Hex(ParseHex(#%s)) = %s", s, got)
		}
	}
	if c, _ := ParseHex("#0aFf10"); c != (color.RGBA{0x0a, 0xff, 0x10, 0xff}) {
		t.Errorf("ParseHex(#0aFf10) = %v", c)
	}
}

func TestAColourNotOfTheFormHashRRGGBBIsRefused(t *testing.T) {
	for _, s := range []string{"", "#", "b71c1c", "#b71c1", "#b71c1c0", "#g71c1c", "red", "#B71C1C\n"} {
		if _, err := ParseHex(s); err == nil {
			t.Errorf("ParseHex(%q) succeeded", s)
		}
	}
}
