// The refusals the steps meet: a device that cannot run (kube/refusals.go says why, in the
// words the inventory shows before a reservation) fails the step that would start it, and is
// written on the device at fault first, so the user reads it there as well as in the step.
package observatory

import (
	"context"
	"slices"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// refusals are the devices of s that cannot run: a name that gives no pod name or a driver
// another device of s holds (one indiserver runs a driver once), for every device; and what
// the objects of those to start cannot be built from. The rules are kube.ServerRefusals',
// with nothing linked yet.
func (s stepServer) refusals(start []stepDevice) []kube.Refusal {
	var out []kube.Refusal
	var valid []kube.LiveDevice
	for _, d := range s.Devices {
		ld := kube.LiveDevice{Kind: d.Kind, Name: d.Name, Service: d.Pod, Driver: d.Spec.Driver.Name}
		if d.Pod == "" {
			_, err := kube.ValidObjectName(d.Kind, d.Name)
			out = append(out, kube.Refusal{Device: ld, Message: err.Error()})
			continue
		}
		valid = append(valid, ld)
	}
	out = append(out, kube.DriverRefusals(s.Name, valid, nil)...)
	for _, d := range start {
		refused := slices.ContainsFunc(out, func(r kube.Refusal) bool { return r.Device.Kind == d.Kind && r.Device.Name == d.Name })
		if msg := kube.BuildRefusal(d.DeviceRef); msg != "" && !refused {
			out = append(out, kube.Refusal{Device: kube.LiveDevice{Kind: d.Kind, Name: d.Name}, Message: msg})
		}
	}
	return out
}

// checkServer fails the step when the server's name is invalid or a device of it cannot run
// (see refusals), after writing each refusal on the device at fault, so the user reads it
// there too; start are the devices the step starts.
func (a *Activities) checkServer(ctx context.Context, s stepServer, start []stepDevice) error {
	if s.Invalid != nil {
		return stepFailed("%v", s.Invalid)
	}
	refused := s.refusals(start)
	if len(refused) == 0 {
		return nil
	}
	a.reportRefusals(ctx, s.Owner.Namespace, refused)
	return stepFailed("%s", kube.RefusalMessage(refused))
}

// reportRefusals writes each refused device's Error and posts its Warning. The step fails
// with the same words whatever comes of it, so a failed write is only logged.
func (a *Activities) reportRefusals(ctx context.Context, ns string, refusals []kube.Refusal) {
	for _, r := range refusals {
		if !r.Device.Kind.IsDevice() {
			continue
		}
		id := kube.ResourceID{Kind: r.Device.Kind, Namespace: ns, Name: r.Device.Name}
		err := a.updateDeviceStatus(ctx, id, func(st obsv1.DeviceStatus, gen int64) obsv1.DeviceStatus {
			return kube.RefusedDeviceStatus(st, r.Message, gen, a.now())
		})
		if err != nil {
			logFor(ctx).Warn("a refusal could not be written on its device", "device", id.String(), "namespace", ns, "err", err)
		}
	}
}
