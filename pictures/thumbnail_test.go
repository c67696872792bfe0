// A thumbnail is made from a stranger's bytes, so besides the picture it
// makes, these tests prove the limits hold before anything big is decoded:
// a header that claims too many pixels fails with a small, fixed amount of
// memory, whatever it claims.

package pictures

import (
	"bytes"
	"image"
	"image/color"
	"io"
	"liken.sh/runner/pictures/avatar"
	"strings"
	"testing"
)

func TestEachFormatMakesAThumbnail(t *testing.T) {
	orange := color.RGBA{0xF0, 0x80, 0x10, 0xFF}
	for _, tc := range []struct {
		format string
		data   []byte
		want   color.Color
	}{
		{"PNG", pngOf(t, solid(40, 30, orange)), orange},
		{"GIF", gifOf(t, solid(40, 30, orange)), orange},
		{"JPEG", jpegOf(t, solid(40, 30, orange)), orange},
		{"WebP", webpFile(t), webpGreen},
	} {
		t.Run(tc.format, func(t *testing.T) {
			b, err := Thumbnail(tc.data, avatar.Colour("ada"))
			if err != nil {
				t.Fatalf("Thumbnail of a %s: %v", tc.format, err)
			}
			img := decodeJPEG(t, b)
			for _, p := range []image.Point{{Size / 2, Size / 2}, {3, 3}, {Size - 4, Size - 4}} {
				if got := img.At(p.X, p.Y); !near(got, tc.want, 12) {
					t.Errorf("the pixel at %v is %v, want near %v", p, got, tc.want)
				}
			}
		})
	}
}

func TestTheWebPInTestdataDecodes(t *testing.T) {
	img, format, err := image.Decode(bytes.NewReader(webpFile(t)))
	if err != nil || format != "webp" {
		t.Fatalf("the WebP decodes as %q: %v", format, err)
	}
	if img.Bounds() != image.Rect(0, 0, 3, 2) || !near(img.At(2, 1), webpGreen, 0) {
		t.Errorf("the WebP is %v with %v at (2,1), want 3x2 of %v", img.Bounds(), img.At(2, 1), webpGreen)
	}
}

func TestTransparencyShowsThePersonsColour(t *testing.T) {
	colour := avatar.Colour("grace")
	clear := color.NRGBA{0xFF, 0xFF, 0xFF, 0}
	// A GIF with one transparent palette entry.
	pal := image.NewPaletted(image.Rect(0, 0, 20, 20), color.Palette{color.NRGBA{}, color.Black})
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"a transparent PNG", pngOf(t, solid(64, 64, clear))},
		{"a transparent GIF", gifOf(t, pal)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Thumbnail(tc.data, colour)
			if err != nil {
				t.Fatal(err)
			}
			img := decodeJPEG(t, b)
			for _, p := range []image.Point{{0, 0}, {Size / 2, Size / 2}, {Size - 1, Size - 1}} {
				if got := img.At(p.X, p.Y); !near(got, colour, 8) {
					t.Errorf("the pixel at %v is %v, want near %s", p, got, avatar.Hex(colour))
				}
			}
		})
	}
}

func TestHalfTransparencyBlendsWithThePersonsColour(t *testing.T) {
	colour := avatar.Colour("ada") // #2e7d32
	b, err := Thumbnail(pngOf(t, solid(32, 32, color.NRGBA{0xFF, 0xFF, 0xFF, 0x80})), colour)
	if err != nil {
		t.Fatal(err)
	}
	want := color.RGBA{
		uint8((0xFF*0x80 + int(colour.R)*0x7F) / 0xFF),
		uint8((0xFF*0x80 + int(colour.G)*0x7F) / 0xFF),
		uint8((0xFF*0x80 + int(colour.B)*0x7F) / 0xFF),
		0xFF,
	}
	if got := decodeJPEG(t, b).At(Size/2, Size/2); !near(got, want, 8) {
		t.Errorf("half-transparent white over %s is %v, want near %v", avatar.Hex(colour), got, want)
	}
}

// bands is a picture of three equal bands along its long side.
func bands(w, h int, a, b, c color.Color) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			pos := x * 3 / w
			if h > w {
				pos = y * 3 / h
			}
			img.Set(x, y, []color.Color{a, b, c}[pos])
		}
	}
	return img
}

