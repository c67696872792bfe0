// Initials are what most people see first, and the marker is how the operator
// tells a drawing from a photo after a failed read, so both are pinned here:
// the rules for the letters, and the exact bytes of the marker.

package pictures

import (
	"bytes"
	"image"
	"image/color"
	"liken.sh/runner/pictures/avatar"
	"math"
	"strings"
	"testing"
)

func TestANicknameGivesOneInitial(t *testing.T) {
	for _, tc := range []struct{ displayName, nickname, want string }{
		{"Ada Lovelace", "Ada", "A"},
		{"Ada Lovelace", "ada", "A"},
		{"Augusta Ada King", "countess of lovelace", "C"},
		{"Ada Lovelace", "  lady  ada ", "L"},
		{"Émile Zola", "émile", "É"},
		{"Grace Hopper", "ámazing grace", "Á"},
		{"Elena", "ελένη", "Ε"},
		{"Ivan", "ваня", "В"},
		{"Bruce Lee", "小龍", "小"},
	} {
		if got := Initials(tc.displayName, tc.nickname); got != tc.want {
			t.Errorf("Initials(%q, %q) = %q, want %q", tc.displayName, tc.nickname, got, tc.want)
		}
	}
}

func TestADisplayNameGivesTheFirstLettersOfItsFirstAndLastWords(t *testing.T) {
	for _, tc := range []struct{ displayName, want string }{
		{"Ada Lovelace", "AL"},
		{"ada lovelace", "AL"},
		{"Augusta Ada King Lovelace", "AL"},
		{"  Grace \t  Hopper\n", "GH"},
		{"Ada\u00a0Lovelace", "AL"}, // a no-break space is a space
		{"Jean-Luc Picard", "JP"},
		{"Ñandú Ölçer", "ÑÖ"},
		{"łukasz żak", "ŁŻ"},
		{"Ελένη Παπαδοπούλου", "ΕΠ"},
		{"иван петров", "ИП"},
		{"李 小龍", "李小"},
		{"e\u0301mile zola", "E\u0301Z"}, // a combining accent stays with its letter
		{"🙂 smile", "🙂S"},
	} {
		if got := Initials(tc.displayName, ""); got != tc.want {
			t.Errorf("Initials(%q, \"\") = %q, want %q", tc.displayName, got, tc.want)
		}
	}
}

func TestASingleWordGivesOneInitial(t *testing.T) {
	for _, tc := range []struct{ displayName, want string }{
		{"Ada", "A"},
		{"ada", "A"},
		{"  ada  ", "A"},
		{"Ölçer", "Ö"},
		{"ÉMILE", "É"},
		{"x", "X"},
	} {
		if got := Initials(tc.displayName, ""); got != tc.want {
			t.Errorf("Initials(%q, \"\") = %q, want %q", tc.displayName, got, tc.want)
		}
	}
}

func TestABlankNicknameFallsBackToTheDisplayName(t *testing.T) {
	if got := Initials("Ada Lovelace", "  \t "); got != "AL" {
		t.Errorf("Initials with a blank nickname = %q, want AL", got)
	}
}

func TestBlankNamesGiveNoInitials(t *testing.T) {
	if got := Initials(" ", ""); got != "" {
		t.Errorf("Initials of blank names = %q, want none", got)
	}
}

// The marker every initials thumbnail carries, byte for byte, and its base64 form.
const (
	specMarker       = "\xFF\xD8\xFF\xFE\x00\x1Apeople-operator initials"
	specMarkerBase64 = "/9j//gAacGVvcGxlLW9wZXJhdG9yIGluaXRpYWxz"
)

func TestDrawnInitialsBeginWithTheMarker(t *testing.T) {
	if len(specMarker) != 30 {
		t.Fatalf("the marker is %d bytes, want 30", len(specMarker))
	}
	for _, initials := range []string{"", "A", "AL", "É"} {
		b := DrawInitials(initials, avatar.Colour("ada"))
		if !bytes.HasPrefix(b, []byte(specMarker)) {
			t.Errorf("DrawInitials(%q) begins % x, want % x", initials, b[:30], specMarker)
		}
		// The segment after the marker is the encoder's own: the JPEG holds
		// exactly one SOI, at its start.
		if n := bytes.Count(b, []byte{0xFF, 0xD8}); n != 1 {
			t.Errorf("DrawInitials(%q) holds %d SOI markers, want 1", initials, n)
		}
		decodeJPEG(t, b)
	}
}

