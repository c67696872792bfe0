// Devices that join or leave a Ready reservation, and a running device deleted. A parent
// edit, or a device's delete, changes which devices a running INDI server should run. The
// workflow handles it as a plan whose every part is an activity of its own, so that the
// history shows each:
//
//   - PlanLiveDevices reads the servers and says, per server, who leaves, who joins and who
//     is refused (kube.PlanLiveDevices, from the server pod's drivers annotation), and
//     whether the Guider's pod is gone;
//   - LeaveDevice, for each leaver: its deactivation when it ran its activation (a failure
//     posts ProcedureFailed and the leave goes on), its driver stopped (DriverStopped on the
//     Telescope or Observatory), its pod, Service and claim deleted (PodDeleted on the
//     device) and its finalizer gone, unless another held server runs it;
//   - RefuseDevices: a joiner whose driver another device of the server holds, or whose
//     objects cannot be built, is refused: its phase is Error and its Ready condition says
//     why, and nothing is started for it;
//   - StartLiveDevices, for each server: the joiners' finalizers, pods, Services, claims and
//     drivers on the running server (DriverStarted), and what was deleted while Ready created
//     again (PodCreated); RestartGuider brings back the Guider's pod as StartGuider made it;
//   - ConnectLiveDevices (and Configure, for the telescope) where anything changed;
//   - ActivateDevice, for each joiner under an Active parent, and for each device whose
//     activation failed after it joined and that has the retry annotation.
package observatory

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// LiveInput is what the live plan works on: the reservation's step input (Started is when
// the workflow asked, the since of the procedures it runs) and when its Activation began.
type LiveInput struct {
	StepInput
	// Activated is the Activation step's startTime: a leaver that ran its activation since
	// then runs its deactivation.
	Activated time.Time
}

// LivePlan is what PlanLiveDevices found: each server's part, the telescope's last.
type LivePlan struct {
	Servers []LiveServer `json:",omitempty"`
	// Guider: the telescope's Guider has no pod; RestartGuider makes it again.
	Guider bool `json:",omitempty"`
	// Devices are the telescope's devices now, without a refused joiner, as
	// StepResult.Devices.
	Devices []string `json:",omitempty"`
}

// LiveServer is one INDI server's part of a live plan.
type LiveServer struct {
	// Owner is the Telescope or Observatory whose server pod is Server.
	Owner  kube.ResourceID
	Server string
	Leave  []kube.ResourceID `json:",omitempty"`
	Join   []kube.ResourceID `json:",omitempty"`
	Refuse []kube.Refusal    `json:",omitempty"`
	// Devices are what the server runs, as the plan read them, less the refused:
	// StartLiveDevices makes what of them is missing, and ConnectLiveDevices connects them. A
	// device that joins after the plan waits for the next one, which sees it join.
	Devices []kube.ResourceID `json:",omitempty"`
	// Run: the server has devices to run.
	Run bool `json:",omitempty"`
	// Active: the owner is Active, so its joiners run their activation, and so do the
	// devices in Activate (marked Pending by an earlier try, or failed after they joined and
	// given the retry annotation).
	Active   bool              `json:",omitempty"`
	Activate []kube.ResourceID `json:",omitempty"`
}

// LiveServerInput is one part of a live plan: the plan's input, the server's part, and the
// device that LeaveDevice and ActivateDevice work on.
type LiveServerInput struct {
	LiveInput
	Server LiveServer
	Device kube.ResourceID
}

// LiveStarted names the devices that joined, and the pods created again, as "Kind name" and
// pod names.
type LiveStarted struct {
	Joined  []string `json:",omitempty"`
	Created []string `json:",omitempty"`
}

