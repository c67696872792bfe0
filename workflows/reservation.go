// Reservation is the lifecycle of one Reservation, as one workflow per Reservation (ID
// reservation/<ns>/<name>): it adds the deactivate finalizer, waits for spec.start on a durable
// timer, takes the telescope from the telescope's lock (see telescope.go), runs the activation
// steps, holds the telescope Ready until spec.end (another durable timer) or a delete of the
// Reservation, its Telescope or its Observatory, runs the deactivation steps and releases the
// telescope. Each working step is its own activity with the spec's deadline, counted from the
// step's recorded startTime. The four steps that touch the observatory's site (StartSite,
// Activation, Deactivation, StopSite) first take a turn from the observatory's lock (see
// observatory.go), which decides whether this reservation does the site's part.
//
// The watcher signals ReservationChanged at every change that matters; as for a Person, a
// signal only means "look again": the workflow reads the Reservation (and whether its Telescope
// and Observatory are there) through an activity, so a missed or repeated signal does no harm.
// The status is composed by the pure functions in kube/reservation_status.go and written only
// when it changes, with its Events. While Ready, one long activity (ObserveDevices) mirrors
// what the drivers report into the devices' status; it stops when the reservation ends.
//
// A step that fails leaves things as they are: the reservation is Failed and waits for the
// retry annotation (which it removes as the step starts again) or, during activation, for its
// end, which deactivates from Abort. A failed deactivation step keeps the finalizer and waits
// for the retry annotation only. A reservation is bounded (a handful of steps, a few events per
// signal), so a run normally ends without continuing as new; a reservation held for a very long
// time, with many signals, continues as new while Ready or Failed, and the new run resumes from
// the status it wrote.
package workflows

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const (
	// ReservationWorkflow is the registered name of Reservation.
	ReservationWorkflow = "Reservation"
	// ReservationChanged is the signal the watcher sends; its payload is a ReservationChange.
	ReservationChanged = "reservation-changed"
	// ReservationStatusQuery answers with the status as the workflow last composed it.
	ReservationStatusQuery = "status"
)

// The search attributes a reservation keeps up to date, so the Temporal UI can list the
// reservations of a telescope or a holder, or those in a phase or a step. They must be
// registered on the server (Keyword): SearchAttributes lists them for `make run` and
// deploy/temporal.
var (
	SearchTelescope = temporal.NewSearchAttributeKeyKeyword("Telescope")
	SearchHolder    = temporal.NewSearchAttributeKeyKeyword("Holder")
	SearchPhase     = temporal.NewSearchAttributeKeyKeyword("Phase")
	SearchStep      = temporal.NewSearchAttributeKeyKeyword("Step")
)

// SearchAttributes names each search attribute the workflows use and its type, as
// `temporal operator search-attribute create` and the dev server's --search-attribute take them.
var SearchAttributes = map[string]string{
	"Telescope": "Keyword",
	"Holder":    "Keyword",
	"Phase":     "Keyword",
	"Step":      "Keyword",
}

// ReservationWorkflowID is the stable workflow ID of a Reservation's lifecycle.
func ReservationWorkflowID(namespace, name string) string {
	return "reservation/" + namespace + "/" + name
}

// ReservationChange is what the watcher saw. The workflow reads the Reservation again anyway;
// the fields make the history readable in the Temporal UI.
type ReservationChange struct {
	UID        string `json:"uid,omitempty"`
	Generation int64  `json:"generation,omitempty"`
	// Retry is the value of the retry annotation.
	Retry              string `json:"retry,omitempty"`
	Deleted            bool   `json:"deleted,omitempty"`
	TelescopeDeleted   bool   `json:"telescopeDeleted,omitempty"`
	ObservatoryDeleted bool   `json:"observatoryDeleted,omitempty"`
	// Why is the watcher's word for the change: added, updated, deleted, telescope,
	// observatory, resync.
	Why string `json:"why,omitempty"`
}

// ReservationInput starts (or continues) a Reservation's workflow. A continued run needs
// nothing else: it resumes from the status the previous run wrote.
type ReservationInput struct {
	Namespace string
	Name      string
}

// bookkeeping is for the quick API calls around the steps (read, finalizer, status, retry
// annotation, coordinator signals): local activities, because each takes milliseconds. Ten
// minutes of retries ride over a restarting API server; after that the run fails, and the
// watcher's next signal starts a new run that resumes from the status.
var bookkeeping = workflow.LocalActivityOptions{
	ScheduleToCloseTimeout: 10 * time.Minute,
	StartToCloseTimeout:    30 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
	},
}

// stepRetry retries a step's transient errors until its deadline; the non-retryable types
// are a user's to fix.
var stepRetry = &temporal.RetryPolicy{
	InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second,
	NonRetryableErrorTypes: []string{activities.ErrStepFailed, activities.ErrStepTimedOut},
}

