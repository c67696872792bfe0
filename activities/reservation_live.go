// Devices that join or leave a Ready reservation (spec 3, "While Ready"; spec 7, deleting a
// running device). A parent edit, or a device's delete, changes which devices a running INDI
// server should run; LiveDevices finds out which (kube.PlanLiveDevices, from the server
// pod's drivers annotation) and handles them live:
//   - a leaver runs its deactivation when it ran its activation (a failure posts
//     ProcedureFailed and the leave goes on), then its driver stops (DriverStopped on the
//     Telescope or Observatory), its pod, Service and claim are deleted (PodDeleted on the
//     device) and its finalizer goes, unless another held server runs it;
//   - a joiner gets its finalizer, pod, Service and claim, its driver on the running server
//     (DriverStarted), connect and configure, and its activation when its parent is Active;
//   - a joiner whose driver another device of the server holds, or whose objects cannot be
//     built, is refused: its phase is Error and its Ready condition says why
//     (reportRefusals), and nothing is started for it.
//
// It also heals (the pods deleted while Ready, the Guider's too, are created again), since
// both read the same servers and a refused joiner must not stop the heal; HealPods, which
// older runs call, is LiveDevices too.
package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
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

// LiveInput is what LiveDevices works on: the reservation's step input (Started is when the
// workflow asked, the since of the procedures it runs) and when its Activation began.
type LiveInput struct {
	StepInput
	// Activated is the Activation step's startTime: a leaver that ran its activation since
	// then runs its deactivation.
	Activated time.Time
}

// LiveResult names what LiveDevices did, as "Kind name".
type LiveResult struct {
	// Created are the pods created again (PodCreated).
	Created []string `json:",omitempty"`
	Joined  []string `json:",omitempty"`
	Left    []string `json:",omitempty"`
	Refused []string `json:",omitempty"`
	// Devices are the telescope's devices now, as StepResult.Devices.
	Devices []string `json:",omitempty"`
}

