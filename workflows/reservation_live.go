// What changes under a Ready reservation: at each change the watcher signals (a pod
// deleted, a device edited, joined or gone), heal makes it right, level-triggered, doing
// nothing when nothing changed. Today that is a live plan (livePlan): PlanLiveDevices says
// what joined, left or was deleted, and each part of the plan is an activity of its own, so
// the history shows every leave, join, connect and activation with words of its own. Runs
// from before the plan replay as they ran: one LiveDevices activity, or, older still,
// HealPods.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/kube"
)

// heal makes right what changed under a Ready reservation (a signal from the watcher about
// a pod or a device, or any other look). Each way is level-triggered, and does nothing when
// nothing changed; which runs depends on when the run began, each gated so that its history
// replays: nothing at all, HealPods, one LiveDevices, and today the live plan.
func (r *reservation) heal() {
	switch {
	case workflow.GetVersion(r.ctx, "heal-while-ready", workflow.DefaultVersion, 1) == workflow.DefaultVersion:
	case workflow.GetVersion(r.ctx, "live-devices", workflow.DefaultVersion, 1) == workflow.DefaultVersion:
		r.healPods()
	case workflow.GetVersion(r.ctx, "live-plan", workflow.DefaultVersion, 1) == workflow.DefaultVersion:
		r.liveDevices()
	default:
		r.livePlan()
	}
}

// healPods creates again what was deleted while Ready. A heal that fails leaves things as
// they are, and the next change tries again.
func (r *reservation) healPods() {
	in := r.stepInput("Heal")
	actx := workflow.WithActivityOptions(r.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: healTimeout,
		HeartbeatTimeout:    stepHeartbeatTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
		Summary:             "create again what was deleted of Telescope " + r.telescope,
	})
	var res observatory.HealResult
	if err := workflow.ExecuteActivity(actx, observatoryActs.HealPods, in).Get(r.ctx, &res); err != nil {
		workflow.GetLogger(r.ctx).Warn("could not create again what was deleted; the next change tries again",
			"reservation", r.in.Namespace+"/"+r.in.Name, "err", err)
		return
	}
	if len(res.Created) > 0 {
		workflow.GetLogger(r.ctx).Info("created pods again", "reservation", r.in.Namespace+"/"+r.in.Name, "pods", res.Created)
	}
}

// healTimeout bounds a heal: pods back and Ready, drivers connected and configured.
const healTimeout = 5 * time.Minute

// liveDevices handles the devices that joined or left while Ready, as the spec's "While
// Ready" says: a leaver's deactivation, driver stopped and pods deleted; a joiner's pods,
// driver started, connect, configure and activation; a joiner whose driver is held, refused.
// It also creates again what was deleted, as HealPods does. Like a heal, one that fails
// leaves things as they are, and the next change tries again.
func (r *reservation) liveDevices() {
	in := r.liveInput()
	var res observatory.LiveResult
	if err := r.livePart("the devices that join or leave "+r.servers()+", and what was deleted", observatoryActs.LiveDevices, in, &res); err != nil {
		workflow.GetLogger(r.ctx).Warn("could not handle the devices that joined or left; the next change tries again",
			"reservation", r.in.Namespace+"/"+r.in.Name, "err", err)
		return
	}
	if res.Devices != nil {
		r.devices = res.Devices
	}
	r.logLiveResult(res)
}

// liveDevicesTimeout bounds LiveDevices: a heal's pods and connections, and the joiners'
// activation and the leavers' deactivation, whose actions each default to 10 minutes. The
// hold waits for it, so a reservation that ends meanwhile deactivates after it.
const liveDevicesTimeout = 30 * time.Minute

// liveOptions run one part of a live plan: a leaver's deactivation or a joiner's activation,
// whose actions each default to 10 minutes, or a server's pods back and Ready. A part that
// fails its attempts ends the plan there, as it leaves things; the next change plans again.
var liveOptions = workflow.ActivityOptions{
	StartToCloseTimeout: liveDevicesTimeout,
	HeartbeatTimeout:    stepHeartbeatTimeout,
	RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
}

// liveActivities are the activities of the parts of a live plan, by the part's name (which
// is the activity's registered name).
var liveActivities = map[observatory.LiveStep]any{
	observatory.LiveLeave:     observatoryActs.LeaveDevice,
	observatory.LiveRefuse:    observatoryActs.RefuseDevices,
	observatory.LiveStart:     observatoryActs.StartLiveDevices,
	observatory.LiveGuider:    observatoryActs.RestartGuider,
	observatory.LiveConnect:   observatoryActs.ConnectLiveDevices,
	observatory.LiveConfigure: observatoryActs.Configure,
	observatory.LiveActivate:  observatoryActs.ActivateDevice,
}

// livePlan handles the devices that joined or left while Ready, and what was deleted, as the
// spec's "While Ready" says, one recorded activity per part (observatory.RunLivePlan runs
// them in order). Like a heal, one that fails leaves things as they are, and the next change
// tries again.
func (r *reservation) livePlan() {
	in := r.liveInput()
	var plan observatory.LivePlan
	err := r.livePart("what joined, left or was deleted of "+r.servers(), observatoryActs.PlanLiveDevices, in, &plan)
	if err == nil {
		if plan.Devices != nil {
			r.devices = plan.Devices
		}
		var res observatory.LiveResult
		res, err = observatory.RunLivePlan(plan, in, func(step observatory.LiveStep, part observatory.LiveServerInput) (observatory.LiveStarted, error) {
			var out observatory.LiveStarted
			var arg, result any = part, nil
			switch step {
			case observatory.LiveStart:
				result = &out
			case observatory.LiveGuider:
				arg, result = part.LiveInput, &out
			case observatory.LiveConfigure:
				arg = part.StepInput
			}
			return out, r.livePart(LiveStepSummary(step, part), liveActivities[step], arg, result)
		})
		r.logLiveResult(res)
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

func (r *reservation) logLiveResult(res observatory.LiveResult) {
	if len(res.Created)+len(res.Joined)+len(res.Left)+len(res.Refused) > 0 {
		workflow.GetLogger(r.ctx).Info("devices changed while Ready", "reservation", r.in.Namespace+"/"+r.in.Name,
			"created", res.Created, "joined", res.Joined, "left", res.Left, "refused", res.Refused)
	}
}