// stepHeartbeatTimeout notices a dead worker within half a minute: the steps heartbeat every
// activities.StepHeartbeatEvery.
var stepHeartbeatTimeout = 3 * activities.StepHeartbeatEvery

// stepDeadline is the spec's deadline of a step; a variable so a test on a real server can
// see a deadline pass in seconds.
var stepDeadline = kube.StepDeadline

// perActionStepLimit bounds Activation and Deactivation, whose actions each have their own
// deadline (the activity enforces them); this only stops a step that never returns.
var perActionStepLimit = 6 * time.Hour

// A long-held reservation continues as new when Temporal suggests it, when its history passes
// reservationHistoryLimit events, or after reservationReadLimit reads (a signal answered is
// about six events, and the count is what the test environment can check). Variables for
// tests.
var (
	reservationHistoryLimit = 5000
	reservationReadLimit    = 600
)

// stepActivities maps each working step to its activity; the activity's name is the step's.
var stepActivities = map[string]any{
	kube.StepStartSite:    a.StartSite,
	kube.StepPowerOn:      a.PowerOn,
	kube.StepStartDevices: a.StartDevices,
	kube.StepConnect:      a.Connect,
	kube.StepConfigure:    a.Configure,
	kube.StepActivation:   a.Activation,
	kube.StepStartGuider:  a.StartGuider,
	kube.StepAbort:        a.Abort,
	kube.StepDeactivation: a.Deactivation,
	kube.StepStopGuider:   a.StopGuider,
	kube.StepDisconnect:   a.Disconnect,
	kube.StepStopDevices:  a.StopDevices,
	kube.StepPowerOff:     a.PowerOff,
	kube.StepStopSite:     a.StopSite,
}

// siteOps are the steps that take a turn from the observatory's lock.
var siteOps = map[string]SiteOp{
	kube.StepStartSite:    SiteStart,
	kube.StepActivation:   SiteActivate,
	kube.StepDeactivation: SiteDeactivate,
	kube.StepStopSite:     SiteStop,
}

// Reservation runs one Reservation from its start to its release.
func Reservation(ctx workflow.Context, in ReservationInput) error {
	r := &reservation{
		ctx:         ctx,
		in:          in,
		ref:         activities.ReservationRef{Namespace: in.Namespace, Name: in.Name},
		changes:     workflow.GetSignalChannel(ctx, ReservationChanged),
		telAnswers:  workflow.GetSignalChannel(ctx, TelescopeAnswers),
		siteAnswers: workflow.GetSignalChannel(ctx, SiteAnswers),
	}
	if err := workflow.SetQueryHandler(ctx, ReservationStatusQuery, func() (obsv1.ReservationStatus, error) {
		return r.status, nil
	}); err != nil {
		return err
	}
	return r.run()
}

// reservation is one run's state.
type reservation struct {
	ctx workflow.Context
	in  ReservationInput
	ref activities.ReservationRef

	changes, telAnswers, siteAnswers workflow.ReceiveChannel

	// state is the Reservation as last read.
	state activities.ReservationState
	// status is what the workflow composed; written what the Reservation holds.
	status, written obsv1.ReservationStatus
	// telescope and holder stay as last read, for a Reservation that is gone.
	telescope, holder string
	// observatory is the Telescope's, from when the reservation took it.
	observatory string
	endpoint    *obsv1.Endpoint
	// devices are the telescope's, as PowerOn and LiveDevices last said in this run, for
	// the summaries of the steps.
	devices []string

	// endTimer fires at spec.end; endArmed is the end it was armed for.
	endTimer workflow.Future
	endArmed time.Time
	// why the reservation ended, once it did.
	why string

	reads int
	// changed: the last await ended on a change signal; onlyConditions: every change it
	// took said a device's condition changed (WhyCondition), and the Reservation was not read.
	changed, onlyConditions bool
	seq                     int
	telToken, siteTok       string
	searched                [4]string
	searchedOnce            bool
	holdingTheSiteTurn      bool
}