// LiveDevices handles the devices that left or joined the reservation's servers, and creates
// again what was deleted while Ready. Nothing changed: nothing done.
func (a *Activities) LiveDevices(ctx context.Context, in LiveInput) (LiveResult, error) {
	var out LiveResult
	// Its waits (a dev-mode server started again with the joiner's driver, each driver
	// defining its device) heartbeat only while they poll: one that is long in a single call
	// must not look like a dead worker.
	hb := newHeartbeat(ctx)
	defer hb.stop()
	hb.set("live", "devices joining and leaving "+in.Telescope)
	before, err := a.managedPods(ctx, in.Namespace)
	if err != nil {
		return out, err
	}
	var servers []stepServer
	if in.Observatory != "" {
		s, err := a.readServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
		if err != nil {
			return out, err
		}
		if len(s.Devices) > 0 || before[s.Name] != nil {
			servers = append(servers, s)
		}
	}
	tel, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return out, err
	}
	servers = append(servers, tel)

	var joiners []stepDevice
	changed := map[string]bool{} // servers whose drivers changed
	for i, s := range servers {
		running := runningDevices(before, s.Name)
		if before[s.Name] == nil && (s.Owner.Kind == obsv1.KindTelescope || len(running) > 0) {
			// A server pod deleted while Ready: what it linked is unknown, and bringUp
			// creates it again with every device, as a heal.
			continue
		}
		// (An Observatory's server that never ran, for want of devices, starts for its
		// first joiner.)
		plan := kube.PlanLiveDevices(s.Name, liveDevices(s), linkedServices(before[s.Name]), running)
		// A joiner whose objects cannot be built (a driver no image holds, a claim that is
		// not one) is refused as one whose driver is held: the others still join.
		for _, j := range plan.Join {
			for _, d := range s.Devices {
				if d.Kind == j.Kind && d.Name == j.Name {
					if msg := kube.BuildRefusal(d.DeviceRef); msg != "" {
						plan.Refuse = append(plan.Refuse, kube.Refusal{Device: j, Message: msg})
					}
				}
			}
		}
		for _, r := range plan.Leave {
			if err := a.leave(ctx, in, s, r, before); err != nil {
				return out, err
			}
			out.Left = append(out.Left, string(r.Kind)+" "+r.Name)
			changed[s.Name] = true
		}
		refused := map[kube.ResourceID]bool{}
		a.reportRefusals(ctx, in.Namespace, plan.Refuse)
		for _, r := range plan.Refuse {
			refused[kube.ResourceID{Kind: r.Device.Kind, Name: r.Device.Name}] = true
			out.Refused = append(out.Refused, string(r.Device.Kind)+" "+r.Device.Name)
		}
		servers[i].Devices = only(s.Devices, func(d stepDevice) bool {
			return !refused[kube.ResourceID{Kind: d.Kind, Name: d.Name}]
		})
		for _, j := range plan.Join {
			for _, d := range servers[i].Devices {
				if d.Kind == j.Kind && d.Name == j.Name {
					joiners = append(joiners, d)
				}
			}
		}
	}

	out.Devices = telescopeLabels(servers[len(servers)-1])

	// A joiner under an Active parent has its activation marked Pending before its driver
	// starts, so that a retry of this activity, which finds it linked, still runs it.
	active := map[string]bool{}
	for _, s := range servers {
		if active[s.Name], err = a.isActive(ctx, s.Owner); err != nil {
			return out, err
		}
	}
	for _, d := range joiners {
		if active[serverOf(servers, d)] {
			if err := a.markActivationPending(ctx, in.StepInput, d.ResourceID); err != nil {
				return out, err
			}
		}
	}

	// The servers' drivers annotations now link the joiners (their drivers start), and pods
	// deleted while Ready are created again.
	joined := map[string]bool{}
	for _, s := range servers {
		if len(s.Devices) == 0 {
			continue
		}
		started, err := a.bringUp(ctx, s, s.Devices)
		if err != nil {
			return out, err
		}
		var mine []stepDevice
		for _, d := range started {
			for _, j := range joiners {
				if j.Kind == d.Kind && j.Name == d.Name && j.Namespace == d.Namespace {
					mine = append(mine, d)
				}
			}
		}
		if len(mine) == 0 {
			continue
		}
		if err := a.awaitDrivers(ctx, s, mine); err != nil {
			return out, err
		}
		for _, d := range mine {
			joined[d.Pod] = true
			changed[s.Name] = true
			out.Joined = append(out.Joined, d.Label())
			a.postObsEvent(ctx, s.Owner, kube.Event{Type: corev1.EventTypeNormal, Reason: kube.ReasonDriverStarted,
				Message: fmt.Sprintf("Started the driver %s of %s on %s: it joined while Reservation %s was Ready",
					d.Spec.Driver.Name, d.Label(), s.Name, in.Reservation)})
		}
	}

	if tel.Guider != nil {
		// The guider's pod comes back as StartGuider made it, as HealPods brings it back:
		// PHD2 connects its camera and mount again. One that runs is left alone.
		if name, err := kube.ValidObjectName(obsv1.KindGuider, tel.Guider.Name); err == nil && before[name] == nil {
			if _, err := a.StartGuider(ctx, in.StepInput); err != nil {
				return out, err
			}
		}
	}

	after, err := a.managedPods(ctx, in.Namespace)
	if err != nil {
		return out, err
	}
	for name, pod := range after {
		if _, ok := before[name]; ok || joined[name] || !servesOneOf(pod, servers) {
			continue
		}
		out.Created = append(out.Created, name)
		changed[pod.Labels[kube.LabelServer]] = true
		changed[name] = true // a server pod created again
		if ref := metav1.GetControllerOf(pod); ref != nil {
			a.postObsEvent(ctx, kube.ResourceID{Kind: obsv1.Kind(ref.Kind), Namespace: in.Namespace, Name: ref.Name, UID: ref.UID},
				kube.Event{Type: corev1.EventTypeNormal, Reason: ReasonPodCreated,
					Message: fmt.Sprintf("Created the pod %s again: it was deleted while Reservation %s was Ready", name, in.Reservation)})
		}
	}
	sort.Strings(out.Created)

	// Connected and configured again where anything changed: a server whose drivers
	// changed may have started again (dev mode), and Connect and Configure send nothing to
	// a device already as they leave it.
	for _, s := range servers {
		if !changed[s.Name] {
			continue
		}
		if len(s.Devices) > 0 {
			if _, err := a.connectAll(ctx, s, s.Devices); err != nil {
				return out, err
			}
		}
		if s.Owner.Kind == obsv1.KindObservatory {
			// A Dome that joined heeds the mounts and they heed it; one that left, they
			// no longer do.
			if _, err := a.writeDomePolicies(ctx, s); err != nil {
				return out, err
			}
		}
		if s.Owner.Kind == obsv1.KindTelescope {
			// Configure reads the telescope's server itself: the devices its pod links,
			// without a refused joiner.
			if _, err := a.Configure(ctx, in.StepInput); err != nil {
				return out, err
			}
		}
	}

	// Activation, for the joiners whose activation is Pending (this try's, or an earlier
	// one's whose drivers started), and again for those whose activation failed and that
	// have the retry annotation (its Done actions are not run again).
	for _, s := range servers {
		if !active[s.Name] {
			continue
		}
		for _, d := range s.Devices {
			u, err := a.resource(d.Kind, d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return out, fmt.Errorf("read the %s: %w", d.Label(), err)
			}
			var prior []obsv1.ActionRecord
			recs := statusProcedures(u)
			if retry := u.GetAnnotations()[kube.AnnotationRetry]; retry != "" {
				if failed := kube.FailedJoinerActivation(recs, in.Activated); failed != nil {
					// The annotation goes as the run starts, as a step's does.
					if err := a.removeRetry(ctx, d.Kind, d.Namespace, d.Name, retry); err != nil {
						return out, err
					}
					prior = append([]obsv1.ActionRecord{}, failed.Actions...)
				}
			}
			if prior != nil || kube.ActivationPending(recs, in.Activated) {
				if err := a.runDeviceProcedure(ctx, in.StepInput, s, d.ResourceID, kube.TriggerActivation, prior); err != nil {
					return out, err
				}
			}
		}
	}
	if len(out.Created)+len(out.Joined)+len(out.Left)+len(out.Refused) > 0 {
		logFor(ctx).Info("devices changed while Ready", "namespace", in.Namespace, "reservation", in.Reservation,
			"created", out.Created, "joined", out.Joined, "left", out.Left, "refused", out.Refused)
	}
	return out, nil
}

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

// markActivationPending records a joiner's activation as Pending, since when it joined, when
// it has activation actions.
func (a *Activities) markActivationPending(ctx context.Context, in StepInput, id kube.ResourceID) error {
	u, err := a.resource(id.Kind, id.Namespace).Get(ctx, id.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the %s %s/%s: %w", id.Kind, id.Namespace, id.Name, err)
	}
	spec, err := readProcSpec(u)
	if err != nil {
		return badSpec(id.Kind, id.Name, err)
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
	u, err := a.resource(id.Kind, id.Namespace).Get(ctx, id.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the %s %s/%s: %w", id.Kind, id.Namespace, id.Name, err)
	}
	spec, err := readProcSpec(u)
	if err != nil {
		return badSpec(id.Kind, id.Name, err)
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

// serverOf names the server that runs the device.
func serverOf(servers []stepServer, d stepDevice) string {
	for _, s := range servers {
		for _, x := range s.Devices {
			if x.Kind == d.Kind && x.Name == d.Name {
				return s.Name
			}
		}
	}
	return ""
}

func decodeRaw(raw []byte, into any) {
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, into)
	}
}
