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
// is observed alongside (guider_observe.go), and the dome and mount locks are relayed from
// here while Ready (locks.go).
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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// observeEvery is how often the observer writes what changed: the spec's at most once a
// second per device, and the time a burst of changes (a slewing mount) is gathered into one
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
	var servers []stepServer
	if in.Observatory != "" {
		s, err := a.readObservedServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}
	s, err := a.readObservedServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return err
	}
	servers = append(servers, s)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lost := make(chan error, len(servers))
	var watched []*observedServer
	for _, s := range servers {
		if len(s.Devices) == 0 || s.Name == "" {
			continue
		}
		c, err := a.dialServer(ctx, s)
		if err != nil {
			return err
		}
		defer c.Close()
		o := &observedServer{client: c, owner: s.Owner, name: s.Name, changed: map[string]bool{}, deleted: map[string]bool{}}
		o.setDevices(s.Devices)
		sub := c.Subscribe(indi.Filter{})
		defer sub.Close()
		go o.follow(ctx, sub, lost)
		watched = append(watched, o)
	}
	logFor(ctx).Info("observing devices", "namespace", in.Namespace, "reservation", in.Reservation, "servers", len(watched))
	guider := guiderOf(servers[len(servers)-1], nil) // the telescope's, which is last
	defer func() { guider.close() }()
	relay := a.relayOnRequest(ctx, in)
	var parks string // the park states last relayed

	tick := time.NewTicker(observeEvery)
	defer tick.Stop()
	reread := time.NewTicker(observeRereadEvery)
	defer reread.Stop()
	for {
		stepHeartbeat(ctx, "observing "+strconv.Itoa(len(watched))+" INDI servers")
		select {
		case <-reread.C:
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
			relay()
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

// parkStates sums up the park vectors of the observed domes and mounts: when it changes, the
// locks are relayed again.
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

// relayOnRequest relays the locks in a goroutine of its own, so a slow or silent server does
// not hold the observer's heartbeat; the returned function asks for one more relay. A failed
// relay is tried again, a second later and then less and less often (up to every
// relayRetryMax), until one succeeds or ctx ends.
func (a *Activities) relayOnRequest(ctx context.Context, in StepInput) (request func()) {
	asked := make(chan struct{}, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-asked:
			}
			for wait := observeEvery; ; wait = min(2*wait, relayRetryMax) {
				_, err := a.relayLocks(ctx, in.Namespace, in.Observatory)
				if err == nil || ctx.Err() != nil {
					break
				}
				logFor(ctx).Warn("the dome and mount locks could not be relayed; trying again", "namespace", in.Namespace,
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

// relayRetryMax is the longest wait between two tries of a relay that keeps failing.
const relayRetryMax = 30 * time.Second

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
func (a *Activities) writeObserved(ctx context.Context, d *observedDevice, props []indi.Property) bool {
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
	if err := a.Temporal.SignalWorkflow(ctx, id, "", in.ConditionSignal, map[string]string{"why": "condition"}); err != nil {
		logFor(ctx).Warn("the reservation's workflow could not be told of a changed condition; the next look tries again",
			"workflow", id, "err", err)
		return
	}
	for _, d := range changed {
		d.transitioned = false
	}
}

// reviveTimeout bounds connecting and configuring a restarted driver's device, which the
// observer does between two heartbeats (HeartbeatTimeout is 10 s).
const reviveTimeout = 6 * time.Second

// reviveDevice connects and configures again a device whose driver restarted (the server
// deleted the device and the driver defined it again, disconnected), and sends a camera the
// setpoint of its first cool again. A device a person disconnected was never deleted, so it
// stays as they left it. A failure is logged and tried again at the next look.
func (a *Activities) reviveDevice(ctx context.Context, in StepInput, o *observedServer, d *observedDevice) {
	rctx, cancel := context.WithTimeout(ctx, reviveTimeout)
	defer cancel()
	did, err := a.configureAgain(rctx, in, o, d)
	if err != nil {
		logFor(ctx).Warn("a device whose driver restarted could not be connected and configured again; trying again",
			"device", d.Label(), "namespace", d.Namespace, "err", err)
		return
	}
	d.restarted = false
	logFor(ctx).Info("connected and configured again a device whose driver restarted", "device", d.Label(),
		"namespace", d.Namespace, "did", did)
	a.postObsEvent(ctx, kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, UID: d.UID},
		kube.Event{Type: corev1.EventTypeNormal, Reason: ReasonDriverRestarted,
			Message: fmt.Sprintf("Its driver restarted; connected it again (%s)", strings.Join(did, ", "))})
}

// ReasonDriverRestarted is the Event of a device connected and configured again after its
// driver restarted.
const ReasonDriverRestarted = "DriverRestarted"

func (a *Activities) configureAgain(ctx context.Context, in StepInput, o *observedServer, d *observedDevice) ([]string, error) {
	c := o.client
	if _, err := c.Connect(ctx, d.indiName); err != nil {
		return nil, err
	}
	did := []string{"connected"}
	if o.owner.Kind != obsv1.KindTelescope {
		return did, nil // the site's devices keep their policies in their saved config
	}
	s, err := a.readServer(ctx, o.owner.Namespace, o.owner.Kind, o.owner.Name)
	if err != nil {
		return nil, err
	}
	site, err := a.readSiteConfig(ctx, in.Namespace, in.Observatory)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, od := range o.devices {
		if od.indiName != "" {
			names[od.Label()] = od.indiName
		}
	}
	for _, sd := range s.Devices {
		if sd.Label() != d.Label() {
			continue
		}
		conf, err := a.configureDevice(ctx, c, s, sd, names, site)
		if err != nil {
			return nil, err
		}
		did = append(did, conf...)
	}
	if d.Kind == obsv1.KindCamera {
		cool, err := a.firstCool(ctx, d)
		if err != nil {
			return nil, err
		}
		if cool != nil {
			if err := c.SendCoolSetpoint(ctx, d.indiName, cool.Celsius); err != nil {
				return nil, err
			}
			did = append(did, "cool setpoint "+strconv.FormatFloat(cool.Celsius, 'f', -1, 64)+" °C")
		}
	}
	return did, nil
}

// firstCool is the first cool action of a camera's activation, once its activation has run
// it (a record of it exists); nil otherwise.
func (a *Activities) firstCool(ctx context.Context, d *observedDevice) (*obsv1.Temperature, error) {
	u, err := a.resource(d.Kind, d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	spec, err := readProcSpec(u)
	if err != nil {
		return nil, err
	}
	var st obsv1.DeviceStatus
	if m, ok := u.Object["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st); err != nil {
			return nil, err
		}
	}
	rec := kube.FindProcedureRecord(st.Procedures, kube.TriggerActivation)
	for i, act := range spec.Activation {
		if act.Cool == nil {
			continue
		}
		if rec == nil || i >= len(rec.Actions) || rec.Actions[i].State == obsv1.RunPending {
			return nil, nil // not sent yet: the activation sends it
		}
		return act.Cool, nil
	}
	return nil, nil
}
