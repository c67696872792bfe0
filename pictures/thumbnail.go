// The thumbnail of a photo: what every screen shows for a Person. The bytes
// come from a stranger (a URL, an inline URI, a file on a share), so the
// limits are enforced before anything big is allocated: the size of the input
// first, then each side as the format's header states it. Only then is the
// picture decoded, cut to its centre square and scaled onto the person's
// colour, so transparent parts show that colour.

package pictures

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"

	// The formats a picture may be in, registered for image.Decode.
	_ "image/gif"
	_ "image/png"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
	"liken.sh/runner/pictures/avatar"
)

// The limits on a picture and the thumbnail's shape. An HTTP reader caps its body
// at MaxBytes+1 to tell "exactly 10 MiB" from "too big".
const (
	// MaxBytes is the largest picture read: 10 MiB.
	MaxBytes = 10 << 20
	// MaxSide is the longest side, in pixels, of a picture decoded.
	MaxSide = 8192
	// Size is the side of every thumbnail, in pixels.
	Size = 256
	// Quality is the JPEG quality of every thumbnail.
	Quality = 85
)

// Thumbnail makes the Size x Size JPEG of a picture: its centre square,
// scaled with Catmull-Rom over the colour. It accepts JPEG, PNG, GIF (the
// first frame) and WebP. Every failure is an *Error with ReasonDecodeFailed
// and a message that says what is wrong with the picture.
func Thumbnail(data []byte, colour color.RGBA) ([]byte, error) {
	if len(data) > MaxBytes {
		return nil, tooBig(int64(len(data)))
	}
	if len(data) == 0 {
		return nil, avatar.Errorf(avatar.ReasonDecodeFailed, "the picture is empty")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, decodeError(format, err)
	}
	// image.Decode reads any format registered in the binary; only the
	// four in formatNames, with the limits above, are read here.
	if _, ok := formatNames[format]; !ok {
		return nil, decodeError("", image.ErrFormat)
	}
	if err := checkSides(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, decodeError(format, err)
	}
	// The decoders agree with their headers; this is a guard, not a limit.
	b := img.Bounds()
	if err := checkSides(b.Dx(), b.Dy()); err != nil {
		return nil, err
	}

	side := min(b.Dx(), b.Dy())
	x0 := b.Min.X + (b.Dx()-side)/2
	y0 := b.Min.Y + (b.Dy()-side)/2
	square := image.Rect(x0, y0, x0+side, y0+side)

	canvas := image.NewRGBA(image.Rect(0, 0, Size, Size))
	draw.Draw(canvas, canvas.Bounds(), image.NewUniform(colour), image.Point{}, draw.Src)
	draw.CatmullRom.Scale(canvas, canvas.Bounds(), img, square, draw.Over, nil)

	var out bytes.Buffer
	out.Grow(32 << 10)
	if err := jpeg.Encode(&out, canvas, &jpeg.Options{Quality: Quality}); err != nil {
		return nil, avatar.Errorf(avatar.ReasonDecodeFailed, "the thumbnail could not be encoded: %w", err)
	}
	return out.Bytes(), nil
}

func checkSides(w, h int) error {
	if w > MaxSide || h > MaxSide {
		return avatar.Errorf(avatar.ReasonDecodeFailed, "the picture is %dx%d pixels; each side must be at most %d", w, h, MaxSide)
	}
	if w <= 0 || h <= 0 {
		return avatar.Errorf(avatar.ReasonDecodeFailed, "the picture is %dx%d pixels; it has nothing to show", w, h)
	}
	return nil
}

func decodeError(format string, err error) error {
	if errors.Is(err, image.ErrFormat) || format == "" {
		return avatar.Errorf(avatar.ReasonDecodeFailed, "the picture is not a JPEG, PNG, GIF, or WebP image")
	}
	return avatar.Errorf(avatar.ReasonDecodeFailed, "the picture is not a valid %s image (%v); save it again or use another file", formatNames[format], err)
}

// formatNames are the formats read, by image's name for them.
var formatNames = map[string]string{"jpeg": "JPEG", "png": "PNG", "gif": "GIF", "webp": "WebP"}

// tooBig is the error for a picture over MaxBytes.
func tooBig(n int64) *avatar.Error {
	return avatar.Errorf(avatar.ReasonDecodeFailed, "the picture is %d bytes, over the limit of 10 MiB (%d bytes); make it smaller", n, MaxBytes)
}