func TestTheFirstFortyBase64CharactersOfDrawnInitialsAreFixed(t *testing.T) {
	for _, name := range []string{"ada", "grace", "linus"} {
		uri := avatar.DataURI(DrawInitials(Initials(name, ""), avatar.Colour(name)))
		want := "data:image/jpeg;base64," + specMarkerBase64
		if !strings.HasPrefix(uri, want) {
			t.Errorf("the initials of %s begin %q, want %q", name, uri[:len(want)], want)
		}
	}
}

func TestIsInitialsTellsDrawnInitialsFromAPhoto(t *testing.T) {
	photo, err := Thumbnail(pngOf(t, solid(40, 30, color.RGBA{200, 10, 10, 255})), avatar.Colour("ada"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		thumbnail string
		want      bool
	}{
		{"drawn initials", avatar.DataURI(DrawInitials("AL", avatar.Colour("ada"))), true},
		{"drawn blank initials", avatar.DataURI(DrawInitials("", avatar.Colour("ada"))), true},
		{"a photo", avatar.DataURI(photo), false},
		{"no thumbnail", "", false},
		{"the marker alone, cut short", "data:image/jpeg;base64," + specMarkerBase64[:39], false},
		{"the marker under another media type", "data:image/png;base64," + specMarkerBase64, false},
	} {
		if got := avatar.IsInitials(tc.thumbnail); got != tc.want {
			t.Errorf("IsInitials(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// ink is the bounding box of the near-white pixels of a picture.
func ink(img image.Image) image.Rectangle {
	var r image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if near(img.At(x, y), color.White, 40) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func TestInitialsAreDrawnWhiteAndCentredOnThePersonsColour(t *testing.T) {
	for _, tc := range []struct{ initials, name string }{
		{"A", "ada"}, {"AL", "ada"}, {"MW", "mw"}, {"J", "jo"}, {"É", "emile"}, {"GH", "grace"},
	} {
		colour := avatar.Colour(tc.name)
		img := decodeJPEG(t, DrawInitials(tc.initials, colour))
		for _, p := range []image.Point{{2, 2}, {Size - 3, 2}, {2, Size - 3}, {Size - 3, Size - 3}} {
			if got := img.At(p.X, p.Y); !near(got, colour, 6) {
				t.Errorf("%s: the pixel at %v is %v, want near %s", tc.initials, p, got, avatar.Hex(colour))
			}
		}
		box := ink(img)
		if box.Empty() {
			t.Errorf("%s: nothing white is drawn", tc.initials)
			continue
		}
		// The ink's centre is the canvas's, within a pixel or two of JPEG blur.
		cx := float64(box.Min.X+box.Max.X) / 2
		cy := float64(box.Min.Y+box.Max.Y) / 2
		if math.Abs(cx-Size/2) > 2 || math.Abs(cy-Size/2) > 2 {
			t.Errorf("%s: the ink %v is centred at (%.1f, %.1f), want (128, 128)", tc.initials, box, cx, cy)
		}
	}
}

func TestOneLetterIsDrawnAt128PointsAndTwoAt104(t *testing.T) {
	one := ink(decodeJPEG(t, DrawInitials("H", avatar.Colour("h"))))
	two := ink(decodeJPEG(t, DrawInitials("HH", avatar.Colour("h"))))
	// The cap height of Go Bold is 0.729 em, so an H is 93 px at 128 points
	// and 76 px at 104.
	for _, tc := range []struct {
		name   string
		height int
		want   float64
	}{
		{"one letter", one.Dy(), 128 * 0.729},
		{"two letters", two.Dy(), 104 * 0.729},
	} {
		if math.Abs(float64(tc.height)-tc.want) > 3 {
			t.Errorf("%s is %d px tall, want about %.0f", tc.name, tc.height, tc.want)
		}
	}
}

func TestDrawnInitialsAreAJPEGOfQuality85(t *testing.T) {
	if got, want := dqt(t, DrawInitials("AL", avatar.Colour("ada"))), quality85Tables(t); !bytes.Equal(got, want) {
		t.Error("the initials' quantisation tables are not those of quality 85")
	}
}

func TestNoInitialsDrawTheColourAlone(t *testing.T) {
	img := decodeJPEG(t, DrawInitials("", avatar.Colour("x")))
	if box := ink(img); !box.Empty() {
		t.Errorf("blank initials drew ink at %v", box)
	}
	if got := img.At(Size/2, Size/2); !near(got, avatar.Colour("x"), 6) {
		t.Errorf("the centre is %v, want near %s", got, avatar.Hex(avatar.Colour("x")))
	}
}
