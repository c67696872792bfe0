// A driver link: what the shim does when indiserver runs it under a Service address. It
// carries indiserver's pipes to the device pod's port 7625 (socat there runs the driver), so
// for indiserver the driver is local. It waits for the pod as long as it takes, and exits
// when the pod's connection ends, so indiserver restarts it (its restart limit is set out of
// reach) and the device is defined again once the pod is back.
package shim

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"
)

// Link dials addr until it answers, then copies in to the connection and the connection to
// out. It returns nil when in ends (indiserver stopped the driver) and an error when the
// connection ends, or when ctx does while it waits.
func Link(ctx context.Context, addr string, in io.Reader, out io.Writer, logf func(string, ...any)) error {
	conn, err := dialUntilUp(ctx, addr, logf)
	if err != nil {
		return err
	}
	defer conn.Close()
	logf("linked to %s", addr)
	fromDriver := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, conn)
		fromDriver <- err
	}()
	toDriver := make(chan error, 1)
	go func() {
		_, err := io.Copy(conn, in)
		toDriver <- err
	}()
	select {
	case err := <-fromDriver:
		return fmt.Errorf("the driver at %s closed the connection (%v)", addr, err)
	case <-toDriver:
		return nil
	}
}

// dialUntilUp dials with a back-off from 100 ms to 2 s, saying why it waits now and then: a
// device pod that is being created or replaced refuses, or has no address yet.
func dialUntilUp(ctx context.Context, addr string, logf func(string, ...any)) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 10 * time.Second}
	wait := 100 * time.Millisecond
	for tries := 0; ; tries++ {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return conn, nil
		}
		if tries%10 == 0 {
			logf("waiting for the driver at %s: %v", addr, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}
