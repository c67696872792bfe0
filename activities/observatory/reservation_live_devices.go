// What a device that joins or leaves a Ready reservation needs, one device at a time: a
// leaver's deactivation, driver and objects (leave), a joiner's activation marked Pending and
// run (markActivationPending, runDeviceProcedure), and the reads the live plan is made of.
package observatory

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// leave runs a leaver's deactivation when it ran its activation, stops its driver, deletes
// its pod, Service and claim, and posts the Events.
func (a *Activities) leave(ctx context.Context, in LiveInput, s stepServer, r kube.ResourceID, pods map[string]*corev1.Pod) error {
	r.Namespace = in.Namespace
	u, err := a.resource(r.Kind, r.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		u = nil
	case err != nil:
		return fmt.Errorf("read the %s %s/%s: %w", r.Kind, r.Namespace, r.Name, err)
	default:
		r.UID = u.GetUID()
		if kube.RanActivation(statusProcedures(u), in.Activated) {
			if err := a.runDeviceProcedure(ctx, in.StepInput, s, r, kube.TriggerDeactivation, nil); err != nil {
				return err
			}
		}
	}

	// The driver stops: the server's drivers annotation no longer links it.
	linked := stepServer{Owner: s.Owner, Name: s.Name, Guider: s.Guider, Trains: s.Trains}
	was := linkedServices(pods[s.Name])
	for _, d := range s.Devices {
		for _, svc := range was {
			if d.Pod == svc {
				linked.Devices = append(linked.Devices, d)
			}
		}
	}
	if pods[s.Name] != nil {
		if err := a.startServer(ctx, linked); err != nil {
			return err
		}
	}
	driver := leaverDriver(u, pods, r)
	if stopper, ok := a.indiResolver().(DriverStopper); ok && driver != "" {
		if err := stopper.StopDrivers(ctx, INDIServer{Namespace: r.Namespace, Name: s.Name, Drivers: []string{driver}}); err != nil {
			return err
		}
	}
	label := string(r.Kind) + " " + r.Name
	a.postObsEvent(ctx, s.Owner, kube.Event{Type: corev1.EventTypeNormal, Reason: kube.ReasonDriverStopped,
		Message: fmt.Sprintf("Stopped the driver %s of %s on %s: it left while Reservation %s was Ready", driver, label, s.Name, in.Reservation)})

	st, err := a.stopObjects(ctx, stopSelector{Namespace: r.Namespace, Server: s.Name, Role: kube.RoleDevice, Device: r})
	if err != nil {
		return err
	}
	if u != nil && len(st.Resources) > 0 {
		pod, _ := kube.ValidObjectName(r.Kind, r.Name)
		a.postObsEvent(ctx, r, kube.Event{Type: corev1.EventTypeNormal, Reason: kube.ReasonPodDeleted,
			Message: fmt.Sprintf("Deleted the pod %s: %s left %s", pod, label, string(s.Owner.Kind)+" "+s.Owner.Name)})
	}
	return nil
}

// readDeviceProcedures reads a device and its procedures; u is nil when the device is gone.
func (a *Activities) readDeviceProcedures(ctx context.Context, id kube.ResourceID) (u *unstructured.Unstructured, spec procSpec, err error) {
	u, err = a.resource(id.Kind, id.Namespace).Get(ctx, id.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, spec, nil
	}
	if err != nil {
		return nil, spec, fmt.Errorf("read the %s %s/%s: %w", id.Kind, id.Namespace, id.Name, err)
	}
	if spec, err = readProcSpec(u); err != nil {
		return nil, spec, badSpec(id.Kind, id.Name, err)
	}
	return u, spec, nil
}

// markActivationPending records a joiner's activation as Pending, since when it joined, when
// it has activation actions.
func (a *Activities) markActivationPending(ctx context.Context, in StepInput, id kube.ResourceID) error {
	u, spec, err := a.readDeviceProcedures(ctx, id)
	if u == nil || err != nil {
		return err
	}
	if len(spec.Activation) == 0 {
		return nil
	}
	rec := obsv1.ProcedureRecord{
		Trigger:   kube.TriggerActivation,
		Since:     &metav1.Time{Time: in.Started.UTC().Truncate(time.Second)},
		RunRecord: obsv1.RunRecord{State: obsv1.RunPending},
	}
	_, err = a.writeProcedure(ctx, &procResource{id: kube.ResourceIDOf(id.Kind, u)}, rec)
	return err
}