// PlanLiveDevices reads the reservation's servers and says what each needs; it changes
// nothing.
func (a *Activities) PlanLiveDevices(ctx context.Context, in LiveInput) (LivePlan, error) {
	var plan LivePlan
	pods, err := a.managedPods(ctx, in.Namespace)
	if err != nil {
		return plan, err
	}
	servers, err := a.liveServers(ctx, in, pods)
	if err != nil {
		return plan, err
	}
	for _, s := range servers {
		part, err := a.planServer(ctx, in, s, pods)
		if err != nil {
			return plan, err
		}
		plan.Servers = append(plan.Servers, part)
	}
	tel := servers[len(servers)-1]
	tel.Devices = withoutRefused(tel.Devices, plan.Servers[len(servers)-1].Refuse)
	plan.Devices = telescopeLabels(tel)
	if tel.Guider != nil {
		// The guider's pod comes back as StartGuider made it; one that runs is left alone.
		if name, err := kube.ValidObjectName(obsv1.KindGuider, tel.Guider.Name); err == nil && pods[name] == nil {
			plan.Guider = true
		}
	}
	return plan, nil
}

// liveServers are the reservation's servers: the observatory's when it has devices or a
// pod, and the telescope's, last.
func (a *Activities) liveServers(ctx context.Context, in LiveInput, pods map[string]*corev1.Pod) ([]stepServer, error) {
	var servers []stepServer
	if in.Observatory != "" {
		s, err := a.readServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
		if err != nil {
			return nil, err
		}
		if len(s.Devices) > 0 || pods[s.Name] != nil {
			servers = append(servers, s)
		}
	}
	tel, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return nil, err
	}
	return append(servers, tel), nil
}

// planServer is one server's part: kube.PlanLiveDevices, with the joiners whose objects
// cannot be built refused too (the others still join), and the activations due.
func (a *Activities) planServer(ctx context.Context, in LiveInput, s stepServer, pods map[string]*corev1.Pod) (LiveServer, error) {
	part := LiveServer{Owner: s.Owner, Server: s.Name}
	running := runningDevices(pods, s.Name)
	// A server pod deleted while Ready links nothing known: StartLiveDevices creates it
	// again with every device, as a heal. (An Observatory's server that never ran, for want
	// of devices, starts for its first joiner.)
	if pods[s.Name] != nil || (s.Owner.Kind != obsv1.KindTelescope && len(running) == 0) {
		plan := kube.PlanLiveDevices(s.Name, liveDevices(s), linkedServices(pods[s.Name]), running)
		part.Refuse = plan.Refuse
		for _, j := range plan.Join {
			id := kube.ResourceID{Kind: j.Kind, Namespace: s.Owner.Namespace, Name: j.Name}
			if d, ok := deviceOf(s, id); ok {
				if msg := kube.BuildRefusal(d.DeviceRef); msg != "" {
					part.Refuse = append(part.Refuse, kube.Refusal{Device: j, Message: msg})
					continue
				}
				part.Join = append(part.Join, id)
			}
		}
		for _, l := range plan.Leave {
			part.Leave = append(part.Leave, kube.ResourceID{Kind: l.Kind, Namespace: s.Owner.Namespace, Name: l.Name})
		}
	}
	s.Devices = withoutRefused(s.Devices, part.Refuse)
	for _, d := range s.Devices {
		part.Devices = append(part.Devices, kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name})
	}
	part.Run = len(s.Devices) > 0
	var err error
	if part.Active, err = a.isActive(ctx, s.Owner); err != nil || !part.Active {
		return part, err
	}
	for _, d := range s.Devices {
		due, err := a.activationDue(ctx, d.ResourceID, in.Activated)
		if err != nil {
			return part, err
		}
		if due && !slices.Contains(part.Join, kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}) {
			part.Activate = append(part.Activate, kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name})
		}
	}
	return part, nil
}

// activationDue says whether a device's activation is to run while Ready: marked Pending, or
// failed after it joined and given the retry annotation (since is when the reservation's
// Activation began).
func (a *Activities) activationDue(ctx context.Context, id kube.ResourceID, since time.Time) (bool, error) {
	u, err := a.resource(id.Kind, id.Namespace).Get(ctx, id.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the %s %s: %w", id.Kind, id.Name, err)
	}
	recs := statusProcedures(u)
	return kube.ActivationPending(recs, since) ||
		u.GetAnnotations()[kube.AnnotationRetry] != "" && kube.FailedJoinerActivation(recs, since) != nil, nil
}