func TestTheCentreSquareOfAPictureIsKept(t *testing.T) {
	red, green, blue := color.RGBA{0xFF, 0, 0, 0xFF}, color.RGBA{0, 0xFF, 0, 0xFF}, color.RGBA{0, 0, 0xFF, 0xFF}
	for _, tc := range []struct {
		name string
		img  image.Image
	}{
		{"a wide picture", bands(600, 200, red, green, blue)},
		{"a tall picture", bands(200, 600, red, green, blue)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Thumbnail(pngOf(t, tc.img), avatar.Colour("x"))
			if err != nil {
				t.Fatal(err)
			}
			img := decodeJPEG(t, b)
			// Only the middle band, edge to edge: JPEG blurs the edges by a
			// pixel or so, and nothing of the outer bands shows.
			for _, p := range []image.Point{{2, 2}, {Size / 2, Size / 2}, {Size - 3, 2}, {2, Size - 3}, {Size - 3, Size - 3}} {
				if got := img.At(p.X, p.Y); !near(got, green, 16) {
					t.Errorf("the pixel at %v is %v, want near green", p, got)
				}
			}
		})
	}
}

func TestAThumbnailIsAJPEGOfQuality85(t *testing.T) {
	b, err := Thumbnail(pngOf(t, solid(10, 10, color.White)), avatar.Colour("x"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dqt(t, b), quality85Tables(t)) {
		t.Error("the thumbnail's quantisation tables are not those of quality 85")
	}
	if bytes.HasPrefix(b, []byte(specMarker)) {
		t.Error("a photo's thumbnail carries the initials marker")
	}
}

func TestAPictureTooLargeInPixelsFailsFromItsHeaderAlone(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"a PNG claiming 9000x10", pngHeader(9000, 10), "9000x10"},
		{"a PNG claiming 10x9000", pngHeader(10, 9000), "10x9000"},
		{"a PNG bomb claiming 100000x100000", pngHeader(100000, 100000), "100000x100000"},
		{"a PNG claiming 8193x1", pngHeader(8193, 1), "8193x1"},
		{"a GIF claiming 9000x10", gifHeader(9000, 10), "9000x10"},
		{"a GIF bomb claiming 65535x65535", gifHeader(65535, 65535), "65535x65535"},
		{"a JPEG claiming 9000x10", jpegClaiming(t, 9000, 10), "9000x10"},
		{"a JPEG bomb claiming 65535x65535", jpegClaiming(t, 65535, 65535), "65535x65535"},
		{"a WebP claiming 9000x10", webpClaiming(t, 9000, 10), "9000x10"},
		{"a WebP bomb claiming 16384x16384", webpClaiming(t, 16384, 16384), "16384x16384"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			used := allocated(func() { _, err = Thumbnail(tc.data, avatar.Colour("x")) })
			if reasonOf(t, err) != avatar.ReasonDecodeFailed {
				t.Fatalf("the error is %v, want DecodeFailed", err)
			}
			want := "the picture is " + tc.want + " pixels; each side must be at most 8192"
			if err.Error() != want {
				t.Errorf("the message is %q, want %q", err, want)
			}
			// Reading a header costs a decoder's state, a few KiB; decoding
			// even the smallest claim here would cost 360 KiB, the largest
			// tens of GiB.
			t.Logf("refusing it allocated %d bytes", used)
			if used > 128<<10 {
				t.Errorf("refusing it allocated %d bytes, want under 128 KiB", used)
			}
		})
	}
}

func TestASideOfExactly8192PixelsIsAllowed(t *testing.T) {
	b, err := Thumbnail(pngOf(t, solid(8192, 1, color.White)), avatar.Colour("x"))
	if err != nil {
		t.Fatalf("an 8192x1 PNG fails: %v", err)
	}
	decodeJPEG(t, b)
}

