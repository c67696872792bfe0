// Package pictures makes the picture a screen shows for a Person: their
// initials drawn on their colour, or a photo cut down to a 256x256 JPEG
// thumbnail. It also holds the program a baker pod runs to read a picture
// from NFS or a claim. What a picture is, without decoding or drawing it (the
// avatar URI a Person names, the person's colour, the reasons a read ends
// with, the thumbnail's data URI), is package avatar, which kube uses too.
//
// Everything here is pure: no Kubernetes, no Temporal, no network. The callers
// fetch bytes (an HTTP activity, a baker pod) and hand them over; this package
// enforces the limits on a picture (10 MiB, 8192 px a side, checked from the
// header before a full decode) so that a hostile file fails fast and cheaply
// wherever it is read.
package pictures
