// Package avatar holds what a Person's picture is, without decoding or drawing
// it: the source spec.avatar names, the person's colour, the AvatarReady
// reasons and the error that carries one, and the data URI a thumbnail takes
// in status.thumbnail, with the marker that tells drawn initials from a photo.
// It is pure values and parsing, so kube's rules use it; package pictures
// decodes and draws.
package avatar
