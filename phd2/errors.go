// Errors say what went wrong in words a step's summary can carry: which server was lost, and
// for a refused call PHD2's own message (such as why it could not connect the camera). Callers
// tell them apart with errors.As: an RPCError is PHD2's answer, a ConnError a lost connection.

package phd2

import (
	"errors"
	"fmt"
	"net"
)

// ErrClosed is the cause of a ConnError after Close.
var ErrClosed = errors.New("client closed")

// ConnError ends a client: the connection to Server was lost, closed, or carried a stream we
// refuse to read.
type ConnError struct {
	Server string
	Err    error
}

func (e *ConnError) Error() string {
	var pe *ProtocolError
	var op *net.OpError
	switch {
	case errors.Is(e.Err, ErrClosed):
		return fmt.Sprintf("phd2 server %s: %v", e.Server, e.Err)
	case errors.As(e.Err, &op) && op.Op == "dial":
		return fmt.Sprintf("phd2 server %s cannot be reached: %v", e.Server, e.Err)
	case errors.As(e.Err, &pe):
		return fmt.Sprintf("phd2 server %s sent a stream we refuse: %v", e.Server, e.Err)
	}
	return fmt.Sprintf("phd2 server %s: connection lost: %v", e.Server, e.Err)
}

func (e *ConnError) Unwrap() error { return e.Err }

// ProtocolError is a stream that cannot be read on, such as a line over the limit.
type ProtocolError struct {
	Reason string
}

func (e *ProtocolError) Error() string { return e.Reason }

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
