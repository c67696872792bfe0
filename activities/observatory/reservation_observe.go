// Observing a Ready reservation's devices: what each driver reports becomes its device's
// status (phase, INDI name, state conditions, readings, display, properties), and the worst
// verdict of the weather stations the Observatory's status.weather, so a user sees the dome
// park and the weather turn with kubectl. One long-running activity holds a
// connection to the telescope's INDI server and one to the observatory's, follows every
// property change, and writes a device's status when it changed, at most once a second. The
// status is derived from the properties alone (kube.ObserveDevice) and compared with what
// the object holds, and each write carries the resourceVersion it read: a restarted observer,
// or a second one (two telescopes of one observatory), writes nothing that is there already,
// and an Event goes out only with the write that made its transition. The telescope's Guider
// is observed alongside (guider_observe.go), and the site guard is armed again when a park
// state changes (locks.go), beaten and read for what it did (safety.go) from here while Ready.
package observatory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// observeEvery is how often the observer writes what changed: at most once a second per
// device, and the time a burst of changes (a slewing mount) is gathered into one
// write. A variable so tests can shorten it.
var observeEvery = time.Second

// observeSyncTimeout bounds the wait for a driver's definitions before its device's first
// write, so a half-defined device is not shown as not connected for a moment. Drivers answer
// in milliseconds; it stays well under the workflow's heartbeat timeout.
const observeSyncTimeout = 3 * time.Second

// observeRereadEvery is how often the observer reads again which devices each server runs,
// so a device that joins a Ready reservation is shown, and one that leaves is let go. A
// variable so tests can shorten it.
var observeRereadEvery = time.Minute

// observeSiteEvery is how often the observer reads the Observatory's generation, so a change
// of its place or safety limits reaches the site guard within seconds, and looks whether the
// hardware of each device with a claim is still plugged in. A variable so tests can shorten it.
var observeSiteEvery = 10 * time.Second

// observeWriteTimeout bounds one device's read and write, so a slow API server delays the
// next heartbeat by no more than this.
const observeWriteTimeout = 5 * time.Second

// ObserveDevices writes the status of the devices of the reservation's telescope and of its
// observatory for as long as it runs: the workflow runs it while the reservation is Ready and
// cancels it when the reservation ends. It returns nil when cancelled and an error when an
// INDI connection drops, so Temporal runs it again. A failed status write is tried again at
// the next change; it does not end the observation.
func (a *Activities) ObserveDevices(ctx context.Context, in StepInput) error {
	err := a.observeDevices(ctx, in)
	if ctx.Err() != nil {
		return nil // cancelled: the reservation ended, or its run continues as new
	}
	return err
}

func (a *Activities) observeDevices(ctx context.Context, in StepInput) error {
	servers, err := a.readObservedServers(ctx, in)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lost := make(chan error, len(servers))
	watched, err := a.followServers(ctx, servers, lost)
	defer closeAll(watched)
	if err != nil {
		return err
	}
	logFor(ctx).Info("observing devices", "namespace", in.Namespace, "reservation", in.Reservation, "servers", len(watched))
	guider := guiderOf(servers[len(servers)-1], nil) // the telescope's, which is last
	defer func() { guider.close() }()
	arm := a.armOnRequest(ctx, in)
	var parks string // the park states when the guard was last armed
	site := siteOf(watched)
	safety := &safetyWatch{seen: a.seenSafetyPark(ctx, in.Namespace, in.Observatory)}
	var beaten time.Time
	if site != nil {
		defer leaveOnPurpose(ctx, in, site)
		a.siteMoved(ctx, site) // the generation the guard is armed with from here on
	}

	tick := time.NewTicker(observeEvery)
	defer tick.Stop()
	reread := time.NewTicker(observeRereadEvery)
	defer reread.Stop()
	siteRead := time.NewTicker(observeSiteEvery)
	defer siteRead.Stop()
	for {
		stepHeartbeat(ctx, "observing "+strconv.Itoa(len(watched))+" INDI servers")
		select {
		case <-reread.C:
			guider = a.rereadServers(ctx, watched, guider)
		case <-siteRead.C:
			if site != nil && a.siteMoved(ctx, site) {
				arm()
			}
			a.lookAtClaims(ctx, watched)
		default:
		}
		for _, o := range watched {
			if err := a.observeServer(ctx, in, o); err != nil {
				return err
			}
		}
		if guider != nil {
			a.observeGuider(ctx, guider)
		}
		a.tellConditions(ctx, in, watched)
		if p := parkStates(watched); p != parks {
			parks = p
			arm()
		}
		if site != nil {
			if time.Since(beaten) >= guardBeatEvery {
				if err := beat(ctx, site.client, in.Telescope, guard.BeatState); err != nil {
					logFor(ctx).Warn("the site guard's heartbeat could not be sent", "observatory", in.Observatory, "err", err)
				}
				beaten = time.Now()
			}
			a.lookAtSafety(ctx, in, site, safety)
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-lost:
			return err
		case <-tick.C:
		}
	}
}

