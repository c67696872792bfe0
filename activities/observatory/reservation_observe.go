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
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/workflows/contract"
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
	}

	tick := time.NewTicker(observeEvery)
	defer tick.Stop()
	reread := time.NewTicker(observeRereadEvery)
	defer reread.Stop()
	for {
		stepHeartbeat(ctx, "observing "+strconv.Itoa(len(watched))+" INDI servers")
		select {
		case <-reread.C:
			guider = a.rereadServers(ctx, watched, guider)
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
		if len(s.Devices) == 0 || s.Name == "" {
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

// observedServer is one INDI server the observer follows, and its devices.
type observedServer struct {
	client  *indi.Client
	sub     *indi.Subscription
	owner   kube.ResourceID // the Telescope or Observatory
	name    string
	devices []*observedDevice

	// weather is the Observatory's status.weather as last written ("" before).
	weather string

	mu sync.Mutex
	// changed are the INDI devices that changed since the last look ("" is every device).
	changed map[string]bool
	// deleted are the INDI devices deleted whole since the last look: their driver stopped,
	// and it defines them again when it is restarted.
	deleted map[string]bool
}

// observedDevice is one device and what the observer knows of it.
type observedDevice struct {
	stepDevice
	indiName string
	// obj is the object as last read or written; nil means read it again.
	obj   *unstructured.Unstructured
	dirty bool
	// verdict is a WeatherStation's readings.safety as last observed.
	verdict string
	// transitioned: a condition changed since the workflow was last told.
	transitioned bool
	// restarted: its driver stopped; once it defines the device again, the device is
	// connected and configured again.
	restarted bool
}

// setDevices makes devices the ones observed: a device seen before keeps what the observer
// knows of it, a new one is written at the next look.
func (o *observedServer) setDevices(devices []stepDevice) {
	known := map[string]*observedDevice{}
	for _, d := range o.devices {
		known[d.Label()] = d
	}
	o.devices = o.devices[:0]
	for _, d := range devices {
		if k := known[d.Label()]; k != nil && k.UID == d.UID && k.Spec.Driver.Name == d.Spec.Driver.Name {
			k.stepDevice = d
			o.devices = append(o.devices, k)
			continue
		}
		o.devices = append(o.devices, &observedDevice{stepDevice: d, dirty: true})
	}
}

// follow notes which devices change, until the connection ends (reported on lost) or ctx
// does. It never waits for the observer, so the subscription never falls behind.
func (o *observedServer) follow(ctx context.Context, sub *indi.Subscription, lost chan<- error) {
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			if ctx.Err() == nil {
				lost <- fmt.Errorf("the INDI server %s: %w", o.name, err)
			}
			return
		}
		dev := ev.Device
		switch ev.Kind {
		case indi.Messaged:
			continue // a message changes no property
		case indi.Resync:
			dev = ""
		}
		o.mu.Lock()
		o.changed[dev] = true
		if ev.Kind == indi.Deleted && ev.Name == "" {
			o.deleted[dev] = true
		}
		o.mu.Unlock()
	}
}

// takeChanged returns the devices that changed, and those deleted whole, since the last call.
func (o *observedServer) takeChanged() (changed, deleted map[string]bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	changed, deleted = o.changed, o.deleted
	o.changed, o.deleted = map[string]bool{}, map[string]bool{}
	return changed, deleted
}

// observeServer writes the status of the server's devices that changed since the last look.
func (a *Activities) observeServer(ctx context.Context, in StepInput, o *observedServer) error {
	changed, deleted := o.takeChanged()
	for _, d := range o.devices {
		if d.indiName != "" && deleted[d.indiName] {
			// Its driver stopped: find it again (a restarted driver may name it anew).
			d.indiName, d.restarted, d.dirty = "", true, true
		}
		if d.indiName == "" {
			name := definedDevice(o.client, d.Spec.Driver.Name)
			if name == "" {
				continue // its driver has not defined it (yet)
			}
			// A sync that times out still leaves what has come; the next change completes it.
			sctx, cancel := context.WithTimeout(ctx, observeSyncTimeout)
			_ = o.client.Sync(sctx, name)
			cancel()
			if err := o.client.Err(); err != nil {
				return fmt.Errorf("the INDI server %s: %w", o.name, err)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			d.indiName, d.dirty = name, true
		}
		if d.restarted {
			a.reviveDevice(ctx, in, o, d)
		}
		if !d.dirty && !changed[""] && !changed[d.indiName] {
			continue
		}
		stepHeartbeat(ctx, "observing "+d.Label())
		props := o.client.Properties(d.indiName)
		if d.Kind == obsv1.KindWeatherStation {
			d.verdict = kube.ObserveDevice(d.Kind, d.Name, props).Readings[obsv1.ReadingSafety]
		}
		wctx, cancel := context.WithTimeout(ctx, observeWriteTimeout)
		d.dirty = !a.writeObserved(wctx, d, props)
		cancel()
	}
	if o.owner.Kind == obsv1.KindObservatory {
		a.writeSiteWeather(ctx, o)
	}
	return nil
}

// writeSiteWeather writes the Observatory's status.weather, the worst verdict of its weather
// stations, when it changed; a failure is tried again at the next look.
func (a *Activities) writeSiteWeather(ctx context.Context, o *observedServer) {
	var verdicts []string
	for _, d := range o.devices {
		if d.Kind == obsv1.KindWeatherStation {
			verdicts = append(verdicts, d.verdict)
		}
	}
	w := kube.SiteWeather(verdicts)
	if w == o.weather {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, observeWriteTimeout)
	defer cancel()
	err := a.updateStatusField(wctx, o.owner, "weather", func([]byte) (any, error) { return w, nil })
	if err != nil {
		logFor(ctx).Warn("the weather of an Observatory could not be written", "observatory", o.owner.Name,
			"namespace", o.owner.Namespace, "err", err)
		return
	}
	o.weather = w
}

// definedDevice is the INDI device whose DRIVER_INFO names the driver, or "".
func definedDevice(c *indi.Client, driver string) string {
	exec := filepath.Base(driver)
	devs := c.Devices()
	slices.Sort(devs)
	for _, dev := range devs {
		if p, ok := c.Property(dev, "DRIVER_INFO"); ok {
			if v, _ := p.Text("DRIVER_EXEC"); v == exec {
				return dev
			}
		}
	}
	return ""
}

// writeObserved writes the device's status as its properties make it, when that differs from
// what the object holds, and then posts an Event per state transition. It says whether the
// device is done with; a failure is logged and the device is tried again at the next look.
func (a *Activities) writeObserved(ctx context.Context, d *observedDevice, props []prop.Property) bool {
	obs := kube.ObserveDevice(d.Kind, d.Name, props)
	id := kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, UID: d.UID}
	w, err := writeStatus(ctx, a, id, d.obj, func(cur obsv1.DeviceStatus, m metav1.Object) obsv1.DeviceStatus {
		return kube.ObservedDeviceStatus(cur, d.Kind, d.indiName, obs, m.GetGeneration(), a.now())
	})
	d.obj = w.obj
	if err != nil {
		logFor(ctx).Warn("a device's status could not be written", "device", d.Label(), "namespace", d.Namespace, "err", err)
		return false
	}
	if w.obj == nil {
		return true // deleted while Ready: nothing to show it on
	}
	for _, e := range kube.DeviceConditionEvents(d.Kind, w.before.Conditions, w.after.Conditions) {
		a.postObsEvent(ctx, w.id, e)
		d.transitioned = true
	}
	return true
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