// runDeviceProcedure runs one device's activation or deactivation, as the steps run a tier
// of one; prior are the action records of a failed run it runs again (its Done actions are
// not run again). A failed action has posted ProcedureFailed on the device, and the caller
// goes on; only a transient error is returned (Temporal tries again).
func (a *Activities) runDeviceProcedure(ctx context.Context, in StepInput, s stepServer, id kube.ResourceID, trigger string,
	prior []obsv1.ActionRecord) error {
	u, spec, err := a.readDeviceProcedures(ctx, id)
	if u == nil || err != nil {
		return err
	}
	acts := spec.Activation
	if trigger == kube.TriggerDeactivation {
		acts = spec.Deactivation
	}
	if len(acts) == 0 {
		return nil
	}
	r := &procResource{
		id:          kube.ResourceIDOf(id.Kind, u),
		server:      s.Name,
		observatory: in.Observatory,
		generation:  u.GetGeneration(),
		actions:     acts,
	}
	if s.Owner.Kind == obsv1.KindTelescope {
		r.telescope = in.Telescope
	}
	if spec.Driver.Name != "" {
		r.drivers = []string{spec.Driver.Name}
	}
	r.indiDevice, _, _ = unstructured.NestedString(u.Object, "status", "indiDevice")
	hb := newHeartbeat(ctx)
	defer hb.stop()
	runs := map[string]chan struct{}{r.id.String(): make(chan struct{})}
	defer close(runs[r.id.String()])
	in.Actions = prior
	_, end := a.runResource(ctx, in, trigger, r, runs, hb)
	return end.err
}

// isActive says whether a Telescope's or Observatory's Active condition is True.
func (a *Activities) isActive(ctx context.Context, owner kube.ResourceID) (bool, error) {
	u, err := a.resource(owner.Kind, owner.Namespace).Get(ctx, owner.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the %s %s/%s: %w", owner.Kind, owner.Namespace, owner.Name, err)
	}
	var conds []obsv1.Condition
	decodeStatus(u, "conditions", &conds)
	for _, c := range conds {
		if c.Type == obsv1.ConditionActive {
			return c.Status == metav1.ConditionTrue, nil
		}
	}
	return false, nil
}

// liveDevices are what the server should run, for kube.PlanLiveDevices.
func liveDevices(s stepServer) []kube.LiveDevice {
	var out []kube.LiveDevice
	for _, d := range s.Devices {
		if d.Pod != "" {
			out = append(out, kube.LiveDevice{Kind: d.Kind, Name: d.Name, Service: d.Pod, Driver: d.Spec.Driver.Name})
		}
	}
	return out
}

// linkedServices are the Services a server pod's drivers annotation links; none without a pod.
func linkedServices(server *corev1.Pod) []string {
	if server == nil {
		return nil
	}
	return kube.LinkedServices(server.Annotations[kube.AnnotationDrivers])
}

// runningDevices are the devices with a pod labelled for the server.
func runningDevices(pods map[string]*corev1.Pod, server string) []kube.ResourceID {
	var out []kube.ResourceID
	for _, p := range pods {
		if p.Labels[kube.LabelServer] == server && p.Labels[kube.LabelRole] == string(kube.RoleDevice) {
			out = append(out, kube.ResourceID{Kind: obsv1.Kind(p.Labels[kube.LabelKind]), Name: p.Labels[kube.LabelResource]})
		}
	}
	return out
}

// leaverDriver is a leaver's driver: its spec's, or (the device gone) its pod's.
func leaverDriver(u *unstructured.Unstructured, pods map[string]*corev1.Pod, r kube.ResourceID) string {
	if u != nil {
		if name, _, _ := unstructured.NestedString(u.Object, "spec", "driver", "name"); name != "" {
			return name
		}
	}
	sel := labels.SelectorFromSet(labels.Set{kube.LabelKind: string(r.Kind), kube.LabelResource: r.Name})
	for _, p := range pods {
		if !sel.Matches(labels.Set(p.Labels)) || len(p.Spec.Containers) == 0 {
			continue
		}
		for _, arg := range p.Spec.Containers[0].Command {
			if exec, ok := strings.CutPrefix(arg, "EXEC:"); ok {
				driver, _, _ := strings.Cut(exec, ",")
				return driver
			}
		}
	}
	return ""
}
