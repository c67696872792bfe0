// A connection error's text says how the connection ended: closed by us, never reached, a
// stream we refuse, or lost; and it still unwraps to its cause.
package conn

import (
	"errors"
	"io"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
)

type refusal struct{}

func (refusal) Error() string  { return "a line over 1 MiB" }
func (refusal) RefusedStream() {}

func TestAConnectionErrorSaysHowTheConnectionEnded(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"closed", ErrClosed, "indi server a:7624: client closed"},
		{"never reached", dial, "indi server a:7624 cannot be reached: dial tcp: connection refused"},
		{"a stream refused", refusal{}, "indi server a:7624 sent a stream we refuse: a line over 1 MiB"},
		{"lost", io.EOF, "indi server a:7624: connection lost: EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := &Error{Protocol: "indi", Server: "a:7624", Err: c.err}
			assert.Equal(t, c.want, err.Error())
			assert.ErrorIs(t, err, c.err)
		})
	}
}
