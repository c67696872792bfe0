// The AvatarReady condition's reasons, and the error that carries one. The
// words are the existing operator's, and they appear in the
// Picture column of `kubectl get people`, so they never change. They are
// untyped strings so they drop straight into a condition's Reason.

package avatar

import (
	"errors"
	"fmt"
)

// Reasons for a picture that was made.
const (
	// ReasonInitials: the avatar is empty, or a read failed with no photo to
	// keep, and the initials were drawn.
	ReasonInitials = "Initials"
	// ReasonFetched: the picture came from an http:// or https:// URL.
	ReasonFetched = "Fetched"
	// ReasonInline: the picture came from a data: URI.
	ReasonInline = "Inline"
	// ReasonBaked: a baker pod read the picture from NFS or a claim.
	ReasonBaked = "Baked"
)

// Reasons for a picture that could not be made.
const (
	// ReasonDecodeFailed: the bytes are not a JPEG, PNG, GIF or WebP within
	// the limits, or a data: URI is malformed.
	ReasonDecodeFailed = "DecodeFailed"
	// ReasonFetchFailed: the HTTP read failed (status, network, timeout, size).
	ReasonFetchFailed = "FetchFailed"
	// ReasonBakeFailed: the baker pod failed, the file is missing or too big,
	// or the nfs:// or claim:// URI is malformed.
	ReasonBakeFailed = "BakeFailed"
	// ReasonUnsupportedScheme: the avatar is not a URI this operator reads.
	ReasonUnsupportedScheme = "UnsupportedScheme"
)

// Error is a failure a user can fix: Reason is one of the failure reasons
// above and Message, which is the whole of Error(), says what to fix. It goes
// into the AvatarReady condition as it is.
type Error struct {
	Reason  string
	Message string
	// Err is the cause, if any, for errors.Is and errors.As.
	Err error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an *Error with the given reason. The message is formatted as
// by fmt.Errorf, and an operand of %w becomes the error's cause.
func Errorf(reason, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Reason: reason, Message: err.Error(), Err: errors.Unwrap(err)}
}

// ReasonOf returns the reason an error carries, or fallback when it carries
// none (an error that did not come from this package).
func ReasonOf(err error, fallback string) string {
	var e *Error
	if errors.As(err, &e) && e.Reason != "" {
		return e.Reason
	}
	return fallback
}