func (r *reservation) run() error {
	if err := r.read(); err != nil {
		return err
	}
	st := r.state
	if st.Status.Phase != "" && !st.Gone && workflow.GetVersion(r.ctx, "search-every-run", workflow.DefaultVersion, 1) == 1 {
		// A run that resumes a status (continued as new, or started again after its end)
		// carries the search attributes from its start, so a list filtered by Telescope or
		// Holder finds it too. A new reservation's first status write sets them.
		r.status = st.Status
		r.upsertSearch()
	}
	switch {
	case st.Gone:
		return nil
	case st.Status.Phase == obsv1.ReservationReleased:
		// Released before (by its end, or by a run that stopped before the last write):
		// nothing holds it any more.
		return r.removeFinalizer(obsv1.KindReservation, r.in.Name, st.UID)
	case st.Deleting && !st.HasFinalizer && len(st.Status.Steps) == 0:
		// Deleted before the runner took it on: nothing to undo, nothing to hold.
		return nil
	}
	if !st.Deleting && !st.HasFinalizer {
		if _, err := r.addFinalizer(obsv1.KindReservation, r.in.Name, st.UID); err != nil {
			return err
		}
	}
	r.written = st.Status
	r.status = kube.ReservationBegun(st.Status)
	if err := r.write(); err != nil {
		return err
	}

	if !kube.Ended(&r.status) {
		took, err := r.wait()
		if err != nil {
			return err
		}
		if !took {
			r.status = kube.ReservationEnded(r.status, r.now())
			if err := r.write(); err != nil {
				return err
			}
			return r.removeFinalizer(obsv1.KindReservation, r.in.Name, r.state.UID)
		}
		ended, err := r.activate()
		if err != nil {
			return err
		}
		if !ended {
			if err := r.hold(); err != nil {
				return err
			}
		}
	} else {
		r.observatory = r.state.Observatory.Name
	}
	if err := r.deactivate(); err != nil {
		return err
	}
	return r.release()
}

// wait is the Wait step: the start, a Telescope and Observatory that exist and are not being
// deleted, and the telescope's lock. It says whether the reservation took the telescope (or
// ended first).
func (r *reservation) wait() (bool, error) {
	w := kube.FindStep(&r.status, kube.StepWait)
	// resumed: a run that continued as new holds the telescope already; it asks the lock
	// again (which grants a holder at once) without touching the recorded step.
	resumed := w != nil && w.State == obsv1.RunDone
	if !resumed && w != nil && w.State != obsv1.RunRunning {
		r.status = kube.StepRunning(r.status, kube.StepWait, "", r.now())
	}
	requested := false
	heldBy := ""
	var startTimer workflow.Future
	var startCancel workflow.CancelFunc
	var startArmed time.Time
	for {
		if why := r.endReason(resumed); why != "" {
			if requested {
				if err := r.signalTelescope(TelescopeRelease); err != nil {
					return false, err
				}
			}
			return resumed, nil
		}
		now := r.now()
		st := r.state
		tel, obs := "Telescope "+st.Telescope.Name, "Observatory "+st.Observatory.Name
		summary, free := "", false
		switch {
		case st.Spec.Start != nil && now.Before(st.Spec.Start.Time):
			start := st.Spec.Start.UTC()
			summary = "Waiting until " + start.Format(time.RFC3339)
			if startTimer == nil || !startArmed.Equal(start) {
				if startCancel != nil {
					startCancel()
				}
				startTimer, startCancel = timer(r.ctx, start.Sub(now), "start at "+at(start))
				startArmed = start
			}
		case !st.Telescope.Exists:
			summary = "Missing " + tel
		case st.Telescope.Deleting:
			summary = tel + " is being deleted"
		case !st.Observatory.Exists:
			summary = "Missing " + obs
		case st.Observatory.Deleting:
			summary = obs + " is being deleted"
		default:
			free = true
		}
		switch {
		case !free && requested:
			// It no longer counts among the waiters.
			if err := r.signalTelescope(TelescopeRelease); err != nil {
				return false, err
			}
			requested, heldBy = false, ""
		case free && !requested:
			r.telToken = r.token()
			if err := r.signalTelescope(TelescopeTake); err != nil {
				return false, err
			}
			requested = true
		}
		if free {
			summary = "Waiting for " + tel
			if heldBy != "" {
				summary = fmt.Sprintf("%s is held by Reservation %s", tel, heldBy)
			}
		}
		if !resumed {
			r.status = kube.StepSummary(r.status, kube.StepWait, summary)
			if err := r.write(); err != nil {
				return false, err
			}
		}

		granted := false
		err := r.await(func(sel workflow.Selector) {
			if startTimer != nil {
				sel.AddFuture(startTimer, func(workflow.Future) { startTimer, startCancel = nil, nil })
			}
			if requested {
				sel.AddReceive(r.telAnswers, func(c workflow.ReceiveChannel, _ bool) {
					var ans TelescopeAnswer
					c.Receive(r.ctx, &ans)
					switch {
					case ans.Token != r.telToken:
						// An answer to an earlier request, which this run withdrew.
					case ans.Granted:
						granted = true
					default:
						heldBy = ans.Holder
					}
				})
			}
		})
		if err != nil {
			return false, err
		}
		if !granted {
			continue
		}
		// Taken: check again that the telescope may be held, then hold its finalizer, so
		// its delete waits for the deactivation. When it may not, give it back and look again.
		if err := r.read(); err != nil {
			return false, err
		}
		took := r.endReason(resumed) == "" && r.state.Telescope.Exists && !r.state.Telescope.Deleting &&
			r.state.Observatory.Exists && !r.state.Observatory.Deleting
		if took {
			res, err := r.addFinalizer(obsv1.KindTelescope, r.state.Telescope.Name, "")
			if err != nil {
				return false, err
			}
			took = !res.Gone && !res.Deleting
		}
		if !took {
			if err := r.signalTelescope(TelescopeRelease); err != nil {
				return false, err
			}
			requested, heldBy = false, ""
			if err := r.read(); err != nil {
				return false, err
			}
			continue
		}
		if startCancel != nil {
			startCancel()
		}
		r.observatory = r.state.Observatory.Name
		if !resumed {
			r.status = kube.StepEnded(r.status, kube.StepWait, obsv1.RunDone, "Took "+tel, nil, r.now())
		}
		return true, r.write()
	}
}