func TestATruncatedPictureFailsToDecode(t *testing.T) {
	grey := color.RGBA{0x80, 0x80, 0x80, 0xFF}
	for _, tc := range []struct {
		format string
		data   []byte
	}{
		{"PNG", pngOf(t, bands(64, 48, grey, color.White, color.Black))},
		{"GIF", gifOf(t, bands(64, 48, grey, color.White, color.Black))},
		{"JPEG", jpegOf(t, bands(64, 48, grey, color.White, color.Black))},
		{"WebP", webpFile(t)},
	} {
		for _, keep := range []int{len(tc.data) / 2, len(tc.data) - 8, 30, 8} {
			_, err := Thumbnail(tc.data[:keep], avatar.Colour("x"))
			if reasonOf(t, err) != avatar.ReasonDecodeFailed {
				t.Errorf("a %s cut to %d bytes: the error is %v, want DecodeFailed", tc.format, keep, err)
			}
		}
	}
}

func TestBytesThatAreNoPictureFailToDecode(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"nothing", nil, "the picture is empty"},
		{"text", []byte("hello, world"), "the picture is not a JPEG, PNG, GIF, or WebP image"},
		{"a web page", []byte("<!doctype html><html><body>Not found</body></html>"), "the picture is not a JPEG, PNG, GIF, or WebP image"},
		{"a BMP", append([]byte("BM"), make([]byte, 60)...), "the picture is not a JPEG, PNG, GIF, or WebP image"},
		{"a PNG signature and garbage", append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0xAB}, 64)...), "the picture is not a valid PNG image"},
	} {
		_, err := Thumbnail(tc.data, avatar.Colour("x"))
		if reasonOf(t, err) != avatar.ReasonDecodeFailed {
			t.Errorf("%s: the error is %v, want DecodeFailed", tc.name, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: the message is %q, want it to begin %q", tc.name, err, tc.want)
		}
	}
}

func TestAPictureOverTenMiBIsRefusedBeforeDecoding(t *testing.T) {
	// A real PNG at the front, so only the size can be the reason.
	data := append(pngOf(t, solid(4, 4, color.White)), make([]byte, 11<<20)...)
	var err error
	used := allocated(func() { _, err = Thumbnail(data, avatar.Colour("x")) })
	if reasonOf(t, err) != avatar.ReasonDecodeFailed {
		t.Fatalf("the error is %v, want DecodeFailed", err)
	}
	if !strings.Contains(err.Error(), "over the limit of 10 MiB") {
		t.Errorf("the message %q does not name the limit", err)
	}
	if used > 16<<10 {
		t.Errorf("refusing it allocated %d bytes", used)
	}
}

func TestThePublishedLimitsAreTheSpecs(t *testing.T) {
	if MaxBytes != 10*1024*1024 || MaxSide != 8192 || Size != 256 || Quality != 85 {
		t.Errorf("the limits are %d bytes, %d px, %d px, quality %d", MaxBytes, MaxSide, Size, Quality)
	}
}

func TestADataURIIsBase64JPEG(t *testing.T) {
	if got := avatar.DataURI([]byte{0xFF, 0xD8, 0xFF}); got != "data:image/jpeg;base64,/9j/" {
		t.Errorf("DataURI = %q", got)
	}
}

func TestAnErrorCarriesItsReasonAndCause(t *testing.T) {
	cause := bytes.ErrTooLarge
	err := avatar.Errorf(avatar.ReasonFetchFailed, "the server said %d: %w", 500, cause)
	if err.Error() != "the server said 500: "+cause.Error() || err.Reason != avatar.ReasonFetchFailed {
		t.Errorf("Errorf made %+v", err)
	}
	if avatar.ReasonOf(err, "x") != avatar.ReasonFetchFailed || avatar.ReasonOf(cause, "x") != "x" {
		t.Error("ReasonOf does not find the reason")
	}
	if err.Unwrap() != cause {
		t.Error("the cause is lost")
	}
}

func TestAFormatRegisteredElsewhereInTheBinaryIsRefused(t *testing.T) {
	// Another package of the binary may register, say, BMP with image.
	image.RegisterFormat("pictures-test", "PTST", func(io.Reader) (image.Image, error) {
		return solid(4, 4, color.White), nil
	}, func(io.Reader) (image.Config, error) {
		return image.Config{ColorModel: color.NRGBAModel, Width: 4, Height: 4}, nil
	})
	_, err := Thumbnail([]byte("PTST and more"), avatar.Colour("x"))
	if reasonOf(t, err) != avatar.ReasonDecodeFailed || !strings.Contains(err.Error(), "not a JPEG, PNG, GIF, or WebP") {
		t.Errorf("the error is %v, want DecodeFailed naming the four formats", err)
	}
}
