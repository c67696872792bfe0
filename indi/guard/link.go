// A link is the guard's client connection to one INDI server, kept up for as long as the guard
// needs it: dialled again, with backoff, whenever it drops or cannot be made (after a power cut
// the servers come up in any order).
package guard

import (
	"context"
	"sync"
	"time"

	"liken.sh/runner/indi"
)

type link struct {
	addr   string
	cancel context.CancelFunc
	mu     sync.Mutex
	c      *indi.Client
}

// Backoff between dials: from the first to the longest.
const (
	dialFirst = 500 * time.Millisecond
	dialMax   = 10 * time.Second
)

// keep dials addr until ctx ends or the link is stopped, and pokes the guard on every change
// the server sends.
func (g *Guard) keep(ctx context.Context, addr string) *link {
	ctx, cancel := context.WithCancel(ctx)
	l := &link{addr: addr, cancel: cancel}
	go func() {
		wait := dialFirst
		for ctx.Err() == nil {
			if c, err := indi.Dial(ctx, addr); err == nil {
				wait = dialFirst
				l.serve(ctx, c, g.poke)
				g.Log.Info("lost a server; dialling it again", "server", addr)
			} else if wait == dialMax {
				g.Log.Warn("cannot reach a server; trying again", "server", addr, "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			wait = min(2*wait, dialMax)
		}
	}()
	return l
}

// serve holds c until its connection ends.
func (l *link) serve(ctx context.Context, c *indi.Client, poke func()) {
	sub := c.Subscribe(indi.Filter{})
	l.set(c)
	poke()
	for {
		if _, err := sub.Next(ctx); err != nil {
			break
		}
		poke()
	}
	sub.Close()
	l.set(nil)
	c.Close()
	poke()
}

func (l *link) set(c *indi.Client) {
	l.mu.Lock()
	l.c = c
	l.mu.Unlock()
}

// client is the connected client, nil while there is none (or for a nil link).
func (l *link) client() *indi.Client {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c
}

func (l *link) stop() { l.cancel() }
