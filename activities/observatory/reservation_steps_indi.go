// The steps that talk INDI to a reservation's servers: Connect and Configure, and the
// connecting part of StartSite and PowerOn (Abort and Disconnect are teardown's:
// reservation_steps_teardown.go). Each reaches its server
// through the INDI resolver (the pod's Service in a cluster, a local indiserver in dev mode),
// finds each device by the driver that defines it (a simulator's device is "Telescope
// Simulator", a ZWO camera's its model), and sets target states, so a retried step sends
// nothing twice. A driver's Alert fails the step with the driver's own words; a lost server
// is transient and retried until the step's deadline.
package observatory

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func (a *Activities) indiResolver() INDIResolver {
	if a.INDI != nil {
		return a.INDI
	}
	return ServiceResolver{}
}

// dialServer reaches a server's indiserver; the resolver is told every driver it runs.
func (a *Activities) dialServer(ctx context.Context, s stepServer) (*indi.Client, error) {
	addr, err := a.indiResolver().Address(ctx, INDIServer{Namespace: s.Owner.Namespace, Name: s.Name, Drivers: driverNames(s.Devices)})
	if err != nil {
		return nil, fmt.Errorf("find the INDI server %s: %w", s.Name, err)
	}
	c, err := indi.Dial(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("reach the INDI server %s at %s: %w", s.Name, addr, err)
	}
	return c, nil
}

