// The picture of the example Person grace (examples/pictures.yaml), drawn here rather than
// kept as a binary file: a night sky with a crescent moon. make run puts it on the folder that
// backs her claim, and a baker pod turns it into her thumbnail.
package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
)

// portrait draws a size×size PNG.
func portrait(size int) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	stars := rand.New(rand.NewPCG(1, 2))
	for y := range size {
		// Deep blue at the top, to a lighter blue at the horizon.
		f := float64(y) / float64(size)
		sky := color.NRGBA{R: uint8(10 + 30*f), G: uint8(20 + 60*f), B: uint8(60 + 110*f), A: 255}
		for x := range size {
			img.SetNRGBA(x, y, sky)
		}
	}
	for range size / 3 {
		x, y := stars.IntN(size), stars.IntN(size*2/3)
		img.SetNRGBA(x, y, color.NRGBA{R: 255, G: 255, B: 230, A: 255})
	}
	// A crescent: the moon's disc less a disc offset towards the upper left.
	cx, cy, r := float64(size)*0.62, float64(size)*0.38, float64(size)*0.2
	for y := range size {
		for x := range size {
			in := math.Hypot(float64(x)-cx, float64(y)-cy) < r
			shadow := math.Hypot(float64(x)-cx+r*0.45, float64(y)-cy+r*0.2) < r*0.9
			if in && !shadow {
				img.SetNRGBA(x, y, color.NRGBA{R: 250, G: 236, B: 180, A: 255})
			}
		}
	}
	var buf bytes.Buffer
	err := png.Encode(&buf, img)
	return buf.Bytes(), err
}
