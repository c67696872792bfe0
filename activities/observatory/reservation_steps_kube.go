// The steps that start and stop a reservation's pods: the observatory's server and devices
// (StartSite, StopSite), the telescope's server and Switches (PowerOn, PowerOff), and the
// telescope's other devices (StartDevices, StopDevices). What they create and how is in
// reservation_objects.go; here is which step does what, and what its summary says.
package observatory

import (
	"context"
	"errors"
	"strings"

	"go.temporal.io/sdk/temporal"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func (a *Activities) startSite(ctx context.Context, in StepInput) (StepResult, error) {
	if in.Observatory == "" {
		return StepResult{Skipped: true, Summary: "Telescope " + in.Telescope + " has no Observatory"}, nil
	}
	s, err := a.readServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
	if err != nil {
		return StepResult{}, err
	}
	// A site without devices still runs its server: the site guard in it parks the
	// telescopes' mounts at dawn, or when the runner is gone, as it does at any site.
	sum, err := a.startAndConnect(ctx, s, s.Devices)
	if err != nil {
		return StepResult{}, err
	}
	if len(s.Devices) == 0 {
		sum += " for its site guard (Observatory " + in.Observatory + " has no devices)"
	}
	locks, err := a.writeDomePolicies(ctx, s)
	if err != nil {
		return StepResult{}, err
	}
	if locks != "" {
		sum += "; " + locks
	}
	power, err := a.powerUp(ctx, s.Devices, s)
	if err != nil {
		return StepResult{}, err
	}
	if power != "" {
		sum += "; " + power
	}
	return StepResult{Summary: sum}, nil
}

func (a *Activities) powerOn(ctx context.Context, in StepInput) (StepResult, error) {
	s, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return StepResult{}, err
	}
	switches := only(s.Devices, isSwitch)
	sum, err := a.startAndConnect(ctx, s, switches)
	if err != nil {
		return StepResult{}, err
	}
	servers, err := a.sitePowerServers(ctx, in, s)
	if err != nil {
		return StepResult{}, err
	}
	power, err := a.powerUp(ctx, s.Devices, servers...)
	if err != nil {
		return StepResult{}, err
	}
	if power != "" {
		sum += "; " + power
	}
	ep := &obsv1.Endpoint{Service: s.Name, Host: kube.ServerHost(s.Name, in.Namespace), Port: kube.ServerPort}
	return StepResult{Summary: sum, Endpoint: ep, Devices: telescopeLabels(s)}, nil
}

// startAndConnect brings up s with devices and connects those it started. It returns the
// summary's start: "Started east-telescope with Switch east; connected Switch east (Power Box)".
func (a *Activities) startAndConnect(ctx context.Context, s stepServer, devices []stepDevice) (string, error) {
	started, err := a.bringUp(ctx, s, devices)
	if err != nil {
		return "", err
	}
	sum := "Started " + s.Name
	if len(started) > 0 {
		sum += " with " + deviceLabels(started)
		conn, err := a.connectAll(ctx, s, started)
		if err != nil {
			return "", err
		}
		sum += "; " + conn
	}
	return sum, nil
}

// powerUp turns on the outputs that power devices, their Switches among the servers', and
// says what it did; a Switch that is not there fails the step.
func (a *Activities) powerUp(ctx context.Context, devices []stepDevice, servers ...stepServer) (string, error) {
	links, err := powerLinks(devices, true, servers...)
	if err != nil {
		return "", err
	}
	return a.setPower(ctx, links, true)
}

func (a *Activities) startDevices(ctx context.Context, in StepInput) (StepResult, error) {
	s, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return StepResult{}, err
	}
	if err := a.checkServer(ctx, s, nil); err != nil {
		return StepResult{}, err
	}
	devices := only(s.Devices, func(d stepDevice) bool { return !isSwitch(d) })
	if len(devices) == 0 {
		return StepResult{Skipped: true, Summary: "Telescope " + in.Telescope + " has no devices"}, nil
	}
	started, err := a.bringUp(ctx, s, devices)
	if err != nil {
		return StepResult{}, err
	}
	if len(started) == 0 {
		return StepResult{Skipped: true, Summary: "every device of Telescope " + in.Telescope + " is being deleted"}, nil
	}
	if err := a.awaitDrivers(ctx, s, started); err != nil {
		return StepResult{}, err
	}
	return StepResult{Summary: "Started " + deviceLabels(started) + keptConfigs(started)}, nil
}

func (a *Activities) stopDevices(ctx context.Context, in StepInput) (StepResult, error) {
	server := kube.ServerName(obsv1.KindTelescope, in.Telescope)
	st, err := a.stopObjects(ctx, stopSelector{Namespace: in.Namespace, Server: server, Role: kube.RoleDevice})
	if err != nil {
		return StepResult{}, err
	}
	if len(st.Resources) == 0 {
		return StepResult{Skipped: true, Summary: "no device of Telescope " + in.Telescope + " runs"}, nil
	}
	return StepResult{Summary: "Stopped " + resourceLabels(st.Resources)}, nil
}

