// What changes under a Ready reservation: at each change the watcher signals (a pod
// deleted, a device edited, joined or gone), heal makes it right, level-triggered, doing
// nothing when nothing changed. PlanLiveDevices says what joined, left or was deleted, and
// heal runs each part of the plan as an activity of its own, in order, so the history shows
// every leave, join, connect and activation with words of its own.
package workflows

import (
	"slices"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// livePartTimeout bounds one part of a live plan: a leaver's deactivation or a joiner's
// activation, whose actions each default to 10 minutes, or a server's pods back and Ready.
// The hold waits for it, so a reservation that ends meanwhile deactivates after it.
const livePartTimeout = 30 * time.Minute

// liveOptions run one part of a live plan. A part that fails its attempts ends the plan
// there, as it leaves things; the next change plans again.
var liveOptions = workflow.ActivityOptions{
	StartToCloseTimeout: livePartTimeout,
	HeartbeatTimeout:    stepHeartbeatTimeout,
	RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
}

// heal handles the devices that joined or left while Ready, and what was deleted: it plans,
// then runs the plan's parts. Like every heal, one that fails leaves things as they are,
// and the next change tries again.
func (r *reservation) heal() {
	in := r.liveInput()
	var plan observatory.LivePlan
	err := r.livePart("what joined, left or was deleted of "+r.servers(), observatoryActs.PlanLiveDevices, in, &plan)
	if err == nil {
		if plan.Devices != nil {
			r.devices = plan.Devices
		}
		run := liveRun{r: r, in: in, changed: map[string]bool{}}
		err = run.all(plan)
		run.log()
	}
	if err != nil {
		workflow.GetLogger(r.ctx).Warn("could not handle the devices that joined or left; the next change tries again",
			"reservation", r.in.Namespace+"/"+r.in.Name, "err", err)
	}
}

// liveInput is what a live plan works on: when the Activation began (a leaver that ran its
// activation since then runs its deactivation).
func (r *reservation) liveInput() observatory.LiveInput {
	in := observatory.LiveInput{StepInput: r.stepInput("LiveDevices")}
	if rec := kube.FindStep(&r.status, kube.StepActivation); rec != nil && rec.StartTime != nil {
		in.Activated = rec.StartTime.Time
	}
	return in
}

// livePart runs one part of a live plan, and waits for it.
func (r *reservation) livePart(summary string, fn, in, out any) error {
	opts := liveOptions
	opts.Summary = summary
	return workflow.ExecuteActivity(workflow.WithActivityOptions(r.ctx, opts), fn, in).Get(r.ctx, out)
}

// liveRun runs one plan's parts. It keeps what they did, as "Kind name" (pod names for
// created), and the servers whose drivers changed, which connect again.
type liveRun struct {
	r                              *reservation
	in                             observatory.LiveInput
	created, joined, left, refused []string
	changed                        map[string]bool
}

// all runs the parts in order, and stops at the first that fails: each leaver's leave, the
// refusals, each server's bring-up, the Guider's pod, connect and configure where the
// drivers changed, then the activations.
func (l *liveRun) all(plan observatory.LivePlan) error {
	for _, s := range plan.Servers {
		if err := l.leaveAndRefuse(s); err != nil {
			return err
		}
	}
	for _, s := range plan.Servers {
		if err := l.start(s); err != nil {
			return err
		}
	}
	if plan.Guider && len(plan.Servers) > 0 {
		if err := l.restartGuider(plan.Servers[len(plan.Servers)-1]); err != nil {
			return err
		}
	}
	sort.Strings(l.created)
	for _, s := range plan.Servers {
		if err := l.connect(s); err != nil {
			return err
		}
	}
	for _, s := range plan.Servers {
		if err := l.activate(s); err != nil {
			return err
		}
	}
	return nil
}

func (l *liveRun) part(s observatory.LiveServer, d kube.ResourceID) observatory.LiveServerInput {
	return observatory.LiveServerInput{LiveInput: l.in, Server: s, Device: d}
}

// leaveAndRefuse runs the server's leavers' leaves, and refuses its refused joiners.
func (l *liveRun) leaveAndRefuse(s observatory.LiveServer) error {
	for _, d := range s.Leave {
		what := label(d.Kind, d.Name) + " leaves " + label(s.Owner.Kind, s.Owner.Name) +
			": its deactivation, its driver stopped, its pod deleted"
		if err := l.r.livePart(what, observatoryActs.LeaveDevice, l.part(s, d), nil); err != nil {
			return err
		}
		l.left, l.changed[s.Server] = append(l.left, label(d.Kind, d.Name)), true
	}
	if len(s.Refuse) == 0 {
		return nil
	}
	var refused []string
	for _, r := range s.Refuse {
		refused = append(refused, label(r.Device.Kind, r.Device.Name))
	}
	what := "refuse " + strings.Join(refused, ", ") + " on " + label(s.Owner.Kind, s.Owner.Name) + ": say why on each"
	if err := l.r.livePart(what, observatoryActs.RefuseDevices, l.part(s, kube.ResourceID{}), nil); err != nil {
		return err
	}
	l.refused = append(l.refused, refused...)
	return nil
}

// start brings up a server that has devices to run: its joiners, and what was deleted.
func (l *liveRun) start(s observatory.LiveServer) error {
	if !s.Run {
		return nil
	}
	var joiners []string
	for _, j := range s.Join {
		joiners = append(joiners, label(j.Kind, j.Name))
	}
	what := "create again what was deleted of " + label(s.Owner.Kind, s.Owner.Name)
	if len(joiners) > 0 {
		what = strings.Join(joiners, ", ") + " joining " + label(s.Owner.Kind, s.Owner.Name) +
			": pods and drivers; and create again what was deleted"
	}
	var started observatory.LiveStarted
	if err := l.r.livePart(what, observatoryActs.StartLiveDevices, l.part(s, kube.ResourceID{}), &started); err != nil {
		return err
	}
	l.joined, l.created = append(l.joined, started.Joined...), append(l.created, started.Created...)
	l.changed[s.Server] = l.changed[s.Server] || len(started.Joined)+len(started.Created) > 0
	return nil
}

// restartGuider brings back the Guider's pod of the telescope's server tel.
func (l *liveRun) restartGuider(tel observatory.LiveServer) error {
	what := "the Guider's pod of Telescope " + l.in.Telescope + ", again, as StartGuider made it"
	var started observatory.LiveStarted
	if err := l.r.livePart(what, observatoryActs.RestartGuider, l.in, &started); err != nil {
		return err
	}
	l.created = append(l.created, started.Created...)
	l.changed[tel.Server] = l.changed[tel.Server] || len(started.Created) > 0
	return nil
}

// connect connects the devices of a server whose drivers changed, and configures the
// telescope's (Configure reads the telescope's server itself: the devices its pod links,
// without a refused joiner).
func (l *liveRun) connect(s observatory.LiveServer) error {
	if !l.changed[s.Server] {
		return nil
	}
	owner := label(s.Owner.Kind, s.Owner.Name)
	if err := l.r.livePart("connect the devices of "+owner+" again, its drivers changed",
		observatoryActs.ConnectLiveDevices, l.part(s, kube.ResourceID{}), nil); err != nil {
		return err
	}
	if s.Owner.Kind != obsv1.KindTelescope {
		return nil
	}
	return l.r.livePart("configure the devices of "+owner+" again, its drivers changed", observatoryActs.Configure, l.in.StepInput, nil)
}

// activate runs the activations under an Active owner: its joiners', and those due.
func (l *liveRun) activate(s observatory.LiveServer) error {
	if !s.Active {
		return nil
	}
	for _, d := range append(slices.Clone(s.Join), s.Activate...) {
		what := "the activation of " + label(d.Kind, d.Name) + ", now part of " + label(s.Owner.Kind, s.Owner.Name)
		if err := l.r.livePart(what, observatoryActs.ActivateDevice, l.part(s, d), nil); err != nil {
			return err
		}
	}
	return nil
}

func (l *liveRun) log() {
	if len(l.created)+len(l.joined)+len(l.left)+len(l.refused) > 0 {
		workflow.GetLogger(l.r.ctx).Info("devices changed while Ready", "reservation", l.r.in.Namespace+"/"+l.r.in.Name,
			"created", l.created, "joined", l.joined, "left", l.left, "refused", l.refused)
	}
}

// label names a resource as the summaries do: "Rotator east-main".
func label(kind obsv1.Kind, name string) string { return string(kind) + " " + name }