// activate runs the activation steps after Wait. It says whether the reservation ended
// before it was Ready.
func (r *reservation) activate() (bool, error) {
	for _, step := range kube.ActivationSteps[1:] {
		if done(kube.FindStep(&r.status, step)) {
			continue
		}
		ended, err := r.runUntilDone(step)
		if err != nil || ended {
			return ended, err
		}
	}
	return false, r.write()
}

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
		if r.changed && !r.onlyConditions {
			r.heal()
		}
		if r.changed {
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
	in := activities.StepInput{
		Namespace: r.in.Namespace, Reservation: r.in.Name, UID: r.state.UID, Holder: r.holder,
		Telescope: r.telescope, Observatory: r.observatory, Step: "Heal", Started: r.now(),
	}
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
	in := activities.LiveInput{StepInput: activities.StepInput{
		Namespace: r.in.Namespace, Reservation: r.in.Name, UID: r.state.UID, Holder: r.holder,
		Telescope: r.telescope, Observatory: r.observatory, Step: "LiveDevices", Started: r.now(),
	}}
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
	in := activities.StepInput{
		Namespace: r.in.Namespace, Reservation: r.in.Name, UID: r.state.UID, Holder: r.holder,
		Telescope: r.telescope, Observatory: r.observatory, Step: "Observe", Started: r.now(),
	}
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

// deactivate appends the deactivation steps and runs them.
func (r *reservation) deactivate() error {
	r.why = r.endReason(true)
	r.status = kube.ReservationEnded(r.status, r.now())
	if err := r.write(); err != nil {
		return err
	}
	for _, step := range kube.DeactivationSteps {
		if done(kube.FindStep(&r.status, step)) {
			continue
		}
		if _, err := r.runUntilDone(step); err != nil {
			return err
		}
	}
	return nil
}

// release ends the reservation: Released, then the Telescope's finalizer and its lock, and
// the Reservation's own finalizer last.
func (r *reservation) release() error {
	if err := r.write(); err != nil {
		return err
	}
	if r.state.Telescope.Name != "" {
		if err := r.removeFinalizer(obsv1.KindTelescope, r.state.Telescope.Name, ""); err != nil {
			return err
		}
		if err := r.signalTelescope(TelescopeRelease); err != nil {
			return err
		}
	}
	return r.removeFinalizer(obsv1.KindReservation, r.in.Name, r.state.UID)
}

// stepOutcome is how one run of a step ended.
type stepOutcome int

const (
	stepFinished stepOutcome = iota // Done or Skipped
	stepFailed
	stepCut // the reservation ended during an activation step
)

// runUntilDone runs a step until it is Done or Skipped. A failed step waits for the retry
// annotation; an activation step also ends with the reservation (ended is then true).
func (r *reservation) runUntilDone(step string) (ended bool, err error) {
	deactivating := kube.IsDeactivationStep(step)
	for {
		if !deactivating && r.endReason(true) != "" {
			return true, nil
		}
		if rec := kube.FindStep(&r.status, step); rec != nil && rec.State == obsv1.RunFailed {
			retry, ended, err := r.awaitRetry(deactivating)
			if err != nil || ended {
				return ended, err
			}
			if err := r.local("the retry of "+step+" begins", a.RemoveRetryAnnotation, activities.RetryRemoval{Ref: r.ref, Value: retry}, nil); err != nil {
				return false, err
			}
			r.state.Retry = ""
		}
		out, err := r.runOnce(step)
		switch {
		case err != nil:
			return false, err
		case out == stepFinished:
			return false, nil
		case out == stepCut:
			return true, nil
		}
	}
}

// awaitRetry waits, Failed, for the retry annotation (returned), or during activation for the
// reservation's end.
func (r *reservation) awaitRetry(deactivating bool) (retry string, ended bool, err error) {
	if err := r.write(); err != nil {
		return "", false, err
	}
	for {
		if !deactivating && r.endReason(true) != "" {
			return "", true, nil
		}
		if r.state.Retry != "" {
			return r.state.Retry, false, nil
		}
		if err := r.continueAsNewIfLong(); err != nil {
			return "", false, err
		}
		if err := r.await(nil); err != nil {
			return "", false, err
		}
	}
}

// runOnce runs a step once: its site turn when it has one, then its activity.
func (r *reservation) runOnce(step string) (stepOutcome, error) {
	deactivating := kube.IsDeactivationStep(step)
	rec := kube.FindStep(&r.status, step)
	// A step recorded Running by an earlier run resumes with its startTime, so its deadline
	// still counts from there.
	resume := rec != nil && rec.State == obsv1.RunRunning && rec.StartTime != nil
	siteTiers := false
	op, hasTurn := siteOps[step]
	if hasTurn && r.observatory == "" {
		// Only a run that resumed after its Telescope vanished knows no observatory: there is
		// no site to take a turn on.
		if step == kube.StepStartSite || step == kube.StepStopSite {
			r.status = kube.StepEnded(r.status, step, obsv1.RunSkipped, "no Observatory is known for Telescope "+r.telescope, nil, r.now())
			return stepFinished, r.write()
		}
		hasTurn = false
	}
	if hasTurn {
		r.status = kube.StepRunning(r.status, step, "Waiting for Observatory "+r.observatory, r.now())
		if err := r.write(); err != nil {
			return stepFailed, err
		}
		ans, cut, err := r.siteTurn(op, !deactivating)
		if err != nil || cut {
			return stepCut, err
		}
		if !ans.Run && (step == kube.StepStartSite || step == kube.StepStopSite) {
			r.status = kube.StepEnded(r.status, step, obsv1.RunSkipped, siteSkipSummary(step, r.observatory, ans.Others), nil, r.now())
			return stepFinished, r.write()
		}
		r.holdingTheSiteTurn = ans.Run
		siteTiers = ans.Run
		if step == kube.StepStartSite {
			// The observatory is held while any of its telescopes is.
			res, err := r.addFinalizer(obsv1.KindObservatory, r.observatory, "")
			if err != nil {
				return stepFailed, err
			}
			if res.Gone || res.Deleting {
				if err := r.siteRelease(SiteWithdraw, false); err != nil {
					return stepFailed, err
				}
				if err := r.read(); err != nil {
					return stepFailed, err
				}
				return stepCut, nil
			}
		}
		resume = false
	}
	if !resume {
		r.status = kube.StepRunning(r.status, step, "", r.now())
		if err := r.write(); err != nil {
			return stepFailed, err
		}
	}
	rec = kube.FindStep(&r.status, step)
	started := rec.StartTime.Time
	deadline := stepDeadline(step)
	limit := deadline
	if limit == 0 {
		limit = perActionStepLimit
	}
	in := activities.StepInput{
		Namespace: r.in.Namespace, Reservation: r.in.Name, UID: r.state.UID, Holder: r.holder,
		Telescope: r.telescope, Observatory: r.observatory, Step: step,
		Started: started, Deadline: deadline, SiteTiers: siteTiers, Actions: rec.Actions,
	}
	if deactivating {
		in.Why = r.why
	}

	var res activities.StepResult
	var stepErr error
	if remaining := limit - r.now().Sub(started); remaining <= 0 {
		stepErr = temporal.NewTimeoutError(0, nil)
	} else {
		actx, cancel := workflow.WithCancel(r.ctx)
		actx = workflow.WithActivityOptions(actx, workflow.ActivityOptions{
			ScheduleToCloseTimeout: remaining,
			HeartbeatTimeout:       stepHeartbeatTimeout,
			WaitForCancellation:    true,
			RetryPolicy:            stepRetry,
			Summary:                StepSummary(step, r.telescope, r.observatory, r.devices),
		})
		f := workflow.ExecuteActivity(actx, stepActivities[step], in)
		finished, cancelled := false, false
		for !finished {
			if err := r.await(func(sel workflow.Selector) {
				sel.AddFuture(f, func(f workflow.Future) { stepErr, finished = f.Get(r.ctx, &res), true })
			}); err != nil {
				return stepFailed, err
			}
			if !finished && !deactivating && !cancelled && r.endReason(true) != "" {
				// The end cuts an activation step short: cancel it and wait until it stopped,
				// so Abort does not run beside it.
				cancel()
				cancelled = true
			}
		}
		if cancelled {
			return stepCut, r.siteRelease(SiteDone, false)
		}
	}

	if stepErr != nil {
		summary := failureSummary(stepErr, limit)
		// A failed step carries its action records in the error's details, so that
		// status.steps[].actions shows them and a retry skips the actions already Done.
		var appErr *temporal.ApplicationError
		if errors.As(stepErr, &appErr) && appErr.HasDetails() {
			var failed activities.StepResult
			if appErr.Details(&failed) == nil {
				res.Actions = failed.Actions
			}
		}
		r.status = kube.StepEnded(r.status, step, obsv1.RunFailed, summary, res.Actions, r.now())
		workflow.GetLogger(r.ctx).Warn("a reservation step failed", "reservation", r.in.Name, "step", step, "summary", summary)
		if err := r.siteRelease(SiteDone, false); err != nil {
			return stepFailed, err
		}
		return stepFailed, r.write()
	}
	summary := res.Summary
	if step == kube.StepAbort && r.why != "" {
		summary = joinSummary(r.why, summary)
	}
	if step == kube.StepPowerOn && res.Endpoint != nil {
		ep := *res.Endpoint
		r.endpoint = &ep
	}
	if step == kube.StepPowerOn && len(res.Devices) > 0 {
		r.devices = res.Devices
	}
	if step == kube.StepStopSite && r.holdingTheSiteTurn {
		if err := r.removeFinalizer(obsv1.KindObservatory, r.observatory, ""); err != nil {
			return stepFailed, err
		}
	}
	state := obsv1.RunDone
	if res.Skipped {
		state = obsv1.RunSkipped
	}
	r.status = kube.StepEnded(r.status, step, state, summary, res.Actions, r.now())
	if err := r.siteRelease(SiteDone, true); err != nil {
		return stepFailed, err
	}
	return stepFinished, r.write()
}

// siteTurn asks the observatory's lock for a turn and waits for it. During activation the
// reservation's end withdraws the request (cut is then true).
func (r *reservation) siteTurn(op SiteOp, activating bool) (ans SiteAnswer, cut bool, err error) {
	r.siteTok = r.token()
	if err := r.signalSite(SiteRequest{Op: op, Token: r.siteTok}); err != nil {
		return ans, false, err
	}
	for {
		got := false
		if err := r.await(func(sel workflow.Selector) {
			sel.AddReceive(r.siteAnswers, func(c workflow.ReceiveChannel, _ bool) {
				var a SiteAnswer
				c.Receive(r.ctx, &a)
				if a.Token == r.siteTok {
					ans, got = a, true
				}
			})
		}); err != nil {
			return ans, false, err
		}
		if got {
			return ans, false, nil
		}
		if activating && r.endReason(true) != "" {
			return ans, true, r.signalSite(SiteRequest{Op: SiteWithdraw, Token: r.siteTok})
		}
	}
}

// siteRelease ends a site turn this reservation holds (SiteDone with the step's outcome, or
// SiteWithdraw when it did not use it).
func (r *reservation) siteRelease(op SiteOp, ok bool) error {
	if !r.holdingTheSiteTurn {
		return nil
	}
	r.holdingTheSiteTurn = false
	return r.signalSite(SiteRequest{Op: op, Token: r.siteTok, OK: ok})
}

// endReason says why the reservation ends, or "" while it does not. Once it took its
// telescope, a delete of the Telescope or the Observatory ends it too.
func (r *reservation) endReason(took bool) string {
	if r.why != "" {
		return r.why
	}
	st := r.state
	switch {
	case st.Gone || st.Deleting:
		return "Reservation " + r.in.Name + " was deleted"
	case took && (!st.Telescope.Exists || st.Telescope.Deleting):
		return "Telescope " + r.telescope + " was deleted"
	case took && (!st.Observatory.Exists || st.Observatory.Deleting):
		return "Observatory " + r.observatory + " was deleted"
	case st.Spec.End != nil && !r.now().Before(st.Spec.End.Time):
		return "Reservation " + r.in.Name + " ended at " + st.Spec.End.UTC().Format(time.RFC3339)
	}
	return ""
}

// await blocks until a change signal (then reads the Reservation again), spec.end, or one of
// the cases add puts on the selector.
func (r *reservation) await(add func(workflow.Selector)) error {
	sel := workflow.NewSelector(r.ctx)
	changed, onlyConditions := false, true
	note := func(ch ReservationChange) {
		changed = true
		onlyConditions = onlyConditions && ch.Why == WhyCondition
	}
	sel.AddReceive(r.changes, func(c workflow.ReceiveChannel, _ bool) {
		var ch ReservationChange
		c.Receive(r.ctx, &ch)
		note(ch)
	})
	if r.endTimer != nil {
		sel.AddFuture(r.endTimer, func(workflow.Future) { r.endTimer = nil })
	}
	if add != nil {
		add(sel)
	}
	sel.Select(r.ctx)
	// A burst of changes is answered by one read.
	var ch ReservationChange
	for changed && r.changes.ReceiveAsync(&ch) {
		note(ch)
	}
	r.changed, r.onlyConditions = changed, changed && onlyConditions
	if !changed || r.onlyConditions {
		// A condition of a device is the triggers' business; the Reservation did not change.
		return nil
	}
	return r.read()
}

// read reads the Reservation and what it needs, and arms the end timer for spec.end.
func (r *reservation) read() error {
	var st activities.ReservationState
	if err := r.local(localSummary("read", obsv1.KindReservation, r.in.Name), a.ReadReservation, r.ref, &st); err != nil {
		return err
	}
	r.reads++
	if st.Gone {
		// Keep what is known of it; Gone ends it.
		r.state.Gone = true
		return nil
	}
	r.state = st
	r.telescope, r.holder = st.Spec.Telescope, st.Spec.Holder
	if st.Spec.End != nil && r.why == "" {
		end := st.Spec.End.UTC()
		if !end.Equal(r.endArmed) {
			r.endArmed = end
			r.endTimer = nil
			if d := end.Sub(r.now()); d > 0 {
				r.endTimer, _ = timer(r.ctx, d, "end at "+at(end))
			}
		}
	}
	return nil
}

// write composes the status and writes it, with its Events, when it changed; and keeps the
// search attributes up to date.
func (r *reservation) write() error {
	f := kube.ReservationFacts{Telescope: r.telescope, Holder: r.holder, Generation: r.state.Generation, Endpoint: r.endpoint}
	if f.Endpoint == nil && r.telescope != "" {
		f.Endpoint = telescopeEndpoint(r.in.Namespace, r.telescope)
	}
	r.status = kube.ComposeReservation(r.status, f, r.now())
	r.upsertSearch()
	workflow.SetCurrentDetails(r.ctx, ReservationDetails(r.status))
	if kube.SameReservationStatus(&r.status, &r.written) || r.state.Gone {
		return nil
	}
	w := activities.ReservationStatusWrite{
		Ref: r.ref, UID: r.state.UID, Status: r.status,
		Events: kube.ReservationEvents(&r.written, &r.status, r.telescope),
	}
	var out activities.StatusWritten
	if err := r.local(statusSummary(r.status), a.WriteReservationStatus, w, &out); err != nil {
		return err
	}
	r.written = *r.status.DeepCopy()
	if out.Gone {
		r.state.Gone = true
	}
	return nil
}

func (r *reservation) upsertSearch() {
	want := [4]string{r.telescope, r.holder, string(r.status.Phase), r.status.Step}
	if r.searchedOnce && want == r.searched {
		return
	}
	keys := [4]temporal.SearchAttributeKeyKeyword{SearchTelescope, SearchHolder, SearchPhase, SearchStep}
	var updates []temporal.SearchAttributeUpdate
	for i, k := range keys {
		if r.searchedOnce && want[i] == r.searched[i] {
			continue
		}
		if want[i] == "" {
			updates = append(updates, k.ValueUnset())
		} else {
			updates = append(updates, k.ValueSet(want[i]))
		}
	}
	if err := workflow.UpsertTypedSearchAttributes(r.ctx, updates...); err != nil {
		workflow.GetLogger(r.ctx).Warn("the search attributes could not be upserted", "err", err)
		return
	}
	r.searched, r.searchedOnce = want, true
}

// continueAsNewIfLong continues a long-held reservation as new; the next run resumes from the
// status, and the locks recognise it by its name.
func (r *reservation) continueAsNewIfLong() error {
	info := workflow.GetInfo(r.ctx)
	if !info.GetContinueAsNewSuggested() && info.GetCurrentHistoryLength() <= reservationHistoryLimit && r.reads < reservationReadLimit {
		return nil
	}
	for r.changes.ReceiveAsync(nil) {
	}
	return workflow.NewContinueAsNewError(r.ctx, Reservation, r.in)
}

func (r *reservation) signalTelescope(op string) error {
	start := r.state.Created
	if r.state.Spec.Start != nil {
		start = r.state.Spec.Start.UTC()
	}
	msg := TelescopeRequest{Op: op, Ticket: TelescopeTicket{
		Reservation: r.in.Name, WorkflowID: workflow.GetInfo(r.ctx).WorkflowExecution.ID,
		Token: r.telToken, Start: start, Created: r.state.Created,
	}}
	tel := r.state.Telescope.Name
	return r.coordinate(activities.WorkflowSignal{
		WorkflowID: TelescopeWorkflowID(r.in.Namespace, tel), WorkflowType: TelescopeWorkflow, Signal: TelescopeRequests,
		Message: msg, Input: TelescopeInput{Namespace: r.in.Namespace, Name: tel},
		Keywords: map[string]string{SearchTelescope.GetName(): tel},
	}, TelescopeLockWords(r.in.Namespace, tel), coordinatorSummary(obsv1.KindTelescope, tel, op))
}

func (r *reservation) signalSite(req SiteRequest) error {
	req.Reservation, req.Telescope = r.in.Name, r.telescope
	req.WorkflowID = workflow.GetInfo(r.ctx).WorkflowExecution.ID
	return r.coordinate(activities.WorkflowSignal{
		WorkflowID: ObservatoryWorkflowID(r.in.Namespace, r.observatory), WorkflowType: ObservatoryWorkflow, Signal: SiteRequests,
		Message: req, Input: ObservatoryInput{Namespace: r.in.Namespace, Name: r.observatory},
	}, ObservatoryLockWords(r.in.Namespace, r.observatory), coordinatorSummary(obsv1.KindObservatory, r.observatory, string(req.Op)))
}

// coordinate signals a lock, starting it with its words when it does not run.
func (r *reservation) coordinate(sig activities.WorkflowSignal, words Words, summary string) error {
	sig.Summary, sig.Details = words.Summary, words.Details
	return r.local(summary, a.SignalCoordinator, sig, nil)
}

func (r *reservation) addFinalizer(kind obsv1.Kind, name, uid string) (activities.FinalizerResult, error) {
	return r.finalizer(a.AddDeactivateFinalizer, localSummary("hold", kind, name), kind, name, uid)
}

func (r *reservation) removeFinalizer(kind obsv1.Kind, name, uid string) error {
	_, err := r.finalizer(a.RemoveDeactivateFinalizer, localSummary("let go of", kind, name), kind, name, uid)
	return err
}

func (r *reservation) finalizer(fn any, summary string, kind obsv1.Kind, name, uid string) (activities.FinalizerResult, error) {
	var res activities.FinalizerResult
	err := r.local(summary, fn, activities.FinalizerRef{Kind: kind, Namespace: r.in.Namespace, Name: name, UID: uid}, &res)
	return res, err
}

// local runs a bookkeeping local activity; summary is what the Temporal UI says of it.
func (r *reservation) local(summary string, fn, in, out any) error {
	opts := bookkeeping
	opts.Summary = summary
	return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(r.ctx, opts), fn, in).Get(r.ctx, out)
}

