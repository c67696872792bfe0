// Test helpers: pictures made in memory in each format, headers that lie
// about their size, and measures of what a call allocates.

package pictures

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"liken.sh/runner/pictures/avatar"
	"os"
	"runtime"
	"testing"
)

// solid is a w x h picture of one colour.
func solid(w, h int, c color.Color) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	return img
}

func pngOf(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegOf(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gifOf encodes a picture of at most 256 colours as a GIF, exactly: its
// palette is the picture's own colours, so nothing is dithered.
func gifOf(t testing.TB, img image.Image) []byte {
	t.Helper()
	pal, ok := img.(*image.Paletted)
	if !ok {
		var colours color.Palette
		seen := map[color.Color]bool{}
		bounds := img.Bounds()
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			for x := bounds.Min.X; x < bounds.Max.X; x++ {
				if c := img.At(x, y); !seen[c] {
					seen[c] = true
					colours = append(colours, c)
				}
			}
		}
		if len(colours) > 256 {
			t.Fatal("a GIF takes at most 256 colours")
		}
		pal = image.NewPaletted(bounds, colours)
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			for x := bounds.Min.X; x < bounds.Max.X; x++ {
				pal.Set(x, y, img.At(x, y))
			}
		}
	}
	var b bytes.Buffer
	if err := gif.Encode(&b, pal, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func webpFile(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/green-3x2.lossless.webp")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// webpGreen is the one colour of every pixel of the WebP in testdata.
var webpGreen = color.RGBA{0x20, 0xC0, 0x40, 0xFF}

// pngHeader is a PNG that is all header: the signature and an IHDR that
// claims w x h RGBA pixels, with a correct CRC, and no image data.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits a sample, RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// gifHeader is a GIF whose logical screen claims w x h, and nothing else.
func gifHeader(w, h uint16) []byte {
	b := []byte("GIF89a")
	b = binary.LittleEndian.AppendUint16(b, w)
	b = binary.LittleEndian.AppendUint16(b, h)
	return append(b, 0, 0, 0, 0x3B)
}

// jpegClaiming is a real small JPEG whose frame header (SOF0) is changed to
// claim w x h.
func jpegClaiming(t testing.TB, w, h uint16) []byte {
	t.Helper()
	b := jpegOf(t, solid(16, 16, color.White))
	i := bytes.Index(b, []byte{0xFF, 0xC0})
	if i < 0 {
		t.Fatal("the test JPEG has no SOF0")
	}
	// FF C0, length (2), precision (1), height (2), width (2).
	binary.BigEndian.PutUint16(b[i+5:], h)
	binary.BigEndian.PutUint16(b[i+7:], w)
	return b
}

// webpClaiming is the WebP in testdata with its VP8L header changed to claim
// w x h. The header packs width-1 and height-1 in 14 bits each, little-endian,
// after the signature byte at offset 20.
func webpClaiming(t testing.TB, w, h uint32) []byte {
	t.Helper()
	b := webpFile(t)
	bits := binary.LittleEndian.Uint32(b[21:])
	bits = bits&^(1<<28-1) | (w - 1) | (h-1)<<14
	binary.LittleEndian.PutUint32(b[21:], bits)
	return b
}

// allocated is how many bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// reasonOf is the reason of an *Error, or "" (and a failed test) for any
// other error.
func reasonOf(t testing.TB, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *avatar.Error
	if !errors.As(err, &e) {
		t.Fatalf("the error %v (%T) carries no reason", err, err)
	}
	return e.Reason
}

// near tells whether two colours differ by at most tol in each channel.
func near(a, b color.Color, tol int) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := func(x, y uint32) int { return abs(int(x>>8) - int(y>>8)) }
	return d(ar, br) <= tol && d(ag, bg) <= tol && d(ab, bb) <= tol
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// decodeJPEG decodes a thumbnail and checks it is Size x Size.
func decodeJPEG(t testing.TB, b []byte) image.Image {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the output is not a JPEG: %v", err)
	}
	if got := img.Bounds(); got != image.Rect(0, 0, Size, Size) {
		t.Fatalf("the output is %v, not %dx%d", got, Size, Size)
	}
	return img
}

// dqt is the quantisation tables of a JPEG, which only its quality decides.
func dqt(t testing.TB, b []byte) []byte {
	t.Helper()
	i := bytes.Index(b, []byte{0xFF, 0xDB})
	if i < 0 {
		t.Fatal("the JPEG has no DQT")
	}
	n := int(binary.BigEndian.Uint16(b[i+2:]))
	return b[i : i+2+n]
}

// quality85Tables is the DQT the standard library writes at quality 85.
func quality85Tables(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, solid(8, 8, color.Black), &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	return dqt(t, b.Bytes())
}

func mustBase64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("not base64: %v", err)
	}
	return b
}
