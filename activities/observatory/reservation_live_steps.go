// The parts of a live plan (reservation_live.go), each an activity the workflow runs and
// records. Each part reads again what it works on, so that a retry finds what an
// earlier try did and does the rest: a leaver already gone, a joiner already linked.
package observatory

import (
	"context"
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// LeaveDevice runs in.Device's leave from in.Server (see leave).
func (a *Activities) LeaveDevice(ctx context.Context, in LiveServerInput) error {
	defer a.liveHeartbeat(ctx, string(in.Device.Kind)+" "+in.Device.Name+" leaving "+in.Server.Server)()
	s, err := a.readServer(ctx, in.Namespace, in.Server.Owner.Kind, in.Server.Owner.Name)
	if err != nil {
		return err
	}
	pods, err := a.managedPods(ctx, in.Namespace)
	if err != nil {
		return err
	}
	return a.leave(ctx, in.LiveInput, s, in.Device, pods)
}

// RefuseDevices writes the refused joiners' Error and posts their Warnings.
func (a *Activities) RefuseDevices(ctx context.Context, in LiveServerInput) error {
	a.reportRefusals(ctx, in.Namespace, in.Server.Refuse)
	return nil
}

// StartLiveDevices brings a server's devices up: the joiners' objects and drivers (their
// activation marked Pending first, under an Active parent, so that a retry that finds them
// linked still runs it), and what was deleted while Ready, created again.
func (a *Activities) StartLiveDevices(ctx context.Context, in LiveServerInput) (LiveStarted, error) {
	var out LiveStarted
	defer a.liveHeartbeat(ctx, "the devices of "+in.Server.Server)()
	s, err := a.readServer(ctx, in.Namespace, in.Server.Owner.Kind, in.Server.Owner.Name)
	if err != nil {
		return out, err
	}
	s.Devices = in.Server.planned(s.Devices)
	if len(s.Devices) == 0 {
		return out, nil
	}
	joining := func(d stepDevice) bool {
		return slices.Contains(in.Server.Join, kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name})
	}
	if in.Server.Active {
		for _, d := range only(s.Devices, joining) {
			if err := a.markActivationPending(ctx, in.StepInput, d.ResourceID); err != nil {
				return out, err
			}
		}
	}
	before, err := a.managedPods(ctx, in.Namespace)
	if err != nil {
		return out, err
	}
	started, err := a.bringUp(ctx, s, s.Devices)
	if err != nil {
		return out, err
	}
	joined := only(started, joining)
	if len(joined) > 0 {
		if err := a.awaitDrivers(ctx, s, joined); err != nil {
			return out, err
		}
	}
	for _, d := range joined {
		out.Joined = append(out.Joined, d.Label())
		a.postObsEvent(ctx, s.Owner, kube.Event{Type: corev1.EventTypeNormal, Reason: kube.ReasonDriverStarted,
			Message: fmt.Sprintf("Started the driver %s of %s on %s: it joined while Reservation %s was Ready",
				d.Spec.Driver.Name, d.Label(), s.Name, in.Reservation)})
	}
	out.Created, err = a.createdAgain(ctx, in.LiveInput, before, func(p *corev1.Pod) bool {
		return servesOneOf(p, []stepServer{s}) && !slices.ContainsFunc(joined, func(d stepDevice) bool { return d.Pod == p.Name })
	})
	return out, err
}

// RestartGuider brings back the Guider's pod deleted while Ready, as StartGuider made it:
// PHD2 connects its camera and mount again. One that runs is left alone.
func (a *Activities) RestartGuider(ctx context.Context, in LiveInput) (LiveStarted, error) {
	var out LiveStarted
	defer a.liveHeartbeat(ctx, "the Guider of "+in.Telescope)()
	tel, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil || tel.Guider == nil {
		return out, err
	}
	name, err := kube.ValidObjectName(obsv1.KindGuider, tel.Guider.Name)
	if err != nil {
		return out, nil
	}
	before, err := a.managedPods(ctx, in.Namespace)
	if err != nil || before[name] != nil {
		return out, err
	}
	if _, err := a.StartGuider(ctx, in.StepInput); err != nil {
		return out, err
	}
	out.Created, err = a.createdAgain(ctx, in, before, func(p *corev1.Pod) bool { return p.Name == name })
	return out, err
}