func (a *Activities) powerOff(ctx context.Context, in StepInput) (StepResult, error) {
	server := kube.ServerName(obsv1.KindTelescope, in.Telescope)
	s, err := a.readServerToStop(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return StepResult{}, err
	}
	servers := []stepServer{s}
	if in.Observatory != "" {
		obs, err := a.readServerToStop(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
		if err != nil {
			return StepResult{}, err
		}
		servers = append(servers, obs)
	}
	return a.powerOffAndStop(ctx, in, server, s.Devices, servers)
}

// running narrows servers to the devices that run (see runningDevices), whose Switches can
// turn outputs off.
func (a *Activities) running(ctx context.Context, servers []stepServer) ([]stepServer, error) {
	out := make([]stepServer, len(servers))
	for i, s := range servers {
		var err error
		if out[i], _, err = a.runningDevices(ctx, s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// powerOffAndStop turns the devices' outputs off (every device's, even one whose pod never
// ran: PowerOn turned its output on), through the Switches that run, then stops the server's
// Switches and the server.
func (a *Activities) powerOffAndStop(ctx context.Context, in StepInput, server string, devices []stepDevice, servers []stepServer) (StepResult, error) {
	servers, err := a.running(ctx, servers)
	if err != nil {
		return StepResult{}, err
	}
	links, _ := powerLinks(devices, false, servers...)
	power, err := a.setPower(ctx, links, false)
	if err != nil {
		return StepResult{}, err
	}
	res, err := a.stopServer(ctx, in, server)
	if err != nil || power == "" {
		return res, err
	}
	res.Skipped = false
	res.Summary = strings.ToUpper(power[:1]) + power[1:] + "; " + res.Summary
	return res, nil
}

func (a *Activities) stopSite(ctx context.Context, in StepInput) (StepResult, error) {
	if in.Observatory == "" {
		return StepResult{Skipped: true, Summary: "Telescope " + in.Telescope + " has no Observatory"}, nil
	}
	server := kube.ServerName(obsv1.KindObservatory, in.Observatory)
	s, err := a.readServerToStop(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
	if err != nil {
		return StepResult{}, err
	}
	var disc string
	if on, runs, err := a.runningDevices(ctx, s); err != nil {
		return StepResult{}, err
	} else if runs && len(on.Devices) > 0 {
		if disc, err = a.disconnectAll(ctx, on); err != nil {
			return StepResult{}, err
		}
	}
	devs, err := a.stopObjects(ctx, stopSelector{Namespace: in.Namespace, Server: server, Role: kube.RoleDevice})
	if err != nil {
		return StepResult{}, err
	}
	res, err := a.powerOffAndStop(ctx, in, server, s.Devices, []stepServer{s})
	if err != nil {
		return res, err
	}
	if siteDome(s) != nil {
		if err := a.writeCondition(ctx, s.Owner, 0, kube.LocksIdleCondition(in.Observatory)); err != nil {
			return StepResult{}, err
		}
	}
	// The site guard stopped with the server.
	if err := a.writeCondition(ctx, s.Owner, 0, kube.SafetyIdleCondition(in.Observatory)); err != nil {
		return StepResult{}, err
	}
	// No station reports any more: the weather the observer wrote last is not the site's now.
	if err := a.updateStatusField(ctx, s.Owner, "weather", func([]byte) (any, error) { return kube.SafetyUnknown, nil }); err != nil {
		return StepResult{}, err
	}
	if len(devs.Resources) > 0 {
		res.Skipped = false
		res.Summary = "Stopped " + resourceLabels(devs.Resources) + "; " + res.Summary
	}
	if disc != "" {
		res.Skipped = false
		res.Summary = "D" + disc[1:] + "; " + res.Summary
	}
	return res, nil
}

// stopServer stops a server's Switches and then the server.
func (a *Activities) stopServer(ctx context.Context, in StepInput, server string) (StepResult, error) {
	sw, err := a.stopObjects(ctx, stopSelector{Namespace: in.Namespace, Server: server, Role: kube.RoleDevice, Switches: true})
	if err != nil {
		return StepResult{}, err
	}
	srv, err := a.stopObjects(ctx, stopSelector{Namespace: in.Namespace, Server: server, Role: kube.RoleServer})
	if err != nil {
		return StepResult{}, err
	}
	all := append(sw.Resources, srv.Resources...)
	if len(all) == 0 {
		return StepResult{Skipped: true, Summary: server + " does not run"}, nil
	}
	return StepResult{Summary: "Stopped " + resourceLabels(sw.Resources) + joinIf(len(sw.Resources) > 0, ", ") + server}, nil
}

func joinIf(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// readServerToStop is readServer for the stop steps: a Telescope or Observatory that is
// gone powers nothing, and its objects are still stopped by their labels.
func (a *Activities) readServerToStop(ctx context.Context, ns string, kind obsv1.Kind, name string) (stepServer, error) {
	s, err := a.readServer(ctx, ns, kind, name)
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return stepServer{Owner: kube.ResourceID{Kind: kind, Namespace: ns, Name: name}, Name: kube.ServerName(kind, name)}, nil
	}
	return s, err
}

// keptConfigs says where the devices with spec.config keep what their drivers save, for the
// reservation's record: "; the configuration of Mount west on west-mount-config".
func keptConfigs(devices []stepDevice) string {
	var parts []string
	for _, d := range devices {
		if d.Spec.Config != nil && d.Pod != "" {
			parts = append(parts, d.Label()+" on "+kube.DeviceConfigClaimName(d.Pod))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; the configuration of " + strings.Join(parts, ", ")
}
