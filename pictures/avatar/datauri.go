// A thumbnail as status.thumbnail holds it: a data URI of a JPEG. Drawn
// initials begin with a marker, so the operator can tell, from the status
// alone, drawn initials from a photo: a failed read keeps a photo but redraws
// initials.

package avatar

import (
	"encoding/base64"
	"strings"
)

// DataURIPrefix begins every thumbnail in status.thumbnail.
const DataURIPrefix = "data:image/jpeg;base64,"

// DataURI is the form a thumbnail takes in status.thumbnail.
func DataURI(jpegBytes []byte) string {
	return DataURIPrefix + base64.StdEncoding.EncodeToString(jpegBytes)
}

// InitialsMarker is the start of every JPEG of drawn initials: SOI (FF D8), then a
// COM segment (FF FE) of length 0x1A, which counts its own two length bytes
// and the 24 of the text. 30 bytes, so exactly 40 base64 characters.
const InitialsMarker = "\xFF\xD8\xFF\xFE\x00\x1Apeople-operator initials"

// initialsPrefix is how every data URI of drawn initials begins.
var initialsPrefix = DataURIPrefix + base64.StdEncoding.EncodeToString([]byte(InitialsMarker))

// IsInitials tells whether a thumbnail (a data URI, as in status.thumbnail)
// is drawn initials rather than a photo, by the marker drawn initials begin with.
func IsInitials(thumbnail string) bool {
	return strings.HasPrefix(thumbnail, initialsPrefix)
}