// ConnectLiveDevices connects a server's devices again after its drivers changed (a
// dev-mode server may have started again; a device already connected is left as it is),
// and, on the Observatory's, writes the Dome policies again: a Dome that joined heeds the
// mounts and they heed it; one that left, they no longer do.
func (a *Activities) ConnectLiveDevices(ctx context.Context, in LiveServerInput) error {
	defer a.liveHeartbeat(ctx, "connecting the devices of "+in.Server.Server)()
	s, err := a.readServer(ctx, in.Namespace, in.Server.Owner.Kind, in.Server.Owner.Name)
	if err != nil {
		return err
	}
	s.Devices = in.Server.planned(s.Devices)
	if len(s.Devices) > 0 {
		if _, err := a.connectAll(ctx, s, s.Devices); err != nil {
			return err
		}
	}
	if s.Owner.Kind == obsv1.KindObservatory {
		_, err = a.writeDomePolicies(ctx, s)
	}
	return err
}

// ActivateDevice runs in.Device's activation when it is due: marked Pending, or failed
// after it joined and given the retry annotation, which goes as the run starts, as a step's
// does (its Done actions are not run again).
func (a *Activities) ActivateDevice(ctx context.Context, in LiveServerInput) error {
	defer a.liveHeartbeat(ctx, "the activation of "+string(in.Device.Kind)+" "+in.Device.Name)()
	// The procedure needs only the server's name and owner, which the plan has.
	s := stepServer{Owner: in.Server.Owner, Name: in.Server.Server}
	d := in.Device
	u, err := a.resource(d.Kind, d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the %s %s: %w", d.Kind, d.Name, err)
	}
	var prior []obsv1.ActionRecord
	recs := statusProcedures(u)
	if retry := u.GetAnnotations()[kube.AnnotationRetry]; retry != "" {
		if failed := kube.FailedJoinerActivation(recs, in.Activated); failed != nil {
			if err := a.removeRetry(ctx, d.Kind, d.Namespace, d.Name, retry); err != nil {
				return err
			}
			prior = append([]obsv1.ActionRecord{}, failed.Actions...)
		}
	}
	if prior == nil && !kube.ActivationPending(recs, in.Activated) {
		return nil
	}
	return a.runDeviceProcedure(ctx, in.StepInput, s, d, kube.TriggerActivation, prior)
}

// createdAgain names the pods that were not in before and that mine picks, and posts a
// PodCreated on the resource each belongs to.
func (a *Activities) createdAgain(ctx context.Context, in LiveInput, before map[string]*corev1.Pod, mine func(*corev1.Pod) bool) ([]string, error) {
	after, err := a.managedPods(ctx, in.Namespace)
	if err != nil {
		return nil, err
	}
	var out []string
	for name, pod := range after {
		if _, ok := before[name]; ok || !mine(pod) {
			continue
		}
		out = append(out, name)
		if ref := metav1.GetControllerOf(pod); ref != nil {
			a.postObsEvent(ctx, kube.ResourceID{Kind: obsv1.Kind(ref.Kind), Namespace: in.Namespace, Name: ref.Name, UID: ref.UID},
				kube.Event{Type: corev1.EventTypeNormal, Reason: ReasonPodCreated,
					Message: fmt.Sprintf("Created the pod %s again: it was deleted while Reservation %s was Ready", name, in.Reservation)})
		}
	}
	sort.Strings(out)
	return out, nil
}

// liveHeartbeat heartbeats what a part of the plan does until the returned stop: its waits
// (a dev-mode server started again with the joiner's driver, each driver defining its
// device) heartbeat only while they poll, and one that is long in a single call must not
// look like a dead worker.
func (a *Activities) liveHeartbeat(ctx context.Context, what string) (stop func()) {
	hb := newHeartbeat(ctx)
	hb.set("live", what)
	return hb.stop
}

// planned are the devices of a fresh read that the plan knew the server runs.
func (s LiveServer) planned(devices []stepDevice) []stepDevice {
	return only(devices, func(d stepDevice) bool {
		return slices.Contains(s.Devices, kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name})
	})
}

// deviceOf finds a server's device by kind and name.
func deviceOf(s stepServer, id kube.ResourceID) (stepDevice, bool) {
	for _, d := range s.Devices {
		if d.Kind == id.Kind && d.Name == id.Name {
			return d, true
		}
	}
	return stepDevice{}, false
}

// withoutRefused are the devices less the refused ones.
func withoutRefused(devices []stepDevice, refused []kube.Refusal) []stepDevice {
	return only(devices, func(d stepDevice) bool {
		return !slices.ContainsFunc(refused, func(r kube.Refusal) bool { return r.Device.Kind == d.Kind && r.Device.Name == d.Name })
	})
}
