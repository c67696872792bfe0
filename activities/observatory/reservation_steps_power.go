// Power: a device whose spec.power names a Switch and an output is powered through that
// Switch's DIGITAL_OUTPUT_<n>. PowerOn (and StartSite, for the observatory's devices) turns
// the outputs on once the Switches are connected, before any driver starts; PowerOff (and
// StopSite) turns them off before the Switches stop. The Switch may be the telescope's own or
// the observatory's.
package observatory

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// powerLink is a device and the Switch output that powers it.
type powerLink struct {
	Device stepDevice
	Switch stepDevice
	// Server is the Switch's server.
	Server stepServer
}

// powerLinks finds the Switch of each device with spec.power among the servers' Switches.
// strict fails the step on a Switch that is not there (PowerOn); otherwise such a device is
// left out (a stop does not fail over a spec that changed since).
func powerLinks(devices []stepDevice, strict bool, servers ...stepServer) ([]powerLink, error) {
	var out []powerLink
	for _, d := range devices {
		if d.Spec.Power == nil {
			continue
		}
		found := false
		for _, s := range servers {
			for _, sw := range s.Devices {
				if sw.Kind == obsv1.KindSwitch && sw.Name == d.Spec.Power.Switch {
					out = append(out, powerLink{Device: d, Switch: sw, Server: s})
					found = true
					break
				}
			}
			if found {
				break
			}
		}
		if !found && strict {
			var owners []string
			for _, s := range servers {
				owners = append(owners, string(s.Owner.Kind)+" "+s.Owner.Name)
			}
			return nil, stepFailed("%s: its power.switch %s is no Switch of %s", d.Label(), d.Spec.Power.Switch, strings.Join(owners, " or "))
		}
	}
	return out, nil
}

// setPower turns each link's output on or off, and says what it did: "powered on Mount east
// (Switch box output 1)".
func (a *Activities) setPower(ctx context.Context, links []powerLink, on bool) (string, error) {
	if len(links) == 0 {
		return "", nil
	}
	var parts []string
	byServer := map[string][]powerLink{}
	var order []string
	for _, l := range links {
		if _, ok := byServer[l.Server.Name]; !ok {
			order = append(order, l.Server.Name)
		}
		byServer[l.Server.Name] = append(byServer[l.Server.Name], l)
	}
	for _, server := range order {
		group := byServer[server]
		runs, err := a.serverRuns(ctx, group[0].Server.Owner.Namespace, server)
		if err != nil {
			return "", err
		}
		if !runs {
			if on {
				return "", fmt.Errorf("the INDI server %s of Switch %s does not run", server, group[0].Switch.Name)
			}
			continue // stopped already: its outputs are off with it
		}
		c, err := a.dialServer(ctx, group[0].Server)
		if err != nil {
			return "", err
		}
		for _, l := range group {
			name, err := indiDevice(ctx, c, l.Server, l.Switch)
			if err != nil {
				c.Close()
				return "", indiStepError(l.Switch, err)
			}
			stepHeartbeat(ctx, "power of "+l.Device.Label())
			if _, err := c.SetPowerOutput(ctx, name, int(l.Device.Spec.Power.Output), on); err != nil {
				c.Close()
				return "", indiStepError(l.Switch, err)
			}
			parts = append(parts, fmt.Sprintf("%s (%s output %s)", l.Device.Label(), l.Switch.Label(), strconv.Itoa(int(l.Device.Spec.Power.Output))))
		}
		c.Close()
	}
	if len(parts) == 0 {
		return "", nil
	}
	verb := "powered off "
	if on {
		verb = "powered on "
	}
	return verb + strings.Join(parts, ", "), nil
}

// sitePowerServers are the servers whose Switches may power a telescope's devices: its own,
// and its observatory's.
func (a *Activities) sitePowerServers(ctx context.Context, in StepInput, tel stepServer) ([]stepServer, error) {
	servers := []stepServer{tel}
	if in.Observatory == "" {
		return servers, nil
	}
	obs, err := a.readServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
	if err != nil {
		return nil, err
	}
	return append(servers, obs), nil
}
