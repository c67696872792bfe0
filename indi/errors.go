// Errors say what went wrong in words an operator's step summary can carry: which server was
// lost, which device refused what and why (the driver's own message), what a wait was waiting
// for and what it last saw, and which request could never be valid. Callers tell them apart
// with errors.As; a RequestError or MissingError is something a user fixes, the rest may pass.

package indi

import (
	"errors"
	"fmt"
	"strings"

	"liken.sh/runner/internal/conn"
)

// ErrClosed is the cause of a ConnError after Close.
var ErrClosed = conn.ErrClosed

// ConnError ends a client: the connection to its server was lost, closed, or carried a
// stream we refuse to read (a *ProtocolError). It is the PHD2 client's too.
type ConnError = conn.Error

// AlertError is a driver's refusal or failure: the property went to Alert. Message is the
// driver's explanation, without its log-level prefix, or "" if it gave none.
type AlertError struct {
	Device, Property string
	Message          string
}

func (e *AlertError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s %s: Alert, and the driver gave no reason", e.Device, e.Property)
	}
	return fmt.Sprintf("%s %s: %s", e.Device, e.Property, e.Message)
}

// WaitError is a wait that ended before its property got where it should: the context ended,
// or the property was deleted. Last is the property's last known state.
type WaitError struct {
	Device, Property string
	Want             string // what was awaited, e.g. "PARK=On, settled"
	Last             string // e.g. "Busy PARK=On UNPARK=Off", or "undefined"
	Err              error
}

func (e *WaitError) Error() string {
	return fmt.Sprintf("waiting for %s %s to be %s (last %s): %v", e.Device, e.Property, e.Want,
		e.Last, e.Err)
}

func (e *WaitError) Unwrap() error { return e.Err }

// errDeleted is the cause of a WaitError whose property went away, as it does when a driver
// restarts or a device disconnects.
var errDeleted = errors.New("the property was deleted (driver restarted or device disconnected?)")

// MissingError says a device lacks a property an operation needs: the driver is not of the kind
// the operation expects, or the device is not connected.
type MissingError struct {
	Device   string
	Property string // several alternatives are joined with " or "
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("device %s has no %s property", e.Device, e.Property)
}

// RequestError is a change that can never be valid: unknown element, read-only property,
// a switch rule broken, a number out of range.
type RequestError struct {
	Device, Property string
	Reason           string
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("cannot set %s %s: %s", e.Device, e.Property, e.Reason)
}

// cleanMessage drops the "[INFO] " style prefix libindi puts on logged messages.
func cleanMessage(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "] "); i > 1 && i < 12 && strings.ToUpper(s[1:i]) == s[1:i] {
			return strings.TrimSpace(s[i+2:])
		}
	}
	return s
}
