// Ready: a reservation holds its telescope until spec.end or a delete. All the while, one
// long activity (ObserveDevices) mirrors what the drivers report into the devices' status,
// the triggers run (reservation_triggers.go), and each change the watcher signals makes it
// handle what changed under it: the devices that joined or left, and what was deleted,
// created again.
package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
)

// hold keeps the telescope Ready until the reservation ends. Its devices are observed all
// the while, and no longer: the observer stops before deactivation begins, or before the run
// continues as new (whose hold starts it again).
func (r *reservation) hold() error {
	if err := r.write(); err != nil {
		return err
	}
	// The triggers live from here until deactivation begins (or the run continues as new,
	// whose hold starts them again); the observer tells them when a condition changes.
	triggers := r.triggers()
	defer triggers.stop()
	stop := r.observe(triggers.on)
	defer stop()
	for r.endReason(true) == "" {
		if err := r.continueAsNewIfLong(); err != nil {
			return err
		}
		if err := r.await(triggers.add); err != nil {
			return err
		}
		if r.endReason(true) != "" {
			break
		}
		if r.woke.changed && !r.woke.onlyConditions {
			r.heal()
		}
		if r.woke.changed {
			triggers.request()
		}
	}
	return nil
}

// heal creates again what was deleted while Ready (a signal from the watcher about a pod, or
// any other look): HealPods is level-triggered, and does nothing when nothing is missing. A
// heal that fails leaves things as they are, and the next change tries again.
func (r *reservation) heal() {
	if workflow.GetVersion(r.ctx, "heal-while-ready", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	if workflow.GetVersion(r.ctx, "live-devices", workflow.DefaultVersion, 1) == 1 {
		r.liveDevices()
		return
	}
	in := r.stepInput("Heal")
	actx := workflow.WithActivityOptions(r.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: healTimeout,
		HeartbeatTimeout:    stepHeartbeatTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
		Summary:             "create again what was deleted of Telescope " + r.telescope,
	})
	var res activities.HealResult
	if err := workflow.ExecuteActivity(actx, a.HealPods, in).Get(r.ctx, &res); err != nil {
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
	in := activities.LiveInput{StepInput: r.stepInput("LiveDevices")}
	if rec := kube.FindStep(&r.status, kube.StepActivation); rec != nil && rec.StartTime != nil {
		in.Activated = rec.StartTime.Time
	}
	actx := workflow.WithActivityOptions(r.ctx, workflow.ActivityOptions{
		StartToCloseTimeout: liveDevicesTimeout,
		HeartbeatTimeout:    stepHeartbeatTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
		Summary:             "the devices that join or leave " + r.servers() + ", and what was deleted",
	})
	var res activities.LiveResult
	if err := workflow.ExecuteActivity(actx, a.LiveDevices, in).Get(r.ctx, &res); err != nil {
		workflow.GetLogger(r.ctx).Warn("could not handle the devices that joined or left; the next change tries again",
			"reservation", r.in.Namespace+"/"+r.in.Name, "err", err)
		return
	}
	if res.Devices != nil {
		r.devices = res.Devices
	}
	if len(res.Created)+len(res.Joined)+len(res.Left)+len(res.Refused) > 0 {
		workflow.GetLogger(r.ctx).Info("devices changed while Ready", "reservation", r.in.Namespace+"/"+r.in.Name,
			"created", res.Created, "joined", res.Joined, "left", res.Left, "refused", res.Refused)
	}
}

// liveDevicesTimeout bounds LiveDevices: a heal's pods and connections, and the joiners'
// activation and the leavers' deactivation, whose actions each default to 10 minutes. The
// hold waits for it, so a reservation that ends meanwhile deactivates after it.
const liveDevicesTimeout = 30 * time.Minute

// observeOptions run ObserveDevices, which heartbeats every second and runs until cancelled.
// A worker that dies is noticed after HeartbeatTimeout, which also bounds how long the end of
// a reservation waits for its observer to stop (WaitForCancellation: no status write from it
// lands after deactivation began). An attempt lasts at most StartToCloseTimeout, and a new one
// follows for a longer reservation; retries never stop, so a lost INDI server is observed
// again when it is back.
var observeOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 24 * time.Hour,
	HeartbeatTimeout:    10 * time.Second,
	WaitForCancellation: true,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute,
	},
}

// observe starts ObserveDevices, which writes the status of the telescope's and the
// observatory's devices while the reservation is Ready, and returns what stops it. The
// observer is a window on the devices, not a part of the lifecycle: its failure is logged
// and never fails the reservation.
func (r *reservation) observe(tellConditions bool) (stop func()) {
	if workflow.GetVersion(r.ctx, "observe-devices", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return func() {}
	}
	in := r.stepInput("Observe")
	if tellConditions {
		in.ConditionSignal = ReservationChanged
	}
	ctx, cancel := workflow.WithCancel(r.ctx)
	opts := observeOptions
	opts.Summary = "the status of the devices of " + r.servers() + ", while Ready"
	f := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), a.ObserveDevices, in)
	stopped := false
	workflow.Go(r.ctx, func(gctx workflow.Context) {
		if err := f.Get(gctx, nil); err != nil && !stopped {
			workflow.GetLogger(gctx).Warn("the devices are no longer observed; the reservation goes on",
				"reservation", r.in.Namespace+"/"+r.in.Name, "err", err)
		}
	})
	return func() {
		stopped = true
		cancel()
		_ = f.Get(r.ctx, nil)
	}
}