// followServers dials each server that runs devices and follows its updates until ctx ends;
// a server lost sends its error on lost. What it returns, closeAll closes, even on an error.
func (a *Activities) followServers(ctx context.Context, servers []stepServer, lost chan<- error) ([]*observedServer, error) {
	var watched []*observedServer
	for _, s := range servers {
		if s.Name == "" || len(s.Devices) == 0 && !a.siteGuarded(ctx, s) {
			continue
		}
		c, err := a.dialServer(ctx, s)
		if err != nil {
			return watched, err
		}
		o := &observedServer{client: c, owner: s.Owner, name: s.Name, changed: map[string]bool{}, deleted: map[string]bool{}}
		o.setDevices(s.Devices)
		o.sub = c.Subscribe(indi.Filter{})
		go o.follow(ctx, o.sub, lost)
		watched = append(watched, o)
	}
	return watched, nil
}

// siteGuarded says whether s is a site's server that runs without devices, for its guard
// alone: the observer beats the guard and reads what it did there, as at any site.
func (a *Activities) siteGuarded(ctx context.Context, s stepServer) bool {
	if s.Owner.Kind != obsv1.KindObservatory {
		return false
	}
	runs, err := a.serverRuns(ctx, s.Owner.Namespace, s.Name)
	return err == nil && runs
}

// closeAll ends the servers' subscriptions and clients.
func closeAll(watched []*observedServer) {
	for _, o := range watched {
		o.sub.Close()
		o.client.Close()
	}
}

// rereadServers reads each server's devices again, and the telescope's Guider; a server that
// cannot be read keeps its last list.
func (a *Activities) rereadServers(ctx context.Context, watched []*observedServer, guider *observedGuider) *observedGuider {
	for _, o := range watched {
		s, err := a.readObservedServer(ctx, o.owner.Namespace, o.owner.Kind, o.owner.Name)
		if err != nil {
			logFor(ctx).Warn("the devices of a server could not be read again; the last list is kept",
				"server", o.name, "namespace", o.owner.Namespace, "err", err)
			continue
		}
		o.setDevices(s.Devices)
		if o.owner.Kind == obsv1.KindTelescope {
			guider = guiderOf(s, guider)
		}
	}
	return guider
}

// siteMoved reads the site's Observatory and says whether its spec changed since the last
// read (metadata.generation): the site guard must be told its new place or limits. One that
// cannot be read (in observeWriteTimeout, so a slow API server does not hold the heartbeat)
// has not moved; the next read tries again.
func (a *Activities) siteMoved(ctx context.Context, site *observedServer) bool {
	ctx, cancel := context.WithTimeout(ctx, observeWriteTimeout)
	defer cancel()
	u, err := a.resource(obsv1.KindObservatory, site.owner.Namespace).Get(ctx, site.owner.Name, metav1.GetOptions{})
	if err != nil {
		return false
	}
	moved := u.GetGeneration() != site.generation
	site.generation = u.GetGeneration()
	return moved
}

// leaveOnPurpose tells the site guard to stop watching this telescope's heartbeat when the
// observer is stopped on purpose (the reservation ends, or its run continues as new). A
// worker that dies, or stops to be replaced, or an observer that lost a server and will be
// run again, says nothing: the guard parks the site if no one beats within the timeout.
func leaveOnPurpose(ctx context.Context, in StepInput, site *observedServer) {
	if ctx.Err() == nil || workerStopping(ctx) {
		return
	}
	if err := beat(context.WithoutCancel(ctx), site.client, in.Telescope, guard.LeaveState); err != nil {
		logFor(ctx).Warn("the site guard could not be told the runner leaves", "observatory", in.Observatory, "err", err)
	}
}

