// Errors say what went wrong in words a step's summary can carry: which server was lost, and
// for a refused call PHD2's own message (such as why it could not connect the camera). Callers
// tell them apart with errors.As: an RPCError is PHD2's answer, a ConnError a lost connection.

package phd2

import (
	"fmt"

	"liken.sh/runner/internal/conn"
)

// ErrClosed is the cause of a ConnError after Close.
var ErrClosed = conn.ErrClosed

// ConnError ends a client: the connection to its server was lost, closed, never made, or
// carried a stream we refuse to read (a *ProtocolError). It is the INDI client's too.
type ConnError = conn.Error

// ProtocolError is a stream that cannot be read on, such as a line over the limit.
type ProtocolError struct {
	Reason string
}

func (e *ProtocolError) Error() string { return e.Reason }

// RefusedStream marks a ProtocolError as a stream a ConnError says we refuse.
func (e *ProtocolError) RefusedStream() {}

// RPCError is PHD2's refusal of a call: the JSON-RPC error it answered with. Message is PHD2's
// own words, such as why its camera would not connect.
type RPCError struct {
	Server, Method string
	Code           int
	Message        string
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("phd2 server %s: %s: %s (code %d)", e.Server, e.Method, e.Message, e.Code)
}

// RequestError is a call that could never be sent, such as one longer than PHD2 reads.
type RequestError struct {
	Method string
	Reason string
}

func (e *RequestError) Error() string { return fmt.Sprintf("phd2 request %s: %s", e.Method, e.Reason) }