// indiDevice waits until the device's driver has defined its device on the server, and
// returns the device's INDI name: the one whose DRIVER_INFO names the driver.
func indiDevice(ctx context.Context, c *indi.Client, s stepServer, d stepDevice) (string, error) {
	driver := filepath.Base(d.Spec.Driver.Name)
	var name string
	err := waitUntil(ctx, "driver "+driver+" of "+d.Label()+" defining its device on "+s.Name, func(ctx context.Context) (bool, error) {
		if err := c.Err(); err != nil {
			return false, err
		}
		devs := c.Devices()
		slices.Sort(devs)
		for _, dev := range devs {
			if p, ok := c.Property(dev, "DRIVER_INFO"); ok {
				if exec, _ := p.Text("DRIVER_EXEC"); exec == driver {
					name = dev
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		return "", err
	}
	return name, c.Sync(ctx, name)
}

// indiStepError turns an INDI failure into the step's error: a driver's refusal, or a driver
// that lacks what the step needs, is the user's to fix ("Failed: ..."); a lost connection or
// an unfinished wait is retried.
func indiStepError(d stepDevice, err error) error {
	var alert *indi.AlertError
	var missing *indi.MissingError
	var req *indi.RequestError
	switch {
	case errors.As(err, &alert):
		msg := alert.Message
		if msg == "" {
			msg = alert.Error()
		}
		return stepFailed("%s: %s", d.Label(), msg)
	case errors.As(err, &missing), errors.As(err, &req):
		return stepFailed("%s: %v", d.Label(), err)
	}
	return fmt.Errorf("%s: %w", d.Label(), err)
}

// serverRuns says whether a server's pod exists: the steps after a failed start, or after
// the server stopped, have nothing to talk to.
func (a *Activities) serverRuns(ctx context.Context, ns, server string) (bool, error) {
	_, err := a.Kube.CoreV1().Pods(ns).Get(ctx, kube.ServerPodName(server), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// recordINDIDevice writes the device's INDI name to its status.indiDevice, when it differs.
func (a *Activities) recordINDIDevice(ctx context.Context, d stepDevice, name string) error {
	return a.updateStatusField(ctx, d.ResourceID, "indiDevice", func([]byte) (any, error) { return name, nil })
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// connectAll connects the devices in order on their server and records their INDI names.
// It returns the summary's part: "connected Mount east (Telescope Simulator), ...".
func (a *Activities) connectAll(ctx context.Context, s stepServer, devices []stepDevice) (string, error) {
	if len(devices) == 0 {
		return "", nil
	}
	c, err := a.dialServer(ctx, s)
	if err != nil {
		return "", err
	}
	defer c.Close()
	var parts []string
	for _, d := range devices {
		name, err := indiDevice(ctx, c, s, d)
		if err != nil {
			return "", indiStepError(d, err)
		}
		if err := a.recordINDIDevice(ctx, d, name); err != nil {
			return "", err
		}
		stepHeartbeat(ctx, "connecting "+d.Label())
		if err := setConnection(ctx, c, name, d); err != nil {
			return "", err
		}
		if _, err := c.Connect(ctx, name); err != nil {
			return "", indiStepError(d, err)
		}
		part := d.Label() + " (" + name + ")"
		if w := connectionWords(d.Spec.Connection); w != "" {
			part += " " + w
		}
		parts = append(parts, part)
	}
	return "connected " + strings.Join(parts, ", "), nil
}

// awaitDrivers waits until each device's driver has defined its device on the server, and
// records the device's INDI name.
func (a *Activities) awaitDrivers(ctx context.Context, s stepServer, devices []stepDevice) error {
	c, err := a.dialServer(ctx, s)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, d := range devices {
		name, err := indiDevice(ctx, c, s, d)
		if err != nil {
			return indiStepError(d, err)
		}
		if err := a.recordINDIDevice(ctx, d, name); err != nil {
			return err
		}
	}
	return nil
}

// telescopeINDIServer reads the telescope's server for an INDI step; ok is false when its pod
// does not run (nothing to talk to). After activation (a heal, the deactivation steps) only
// the devices the running server links count: a joiner refused while Ready never ran, and
// must not keep the others from being healed, or the reservation from being released.
func (a *Activities) telescopeINDIServer(ctx context.Context, in StepInput) (stepServer, bool, error) {
	s, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return s, false, err
	}
	if !slices.Contains(kube.ActivationSteps, in.Step) {
		// What runs passed the checks when it started.
		return a.runningDevices(ctx, s)
	}
	runs, err := a.serverRuns(ctx, in.Namespace, s.Name)
	if err != nil {
		return s, false, err
	}
	return s, runs, a.checkServer(ctx, s, nil)
}

// runningDevices narrows s to the devices its server pod links (its drivers annotation) and
// whose own pods exist: one whose pod was never created (its step failed first) runs no
// driver, and nothing waits for it. runs is false when the server pod does not run, and s
// is then as it was.
func (a *Activities) runningDevices(ctx context.Context, s stepServer) (_ stepServer, runs bool, _ error) {
	pods := a.Kube.CoreV1().Pods(s.Owner.Namespace)
	pod, err := pods.Get(ctx, kube.ServerPodName(s.Name), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return s, false, nil
	}
	if err != nil {
		return s, false, fmt.Errorf("read the pod %s: %w", s.Name, err)
	}
	sel := labels.SelectorFromSet(labels.Set{kube.LabelServer: s.Name, kube.LabelRole: string(kube.RoleDevice)})
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return s, false, fmt.Errorf("list the device pods of %s: %w", s.Name, err)
	}
	linked := kube.LinkedServices(pod.Annotations[kube.AnnotationDrivers])
	s.Devices = only(s.Devices, func(d stepDevice) bool {
		return slices.Contains(linked, d.Pod) && slices.ContainsFunc(list.Items, func(p corev1.Pod) bool { return p.Name == d.Pod })
	})
	return s, true, nil
}

// runningTelescopeServer is what Connect and Configure start from: the telescope's server,
// which must run, or the step's Skipped result when the telescope has no devices.
func (a *Activities) runningTelescopeServer(ctx context.Context, in StepInput) (stepServer, *StepResult, error) {
	s, runs, err := a.telescopeINDIServer(ctx, in)
	switch {
	case err != nil:
		return s, &StepResult{}, err
	case len(s.Devices) == 0:
		return s, &StepResult{Skipped: true, Summary: "Telescope " + in.Telescope + " has no devices"}, nil
	case !runs:
		return s, &StepResult{}, fmt.Errorf("the INDI server %s does not run", s.Name)
	}
	return s, nil, nil
}

func (a *Activities) connect(ctx context.Context, in StepInput) (StepResult, error) {
	s, skipped, err := a.runningTelescopeServer(ctx, in)
	if skipped != nil || err != nil {
		return *skipped, err
	}
	sum, err := a.connectAll(ctx, s, s.Devices)
	if err != nil {
		return StepResult{}, err
	}
	return StepResult{Summary: "C" + sum[1:]}, nil
}

func (a *Activities) configure(ctx context.Context, in StepInput) (StepResult, error) {
	s, skipped, err := a.runningTelescopeServer(ctx, in)
	if skipped != nil || err != nil {
		return *skipped, err
	}
	site, err := a.readSiteConfig(ctx, in.Namespace, in.Observatory)
	if err != nil {
		return StepResult{}, err
	}
	c, err := a.dialServer(ctx, s)
	if err != nil {
		return StepResult{}, err
	}
	defer c.Close()
	names := map[string]string{} // device label -> INDI name
	for _, d := range s.Devices {
		name, err := indiDevice(ctx, c, s, d)
		if err != nil {
			return StepResult{}, indiStepError(d, err)
		}
		names[d.Label()] = name
	}
	var parts []string
	for _, d := range s.Devices {
		stepHeartbeat(ctx, "configuring "+d.Label())
		did, err := a.configureDevice(ctx, c, s, d, names, site)
		if err != nil {
			return StepResult{}, err
		}
		if len(did) > 0 {
			parts = append(parts, d.Label()+" ("+strings.Join(did, ", ")+")")
		}
	}
	relayed, err := a.lockToSite(ctx, c, s, in)
	if err != nil {
		return StepResult{}, err
	}
	if len(parts) == 0 && relayed == "" {
		return StepResult{Skipped: true, Summary: "nothing to configure on " + deviceLabels(s.Devices)}, nil
	}
	sum := "Configured " + strings.Join(parts, ", ")
	if len(parts) == 0 {
		sum = "Nothing to configure on " + deviceLabels(s.Devices)
	}
	if relayed != "" {
		sum += "; the site guard holds " + relayed
	}
	return StepResult{Summary: sum}, nil
}

// lockToSite makes the mounts of s (whose devices all run: Configure checked) heed the site's
// dome over Configure's client c, and arms the site's guard with them. It returns what the
// guard holds, for the summary.
func (a *Activities) lockToSite(ctx context.Context, c *indi.Client, s stepServer, in StepInput) (string, error) {
	if in.Observatory == "" {
		return "", nil
	}
	site, err := a.readServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
	if err != nil {
		return "", err
	}
	if err := heedSiteDome(ctx, c, s, s, site); err != nil {
		return "", err
	}
	return a.armSite(ctx, in.Namespace, in.Observatory)
}

// siteConfig is what Configure writes to a telescope's devices about their site (whether the
// mounts heed its Dome is the lock relay's: locks.go).
type siteConfig struct {
	location *obsv1.Location
}

// readSiteConfig reads the Observatory's location; nothing for a telescope without one.
func (a *Activities) readSiteConfig(ctx context.Context, ns, observatory string) (siteConfig, error) {
	var out siteConfig
	if observatory == "" {
		return out, nil
	}
	obj, err := a.getTyped(ctx, obsv1.KindObservatory, ns, observatory)
	if err != nil {
		return out, err
	}
	if o, ok := obj.(*obsv1.Observatory); ok && o != nil {
		out.location = &o.Spec.Location
	}
	return out, nil
}

// configureDevice writes what one device of s must know (names: every device's INDI name by
// label), each a target state. It returns what it wrote, for the summary.
func (a *Activities) configureDevice(ctx context.Context, c *indi.Client, s stepServer, d stepDevice,
	names map[string]string, site siteConfig) ([]string, error) {
	name := names[d.Label()]
	var did []string
	fail := func(err error) ([]string, error) { return nil, indiStepError(d, err) }
	if loc := site.location; loc != nil {
		if _, ok := c.Property(name, "GEOGRAPHIC_COORD"); ok {
			if _, err := c.SetLocation(ctx, name, loc.Latitude, loc.Longitude, loc.Elevation); err != nil {
				return fail(err)
			}
			did = append(did, "location")
		}
	}
	if active := activeDevices(s, d, names); len(active) > 0 {
		if _, ok := c.Property(name, "ACTIVE_DEVICES"); ok {
			if _, err := c.SetActiveDevices(ctx, name, active); err != nil {
				return fail(err)
			}
			did = append(did, "active devices")
		}
	}
	switch o := d.Object.(type) {
	case *obsv1.Camera:
		if o.Spec.Gain != nil {
			if _, err := c.SetGain(ctx, name, float64(*o.Spec.Gain)); err != nil {
				return fail(err)
			}
			did = append(did, "gain")
		}
		if o.Spec.Offset != nil {
			if _, err := c.SetOffset(ctx, name, float64(*o.Spec.Offset)); err != nil {
				return fail(err)
			}
			did = append(did, "offset")
		}
		if t := s.Trains[o.Spec.OpticalTrain]; t != nil && t.Spec.OpticalTube != "" {
			obj, err := a.getTyped(ctx, obsv1.KindOpticalTube, s.Owner.Namespace, t.Spec.OpticalTube)
			if err != nil {
				return nil, err
			}
			if tube, ok := obj.(*obsv1.OpticalTube); ok && tube != nil && tube.Spec.FocalLength > 0 && tube.Spec.Aperture > 0 {
				if _, err := c.SetScopeInfo(ctx, name, tube.Spec.FocalLength, tube.Spec.Aperture); err != nil {
					return fail(err)
				}
				did = append(did, "optics")
			}
		}
	case *obsv1.FilterWheel:
		if len(o.Spec.Filters) > 0 {
			if _, err := c.SetFilterNames(ctx, name, o.Spec.Filters); err != nil {
				return fail(err)
			}
			did = append(did, "filter names")
		}
	}
	return did, nil
}

// activeDevices is what device d snoops on: the telescope's mount, GPS and SQM, and the
// focuser, filter wheel and rotator of its own train (or of the telescope's first train that
// has one, for a device outside any train). The dome is on the observatory's server: its
// state reaches the mounts through the relay, not through snooping.
func activeDevices(s stepServer, d stepDevice, names map[string]string) map[string]string {
	elem := map[obsv1.Kind]string{
		obsv1.KindMount: indi.ActiveTelescope, obsv1.KindGPS: indi.ActiveGPS, obsv1.KindSkyQualityMeter: indi.ActiveSkyQuality,
		obsv1.KindFocuser: indi.ActiveFocuser, obsv1.KindFilterWheel: indi.ActiveFilter, obsv1.KindRotator: indi.ActiveRotator,
	}
	out := map[string]string{}
	for _, o := range s.Devices {
		e, ok := elem[o.Kind]
		if !ok || o.Label() == d.Label() {
			continue
		}
		if _, set := out[e]; set && (o.OpticalTrain == "" || o.OpticalTrain != d.OpticalTrain) {
			continue // the first one, or the one of d's own train
		}
		out[e] = names[o.Label()]
	}
	return out
}

// getTyped reads one observatory object as its Go type; nil when it is missing.
func (a *Activities) getTyped(ctx context.Context, kind obsv1.Kind, ns, name string) (runtime.Object, error) {
	u, err := a.resource(kind, ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the %s %s/%s: %w", kind, ns, name, err)
	}
	obj, err := stepScheme.New(kind.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, fmt.Errorf("the %s %s/%s does not fit its Go type: %w", kind, ns, name, err)
	}
	return obj, nil
}
