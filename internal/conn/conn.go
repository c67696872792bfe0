// Package conn holds what the runner's clients of line-based servers (INDI's XML, PHD2's
// JSON-RPC) share: the error that ends a client's connection, worded so a step's summary can
// carry it. Each client package names it as its own (indi.ConnError, phd2.ConnError) so its
// callers tell a lost connection apart with errors.As without knowing this package.
package conn

import (
	"errors"
	"fmt"
	"net"
)

// ErrClosed is the cause of an Error after the client's Close.
var ErrClosed = errors.New("client closed")

// Refusal is implemented by a cause that is a stream the client refuses to read (each
// protocol's ProtocolError), so the message says so instead of "connection lost".
type Refusal interface {
	error
	RefusedStream()
}

// Error ends a client: the connection to Server was lost, closed, or carried a stream we
// refuse to read.
type Error struct {
	// Protocol names the kind of server in the message: "indi", "phd2".
	Protocol string
	Server   string
	Err      error
}

func (e *Error) Error() string {
	var refused Refusal
	var op *net.OpError
	switch {
	case errors.Is(e.Err, ErrClosed):
		return fmt.Sprintf("%s server %s: %v", e.Protocol, e.Server, e.Err)
	case errors.As(e.Err, &op) && op.Op == "dial":
		return fmt.Sprintf("%s server %s cannot be reached: %v", e.Protocol, e.Server, e.Err)
	case errors.As(e.Err, &refused):
		return fmt.Sprintf("%s server %s sent a stream we refuse: %v", e.Protocol, e.Server, e.Err)
	}
	return fmt.Sprintf("%s server %s: connection lost: %v", e.Protocol, e.Server, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
