// A Person's initials, drawn white on their colour: the picture every Person
// has until a photo is read, and keeps when a read fails with no photo to
// keep. The drawn JPEG carries a comment segment right after its start marker
// so the operator can tell, from status.thumbnail alone, drawn initials from
// a photo: a failed read keeps a photo but redraws initials.

package pictures

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"liken.sh/runner/pictures/avatar"
)

// Font sizes in points at 72 DPI, so in pixels: one letter fills half the
// picture, two letters a little less so that "MW" still fits.
const (
	oneLetterSize  = 128
	twoLettersSize = 104
	dpi            = 72
)

// Initials are what a Person's picture shows before, or instead of, a photo:
// the upper-cased first letter of the nickname's first word; or, without a
// nickname, the first letters of the display name's first and last words (one
// letter when it has one word). A "letter" is a whole character: a base rune
// with any combining marks after it, so "E\u0301mile" gives "E\u0301". Blank
// names give "".
func Initials(displayName, nickname string) string {
	if words := strings.Fields(nickname); len(words) > 0 {
		return strings.ToUpper(firstLetter(words[0]))
	}
	words := strings.Fields(displayName)
	switch len(words) {
	case 0:
		return ""
	case 1:
		return strings.ToUpper(firstLetter(words[0]))
	}
	return strings.ToUpper(firstLetter(words[0]) + firstLetter(words[len(words)-1]))
}

// firstLetter is the first rune of a word and the combining marks after it.
func firstLetter(word string) string {
	_, n := utf8.DecodeRuneInString(word)
	for n < len(word) {
		r, size := utf8.DecodeRuneInString(word[n:])
		if !unicode.Is(unicode.M, r) {
			break
		}
		n += size
	}
	return word[:n]
}

// letters counts the letters of initials in firstLetter's sense.
func letters(s string) int {
	n := 0
	for s != "" {
		l := firstLetter(s)
		s = s[len(l):]
		n++
	}
	return n
}

var goBold = sync.OnceValue(func() *opentype.Font {
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		panic("pictures: the embedded Go Bold font does not parse: " + err.Error())
	}
	return f
})

// DrawInitials draws initials (as Initials returns them) in white Go Bold,
// centred on a Size x Size canvas of the colour, and returns the JPEG with
// the initials marker. A letter the font lacks draws as its empty box.
func DrawInitials(initials string, colour color.RGBA) []byte {
	canvas := image.NewRGBA(image.Rect(0, 0, Size, Size))
	draw.Draw(canvas, canvas.Bounds(), image.NewUniform(colour), image.Point{}, draw.Src)

	if initials != "" {
		size := float64(oneLetterSize)
		if letters(initials) > 1 {
			size = twoLettersSize
		}
		face, err := opentype.NewFace(goBold(), &opentype.FaceOptions{Size: size, DPI: dpi, Hinting: font.HintingNone})
		if err != nil {
			panic("pictures: a Go Bold face: " + err.Error())
		}
		defer face.Close()
		d := font.Drawer{Dst: canvas, Src: image.White, Face: face}
		// Centre the ink, not the advance box: the eye judges by the ink,
		// and the advance box of "J" or "L" is far from its glyph.
		ink, _ := d.BoundString(initials)
		centre := fixed.I(Size)
		d.Dot = fixed.Point26_6{
			X: (centre - ink.Min.X - ink.Max.X) / 2,
			Y: (centre - ink.Min.Y - ink.Max.Y) / 2,
		}
		d.DrawString(initials)
	}

	var out bytes.Buffer
	out.Grow(16 << 10)
	if err := jpeg.Encode(&out, canvas, &jpeg.Options{Quality: Quality}); err != nil {
		// Encoding a valid in-memory image into a bytes.Buffer cannot fail.
		panic("pictures: encoding initials: " + err.Error())
	}
	b := out.Bytes()
	// The encoder begins with SOI; put the marker, which begins with SOI too,
	// in its place.
	return append([]byte(avatar.InitialsMarker), b[2:]...)
}
