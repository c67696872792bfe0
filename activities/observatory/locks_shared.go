// One arming of a site's guard serves every reservation of the site that asks meanwhile. An
// arming reads every telescope of the site, so when each of twenty reservations arms for
// itself (Configure, a mount's unpark, a dome's park, an observer that saw a park state
// change) the API server is read four hundred times, and the cost of one reservation grows
// with its neighbours. Here a caller waits for an arming that starts after it asked: the one
// under way when it asked may have read a state older than its own change, so it joins the
// next, which every caller that comes meanwhile shares. Each caller still gets an arming at
// least as fresh as its change; twenty callers at once cost two, not twenty.
package observatory

import (
	"context"
	"sync"
	"time"
)

// armRunTimeout bounds one shared arming: it runs on beyond the caller that started it, so
// it cannot lean on that caller's deadline alone.
const armRunTimeout = 2 * time.Minute

// armNow is the arming that callers share; tests count it.
var armNow = (*Activities).armGuard

// siteArms are the armings under way and asked for, by worker process and site.
var siteArms struct {
	mu    sync.Mutex
	sites map[siteArmKey]*siteArm
}

// siteArmKey is one site as one Activities (its cluster) sees it.
type siteArmKey struct {
	a               *Activities
	ns, observatory string
}

// siteArm is a site's arming under way (running) and the next one, asked for meanwhile.
type siteArm struct {
	running, next *armRun
}

type armRun struct {
	callers int // that wait for it
	done    chan struct{}
	summary string
	err     error
}

// armSite arms the guard of the observatory's site (armGuard), sharing one arming with
// every caller of this process that asks while it waits.
func (a *Activities) armSite(ctx context.Context, ns, observatory string) (string, error) {
	if observatory == "" {
		return "", nil
	}
	key := siteArmKey{a: a, ns: ns, observatory: observatory}
	siteArms.mu.Lock()
	if siteArms.sites == nil {
		siteArms.sites = map[siteArmKey]*siteArm{}
	}
	s := siteArms.sites[key]
	var run *armRun
	switch {
	case s == nil:
		run = &armRun{done: make(chan struct{})}
		siteArms.sites[key] = &siteArm{running: run}
		go a.runArms(key, run)
	case s.next == nil:
		s.next = &armRun{done: make(chan struct{})}
		run = s.next
	default:
		run = s.next
	}
	run.callers++
	siteArms.mu.Unlock()
	tick := time.NewTicker(stepPollEvery)
	defer tick.Stop()
	for {
		select {
		case <-run.done:
			return run.summary, run.err
		case <-ctx.Done():
			return "", ctx.Err()
		case <-tick.C:
			stepHeartbeat(ctx, "arming the site guard of Observatory "+observatory)
		}
	}
}

// runArms runs a site's arming, then the one asked for meanwhile, until none is. It runs on
// a context of its own: no caller's activity is heartbeated or ended by it; each caller
// heartbeats its own while it waits.
func (a *Activities) runArms(key siteArmKey, run *armRun) {
	for run != nil {
		ctx, cancel := context.WithTimeout(context.Background(), armRunTimeout)
		run.summary, run.err = armNow(a, ctx, key.ns, key.observatory)
		cancel()
		close(run.done)
		siteArms.mu.Lock()
		s := siteArms.sites[key]
		run, s.running, s.next = s.next, s.next, nil
		if run == nil {
			delete(siteArms.sites, key)
		}
		siteArms.mu.Unlock()
	}
}
