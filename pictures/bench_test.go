// What a picture costs: drawing initials happens on every spec edit of a
// Person without a photo, and a phone photo of 4000x3000 is the usual input
// of a thumbnail, in the worker or in a baker pod with a 384 MiB limit.

package pictures

import (
	"image"
	"image/color"
	"liken.sh/runner/pictures/avatar"
	"testing"
)

func BenchmarkDrawingInitials(b *testing.B) {
	colour := avatar.Colour("ada")
	b.ReportAllocs()
	for b.Loop() {
		DrawInitials("AL", colour)
	}
}

func BenchmarkThumbnailOfA4000x3000JPEG(b *testing.B) {
	// A gradient with some texture, so the JPEG is photo-sized (about 1 MiB
	// at quality 95) rather than a trivially compressible flat colour.
	img := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := range 3000 {
		for x := range 4000 {
			img.Set(x, y, color.RGBA{uint8(x * 255 / 4000), uint8(y * 255 / 3000), uint8((x ^ y) & 0xFF), 0xFF})
		}
	}
	data := jpegOf(b, img)
	b.SetBytes(int64(len(data)))
	colour := avatar.Colour("ada")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Thumbnail(data, colour); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRefusingAPNGBomb(b *testing.B) {
	data := pngHeader(100000, 100000)
	colour := avatar.Colour("ada")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Thumbnail(data, colour); err == nil {
			b.Fatal("the bomb was accepted")
		}
	}
}