// token is unique per request this run makes of a lock: the run's ID and a count.
func (r *reservation) token() string {
	r.seq++
	return workflow.GetInfo(r.ctx).WorkflowExecution.RunID + "/" + strconv.Itoa(r.seq)
}

func (r *reservation) now() time.Time { return workflow.Now(r.ctx) }

// servers names the telescope and its observatory, for summaries.
func (r *reservation) servers() string {
	if r.observatory == "" {
		return "Telescope " + r.telescope
	}
	return "Telescope " + r.telescope + " and Observatory " + r.observatory
}

func done(rec *obsv1.StepRecord) bool {
	return rec != nil && (rec.State == obsv1.RunDone || rec.State == obsv1.RunSkipped)
}

// telescopeEndpoint is the telescope's INDI server, where the holder connects: the address
// PowerOn reports, known before it does because the Service's name is fixed.
func telescopeEndpoint(namespace, telescope string) *obsv1.Endpoint {
	svc := kube.ServerName(obsv1.KindTelescope, telescope)
	return &obsv1.Endpoint{Service: svc, Host: svc + "." + namespace + ".svc", Port: kube.ServerPort}
}

func siteSkipSummary(step, observatory string, others []string) string {
	where := "Observatory " + observatory
	tels := ""
	if len(others) > 0 {
		tels = "Telescope " + strings.Join(others, ", Telescope ")
	}
	switch {
	case step == kube.StepStartSite && tels != "":
		return where + " is already up for " + tels
	case step == kube.StepStartSite:
		return where + " is already up"
	case tels != "":
		return where + " is still in use by " + tels
	}
	return where + " is not running"
}

// failureSummary is the summary of a failed step: "timed out after <d>: ..." when its
// deadline passed, else "Failed: ...".
func failureSummary(err error, limit time.Duration) string {
	var timeout *temporal.TimeoutError
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &timeout):
		detail := ""
		if timeout.HasLastHeartbeatDetails() {
			var s string
			if timeout.LastHeartbeatDetails(&s) == nil {
				detail = s
			}
		}
		if cause := errors.Unwrap(timeout); detail == "" && cause != nil {
			detail = cause.Error()
		}
		if detail == "" {
			detail = "the step did not finish"
		}
		return fmt.Sprintf("%s after %s: %s", kube.TimedOutPrefix, kube.ShortDuration(limit), detail)
	case errors.As(err, &app):
		msg := app.Message()
		if app.Type() == activities.ErrStepTimedOut || strings.HasPrefix(msg, kube.TimedOutPrefix) || strings.HasPrefix(msg, kube.FailedPrefix) {
			return msg
		}
		return kube.FailedPrefix + msg
	}
	return kube.FailedPrefix + err.Error()
}

func joinSummary(head, tail string) string {
	if tail == "" {
		return head
	}
	return head + "; " + tail
}
