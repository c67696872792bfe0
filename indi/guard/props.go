// The guard's INDI properties, as its driver defines and updates them.
package guard

import (
	"encoding/json"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
)

const group = "Site Guard"

// define sends the definition of every property, or of the one named, as a libindi driver
// does when asked: CONNECTION first, which clients take as the sign a device is defined. The
// guard is always connected: it has no device of its own to open.
func (g *Guard) define(name string) {
	g.mu.Lock()
	status := statusVector(g.report)
	g.mu.Unlock()
	info := prop.Property{Device: Device, Name: driverInfoProp, Label: "Driver Info", Group: "General Info", Type: prop.Text,
		Perm: prop.ReadOnly, State: prop.Idle, Elements: []prop.Element{
			{Name: "DRIVER_NAME", Label: "Name", Value: Device},
			{Name: "DRIVER_EXEC", Label: "Exec", Value: Driver},
			{Name: "DRIVER_VERSION", Label: "Version", Value: g.Version},
			{Name: "DRIVER_INTERFACE", Label: "Interface", Value: "32768"}, // AUX_INTERFACE
		}}
	park := parkVector(g.lastPark.what == "parked")
	park.Label, park.Group, park.Perm, park.Rule = "Mounts of the site", group, prop.ReadOnly, prop.OneOfMany
	park.Elements[0].Label, park.Elements[1].Label = "Parked", "Unparked"
	cfg := configVector(g.cfg.Encode(), prop.Idle, "")
	cfg.Label, cfg.Group, cfg.Perm = "Config (from the runner)", group, prop.ReadWrite
	beat := heartbeatVector("", "")
	beat.Label, beat.Group, beat.Perm, beat.State = "Runner heartbeat", group, prop.ReadWrite, prop.Idle
	status.Label, status.Group, status.Perm = "Status", group, prop.ReadOnly
	for _, p := range []prop.Property{connectionVector(prop.Ok, ""), info, park, cfg, beat, status} {
		if name == "" || name == p.Name {
			g.send(indi.AppendVector(nil, indi.Def, p))
		}
	}
}

func connectionVector(state prop.State, message string) prop.Property {
	return prop.Property{Device: Device, Name: "CONNECTION", Label: "Connection", Group: "Main Control", Type: prop.Switch,
		Perm: prop.ReadWrite, Rule: prop.OneOfMany, State: state, Message: message, Elements: []prop.Element{
			{Name: "CONNECT", Label: "Connect", Value: "On"}, {Name: "DISCONNECT", Label: "Disconnect", Value: "Off"},
		}}
}

// parkVector is the mounts' one park state, as the domes' locks snoop it: settled (Ok), since a
// dome believes nothing else.
func parkVector(parked bool) prop.Property {
	return prop.Property{Device: Device, Name: MountParkProp, Type: prop.Switch, State: prop.Ok, Elements: []prop.Element{
		{Name: parkElement, Value: onOff(parked)}, {Name: unparkElement, Value: onOff(!parked)},
	}}
}

func configVector(config string, state prop.State, message string) prop.Property {
	return prop.Property{Device: Device, Name: PropConfig, Type: prop.Text, State: state, Message: message,
		Elements: []prop.Element{{Name: ElemConfig, Label: "Config", Value: config}}}
}

func heartbeatVector(telescope, state string) prop.Property {
	return prop.Property{Device: Device, Name: PropHeartbeat, Type: prop.Text, State: prop.Ok, Elements: []prop.Element{
		{Name: ElemTelescope, Label: "Telescope", Value: telescope}, {Name: ElemBeatState, Label: "State", Value: state},
	}}
}

// statusVector is the report: in words (STATE) and for the runner (REPORT). Its state is
// Alert while a trip runs or after one that failed, Busy while a trip runs, Ok otherwise.
func statusVector(r Report) prop.Property {
	b, _ := json.Marshal(r) // plain fields: cannot fail
	state := prop.Ok
	if !r.Armed {
		state = prop.Idle
	}
	if n := len(r.Trips); n > 0 {
		switch last := r.Trips[n-1]; {
		case !last.Finished:
			state = prop.Busy
		case last.Failed != "":
			state = prop.Alert
		}
	}
	return prop.Property{Device: Device, Name: PropStatus, Type: prop.Text, State: state, Elements: []prop.Element{
		{Name: ElemState, Label: "State", Value: Words(r)}, {Name: ElemReport, Label: "Report", Value: string(b)},
	}}
}

func onOff(on bool) string {
	if on {
		return "On"
	}
	return "Off"
}
