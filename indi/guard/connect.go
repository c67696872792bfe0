// Keeping the site's own devices connected while the runner is away. A device pod's driver runs
// behind socat, one process per connection: when the site's server starts again (its container,
// or a new pod), every driver of the site starts again too, disconnected, and defines neither its
// weather nor its dome's park until something connects it. The runner does that when it is there
// (it revives a driver that restarted); with the runner away the guard does, or it would read no
// weather and could close no dome. With the runner there it leaves the devices alone: the runner
// disconnects some on purpose as a night ends.
package guard

import (
	"context"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
)

// connectTimeout bounds one connect: a driver answers within seconds, a real one's port a
// little later.
const connectTimeout = time.Minute

// ToConnect are the site's devices the guard connects: those that report disconnected, while
// a night is under way (a telescope armed) and the runner is away. Once the last telescope has
// left, the runner stops the site, disconnecting its devices first: the guard lets it.
func ToConnect(v View) []string {
	if !v.Armed || len(v.Config.Telescopes) == 0 || !v.RunnerAway() {
		return nil
	}
	return v.Disconnected
}

// disconnected are the devices of the site's server, the guard aside, that report CONNECTION
// off and are not being connected.
func disconnected(c *indi.Client) []string {
	var out []string
	for _, dev := range c.Devices() {
		p, ok := c.Property(dev, "CONNECTION")
		if dev != Device && ok && !p.SwitchOn("CONNECT") && p.State != prop.Busy {
			out = append(out, dev)
		}
	}
	return out
}

// connect connects each device in a goroutine of its own, one command at a time per device,
// with the movers' back-off after a failure. Called from step, under nothing.
func (g *Guard) connect(ctx context.Context, devices []string) {
	c := g.site.client()
	if c == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.Now()
	for _, dev := range devices {
		m := g.connectors[dev]
		if m == nil {
			m = &mover{device: dev}
			g.connectors[dev] = m
		}
		if m.busy || now.Before(m.next) {
			continue
		}
		m.busy = true
		g.Log.Warn("the site guard connects a device of the site: the runner is away", "device", dev)
		go func() {
			cctx, cancel := context.WithTimeout(ctx, connectTimeout)
			_, err := c.Connect(cctx, dev)
			cancel()
			g.mu.Lock()
			defer g.mu.Unlock()
			m.busy = false
			if err != nil {
				m.failures++
				m.next = g.Now().Add(retryAfter(m.failures))
				g.Log.Warn("the site guard could not connect a device of the site; it tries again", "device", dev, "err", err)
				return
			}
			m.failures, m.next = 0, time.Time{}
			g.poke()
		}()
	}
}
