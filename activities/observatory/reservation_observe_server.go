// One INDI server the device observer follows (reservation_observe.go): the devices it runs,
// what changed on them since the last look, and the writes that bring each device's status
// and the site's weather up to date.
package observatory

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// observedServer is one INDI server the observer follows, and its devices.
type observedServer struct {
	client  *indi.Client
	sub     *indi.Subscription
	owner   kube.ResourceID // the Telescope or Observatory
	name    string
	devices []*observedDevice
	// generation is the owner's as last read: the site guard is armed again when the
	// Observatory's moves (its place, its safety limits).
	generation int64

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
		if d.Kind == obsv1.KindWeatherStation {
			d.verdict = kube.ObserveDevice(d.Kind, d.Name, o.client.Properties(d.indiName)).Readings[obsv1.ReadingSafety]
		}
		wctx, cancel := context.WithTimeout(ctx, observeWriteTimeout)
		d.dirty = !a.writeObserved(wctx, d, func() []prop.Property { return o.client.Properties(d.indiName) })
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
// A try after a lost conflict reads the properties again: the other observer of a site's
// device wrote what it saw, maybe later than this one's first read, and a try made from the
// old read would put the older state back.
func (a *Activities) writeObserved(ctx context.Context, d *observedDevice, props func() []prop.Property) bool {
	id := kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, UID: d.UID}
	w, err := writeStatus(ctx, a, id, d.obj, func(cur obsv1.DeviceStatus, m metav1.Object) obsv1.DeviceStatus {
		obs := kube.ObserveDevice(d.Kind, d.Name, props())
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
