// One relay of a site's locks serves every reservation of the site that asks meanwhile. A
// relay reads and tells every mount of the site, so when each of twenty reservations relays
// for itself (the observer's start, a dome that moved and every observer saw) the site's
// servers are dialled four hundred times, and the cost of one reservation grows with its
// neighbours. (Configure and a mount's unpark need only their own telescope's mounts told:
// relayLocksOf.) Here a caller waits for a relay that starts after it asked: the one under
// way when it asked may have read a state older than its own change, so it joins the next,
// which every caller that comes meanwhile shares. Each caller still gets a relay at least as
// fresh as its change, as before; twenty callers at once cost two relays, not twenty. A relay
// reaches the telescopes' servers a few at a time.
package observatory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
)

// relayAtOnce is how many telescopes' servers one relay reaches at the same time: each is a
// server of its own, so twenty are not twenty waits in a row.
const relayAtOnce = 8

// relayRunTimeout bounds one shared relay: it runs on beyond the caller that started it, so
// it cannot lean on that caller's deadline alone. Each mount's wait is relayDefineTimeout.
const relayRunTimeout = 2 * time.Minute

// relayNow is the relay that callers share; tests count it.
var relayNow = (*Activities).relayLocksNow

// siteRelays are the relays under way and asked for, by worker process and site.
var siteRelays struct {
	mu    sync.Mutex
	sites map[siteRelayKey]*siteRelay
}

// siteRelayKey is one site as one Activities (its cluster) sees it.
type siteRelayKey struct {
	a               *Activities
	ns, observatory string
}

// siteRelay is a site's relay under way (running) and the next one, asked for meanwhile.
type siteRelay struct {
	running, next *relayRun
}

type relayRun struct {
	callers int // that wait for it
	done    chan struct{}
	summary string
	err     error
}

// relayLocks relays the locks of the observatory's site (relayLocksNow), sharing one relay
// with every caller of this process that asks while it waits.
func (a *Activities) relayLocks(ctx context.Context, ns, observatory string) (string, error) {
	if observatory == "" {
		return "", nil
	}
	key := siteRelayKey{a: a, ns: ns, observatory: observatory}
	siteRelays.mu.Lock()
	if siteRelays.sites == nil {
		siteRelays.sites = map[siteRelayKey]*siteRelay{}
	}
	s := siteRelays.sites[key]
	var run *relayRun
	switch {
	case s == nil:
		run = &relayRun{done: make(chan struct{})}
		siteRelays.sites[key] = &siteRelay{running: run}
		go a.runRelays(key, run)
	case s.next == nil:
		s.next = &relayRun{done: make(chan struct{})}
		run = s.next
	default:
		run = s.next
	}
	run.callers++
	siteRelays.mu.Unlock()
	tick := time.NewTicker(stepPollEvery)
	defer tick.Stop()
	for {
		select {
		case <-run.done:
			return run.summary, run.err
		case <-ctx.Done():
			return "", ctx.Err()
		case <-tick.C:
			stepHeartbeat(ctx, "relaying the locks of Observatory "+observatory)
		}
	}
}

// runRelays runs a site's relay, then the one asked for meanwhile, until none is. It runs on
// a context of its own: no caller's activity is heartbeated or ended by it; each caller
// heartbeats its own while it waits.
func (a *Activities) runRelays(key siteRelayKey, run *relayRun) {
	for run != nil {
		ctx, cancel := context.WithTimeout(context.Background(), relayRunTimeout)
		run.summary, run.err = relayNow(a, ctx, key.ns, key.observatory)
		cancel()
		close(run.done)
		siteRelays.mu.Lock()
		s := siteRelays.sites[key]
		run, s.running, s.next = s.next, s.next, nil
		if run == nil {
			delete(siteRelays.sites, key)
		}
		siteRelays.mu.Unlock()
	}
}

// relayToEveryMount runs relayToMounts for each telescope, relayAtOnce at a time, and returns
// their reports in the telescopes' order.
func (a *Activities) relayToEveryMount(ctx context.Context, ns string, tels []string, dome domeRelay) ([][]kube.ParkReport, error) {
	out := make([][]kube.ParkReport, len(tels))
	err := atOnce(len(tels), relayAtOnce, func(i int) (err error) {
		out[i], err = a.relayToMounts(ctx, ns, tels[i], dome)
		return err
	})
	return out, err
}

// relayHeard returns once the drivers of devices on server have taken in what c relayed to
// them. The move a relay is made for goes over another connection, and indiserver serves its
// clients in the order of their sockets, not of their writes: a move written after the relay
// could reach the driver before it, and be judged on the state before (a dome refusing to
// park: "mount is locking", with every mount parked). A driver answers a request in the order
// it got its messages, so once it has answered one sent after the relay, it has the relay.
func relayHeard(ctx context.Context, c *indi.Client, server string, devices ...string) error {
	for _, d := range devices {
		if d == "" {
			continue
		}
		if err := c.Sync(ctx, d); err != nil {
			return fmt.Errorf("wait for %s on %s to take in the relayed park state: %w", d, server, err)
		}
	}
	return nil
}