// siteOf is the observed Observatory's server, nil when the site runs none.
func siteOf(watched []*observedServer) *observedServer {
	for _, o := range watched {
		if o.owner.Kind == obsv1.KindObservatory {
			return o
		}
	}
	return nil
}

// parkStates sums up the park vectors of the observed domes and mounts: when it changes, the
// site guard is armed again, so the Observatory's LocksRelayed shows the states.
func parkStates(watched []*observedServer) string {
	var b strings.Builder
	for _, o := range watched {
		for _, d := range o.devices {
			vector := kube.MountParkVector
			switch {
			case d.indiName == "":
				continue
			case d.Kind == obsv1.KindDome:
				vector = kube.DomeParkVector
			case d.Kind != obsv1.KindMount:
				continue
			}
			p, _ := o.client.Property(d.indiName, vector)
			fmt.Fprintf(&b, "%s=%s;", d.Label(), p.Summary())
		}
	}
	return b.String()
}

// armOnRequest arms the site guard in a goroutine of its own, so a slow or silent server does
// not hold the observer's heartbeat; the returned function asks for one more arming. A failed
// one is tried again, a second later and then less and less often (up to every
// armRetryMax), until one succeeds or ctx ends.
func (a *Activities) armOnRequest(ctx context.Context, in StepInput) (request func()) {
	asked := make(chan struct{}, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-asked:
			}
			for wait := observeEvery; ; wait = min(2*wait, armRetryMax) {
				_, err := a.armSite(ctx, in.Namespace, in.Observatory)
				if err == nil || ctx.Err() != nil {
					break
				}
				logFor(ctx).Warn("the site guard could not be armed; trying again", "namespace", in.Namespace,
					"observatory", in.Observatory, "in", wait, "err", err)
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
			}
		}
	}()
	return func() {
		select {
		case asked <- struct{}{}:
		default: // one is asked for already
		}
	}
}

// armRetryMax is the longest wait between two tries of a relay that keeps failing.
const armRetryMax = 30 * time.Second

// readObservedServers reads the servers the observer follows: the observatory's, when the
// telescope has one, then the telescope's, last.
func (a *Activities) readObservedServers(ctx context.Context, in StepInput) ([]stepServer, error) {
	var servers []stepServer
	if in.Observatory != "" {
		s, err := a.readObservedServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
		if err != nil {
			return nil, err
		}
		servers = append(servers, s)
	}
	s, err := a.readObservedServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return nil, err
	}
	return append(servers, s), nil
}

// readObservedServer reads a server and the devices it runs: those its pod links, so a joiner
// refused while Ready (its driver held by another device) is not shown as the holder.
func (a *Activities) readObservedServer(ctx context.Context, ns string, kind obsv1.Kind, name string) (stepServer, error) {
	s, err := a.readServer(ctx, ns, kind, name)
	if err != nil {
		return s, err
	}
	s, _, err = a.runningDevices(ctx, s)
	return s, err
}

// tellConditions signals the observer's workflow when a device's condition changed since it
// was last told, so its triggers look again. A signal that fails is sent at the next look.
func (a *Activities) tellConditions(ctx context.Context, in StepInput, watched []*observedServer) {
	var changed []*observedDevice
	for _, o := range watched {
		for _, d := range o.devices {
			if d.transitioned {
				changed = append(changed, d)
			}
		}
	}
	if len(changed) == 0 || in.ConditionSignal == "" || a.Temporal == nil || !activity.IsActivity(ctx) {
		return
	}
	id := activity.GetInfo(ctx).WorkflowExecution.ID
	if err := a.Temporal.SignalWorkflow(ctx, id, "", in.ConditionSignal, contract.ReservationChange{Why: contract.WhyCondition}); err != nil {
		logFor(ctx).Warn("the reservation's workflow could not be told of a changed condition; the next look tries again",
			"workflow", id, "err", err)
		return
	}
	for _, d := range changed {
		d.transitioned = false
	}
}
