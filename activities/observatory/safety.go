// What the runner does with the site guard while a reservation is Ready, from its observer:
// it beats the guard's heartbeat (and says it leaves when the workflow stops the observer), and
// it reports what the guard did. While a trip is under way the Observatory's ParkedBySafety
// says so, and what fails while the guard tries it again (a Warning Event when it starts to
// fail). A finished trip is reported whole before it is recorded: ParkedBySafety on each Dome
// and Mount it parked while the runner was away, then the Observatory's ParkedBySafety and
// status.lastSafetyPark in one write. Whatever fails leaves the trip unrecorded, and the next
// look reports it again (the conditions written before are equal then: no writes). The
// observer whose write recorded it posts the Warning Events (runner away), once; every
// observer signals its reservation's workflow with the guard's words, which its history in
// the Temporal UI shows.
package observatory

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// beatTimeout bounds one heartbeat's send, so a silent site server does not hold the observer.
const beatTimeout = 3 * time.Second

// beat tells the site guard this reservation's runner is here (guard.BeatState), or that it
// leaves on purpose (guard.LeaveState: the reservation ends, or its run continues as new).
func beat(ctx context.Context, site *indi.Client, telescope, state string) error {
	ctx, cancel := context.WithTimeout(ctx, beatTimeout)
	defer cancel()
	return site.Send(ctx, prop.Property{Device: guard.Device, Name: guard.PropHeartbeat, Elements: []prop.Element{
		{Name: guard.ElemTelescope, Value: telescope}, {Name: guard.ElemBeatState, Value: state}}})
}

// workerStopping says whether the worker that runs this activity is stopping (a rollout, a
// drained node), as opposed to the workflow cancelling it.
func workerStopping(ctx context.Context) bool {
	if !activity.IsActivity(ctx) {
		return false
	}
	select {
	case <-activity.GetWorkerStopChannel(ctx):
		return true
	default:
		return false
	}
}

// safetyWatch is an observer's view of the site guard's trips.
type safetyWatch struct {
	// seen is the time of the last finished trip this observer has dealt with.
	seen time.Time
	// shown is the message of the Observatory's ParkedBySafety as this observer last wrote it
	// for a trip under way, so it writes only when the guard says something new.
	shown string
}

// lookAtSafety reports the guard's trips that are new to this observer, oldest first (more
// than one when the runner was away: a park at dawn, then a dome opened and closed again), and
// shows the one under way. A trip no newer than the Observatory's lastSafetyPark was reported
// whole already, by this site's other observer or one before.
func (a *Activities) lookAtSafety(ctx context.Context, in StepInput, site *observedServer, w *safetyWatch) {
	p, ok := site.client.Property(guard.Device, guard.PropStatus)
	if !ok {
		return
	}
	finished, underWay := newTrips(guard.ReportOf(p).Trips, w.seen)
	for _, trip := range finished {
		// Not reported whole yet: newer than lastSafetyPark, which keeps whole seconds.
		at := trip.Time.Truncate(time.Second)
		if a.seenSafetyPark(ctx, in.Namespace, in.Observatory).Before(at) {
			if err := a.reportSafetyPark(ctx, in, trip); err != nil {
				logFor(ctx).Warn("the site guard's park could not be reported in full; the next look tries again",
					"observatory", in.Observatory, "namespace", in.Namespace, "err", err)
				return
			}
		}
		w.seen, w.shown = at, ""
		a.tellWorkflowOfSafety(ctx, in, "The site guard "+guard.TripWords(trip))
	}
	if underWay != nil {
		a.showTripUnderWay(ctx, in, *underWay, w)
	}
}

// newTrips are the finished trips after seen, oldest first, and the trip under way after
// them (nil when none is). Times count in whole seconds, as lastSafetyPark keeps them.
func newTrips(trips []guard.Trip, seen time.Time) (finished []guard.Trip, underWay *guard.Trip) {
	for i, trip := range trips {
		if !trip.Time.Truncate(time.Second).After(seen) {
			continue
		}
		if !trip.Finished {
			return finished, &trips[i]
		}
		finished = append(finished, trip)
	}
	return finished, nil
}

// showTripUnderWay writes the Observatory's ParkedBySafety for a trip under way. The write
// that makes it fail posts a Warning Event; every write of a failure logs it.
func (a *Activities) showTripUnderWay(ctx context.Context, in StepInput, trip guard.Trip, w *safetyWatch) {
	cond := SafetyTripCondition(trip)
	if cond.Message == w.shown {
		return
	}
	obs := kube.ResourceID{Kind: obsv1.KindObservatory, Namespace: in.Namespace, Name: in.Observatory}
	before, wrote, err := a.writeObservatorySafety(ctx, obs, trip)
	if err != nil {
		logFor(ctx).Warn("the site guard's park under way could not be shown; the next look tries again",
			"observatory", in.Observatory, "namespace", in.Namespace, "err", err)
		return
	}
	w.shown = cond.Message
	if !wrote || cond.Reason != kube.ReasonSafetyParkFailing {
		return
	}
	logFor(ctx).Warn(cond.Message, "observatory", in.Observatory, "namespace", in.Namespace)
	if before == nil || before.Reason != kube.ReasonSafetyParkFailing {
		a.postObsEvent(ctx, obs, kube.Event{Type: corev1.EventTypeWarning, Reason: kube.ReasonSafetyParkFailing, Message: cond.Message})
	}
}

// reportSafetyPark writes what a finished trip did on every object it touched, the record
// last; a failure returns before the record, so the trip is reported again. It posts the
// Events when its write made the record.
func (a *Activities) reportSafetyPark(ctx context.Context, in StepInput, trip guard.Trip) error {
	var devices []stepDevice
	if trip.RunnerAway {
		var err error
		if devices, err = a.guardedDevices(ctx, in, trip); err != nil {
			return err
		}
	}
	for _, d := range devices {
		if err := a.markParkedBySafety(ctx, d, trip); err != nil {
			return err
		}
	}
	obs := kube.ResourceID{Kind: obsv1.KindObservatory, Namespace: in.Namespace, Name: in.Observatory}
	_, won, err := a.writeObservatorySafety(ctx, obs, trip)
	if err != nil || !won {
		return err
	}
	a.postSafetyPark(ctx, obs, trip, devices)
	return nil
}

// markParkedBySafety writes ParkedBySafety on a Dome or Mount the guard parked while the
// runner was away; an equal condition is no write.
func (a *Activities) markParkedBySafety(ctx context.Context, d stepDevice, trip guard.Trip) error {
	stepHeartbeat(ctx, "reporting the site guard's park on "+d.Label())
	wctx, cancel := context.WithTimeout(ctx, observeWriteTimeout)
	defer cancel()
	cond := kube.ParkedBySafetyCondition(trip.Kind, SafetyParkedDeviceMessage(d.Kind, trip))
	_, err := writeStatus(wctx, a, d.ResourceID, nil, func(st obsv1.DeviceStatus, _ metav1.Object) obsv1.DeviceStatus {
		st.Conditions = kube.WithCondition(st.Conditions, cond, 0, a.now())
		return st
	})
	return err
}

// writeObservatorySafety writes the Observatory's status with the trip (WithSafetyTrip).
// It returns its ParkedBySafety before the write, and whether it wrote.
func (a *Activities) writeObservatorySafety(ctx context.Context, obs kube.ResourceID,
	trip guard.Trip) (before *obsv1.Condition, wrote bool, _ error) {
	stepHeartbeat(ctx, "reporting the site guard's park on Observatory "+obs.Name)
	wctx, cancel := context.WithTimeout(ctx, observeWriteTimeout)
	defer cancel()
	w, err := writeStatus(wctx, a, obs, nil, func(st obsv1.ObservatoryStatus, _ metav1.Object) obsv1.ObservatoryStatus {
		return WithSafetyTrip(st, trip, a.now())
	})
	return kube.ConditionOf(w.before.Conditions, obsv1.ConditionParkedBySafety), w.wrote, err
}

// seenSafetyPark is the time of the Observatory's lastSafetyPark, zero when it has none (or
// it cannot be read: the report's own writes check again).
func (a *Activities) seenSafetyPark(ctx context.Context, ns, observatory string) time.Time {
	obj, err := a.getTyped(ctx, obsv1.KindObservatory, ns, observatory)
	if o, ok := obj.(*obsv1.Observatory); err == nil && ok && o != nil && o.Status.LastSafetyPark != nil {
		return o.Status.LastSafetyPark.Time.Time
	}
	return time.Time{}
}

// postSafetyPark tells of a trip this observer recorded: a log line, and when the runner was
// away a Warning Event on the Observatory and on each Dome and Mount the guard parked. With
// the runner there, the triggers moved the same devices on the same Alert and their Events
// tell it: the Observatory's condition alone keeps the guard's part, with no second Event.
func (a *Activities) postSafetyPark(ctx context.Context, obs kube.ResourceID, trip guard.Trip, devices []stepDevice) {
	message := "The site guard " + guard.TripWords(trip)
	logFor(ctx).Warn(message, "observatory", obs.Name, "namespace", obs.Namespace)
	if !trip.RunnerAway {
		return
	}
	a.postObsEvent(ctx, obs, kube.Event{Type: corev1.EventTypeWarning, Reason: kube.ReasonSafetyPark, Message: message})
	for _, d := range devices {
		a.postObsEvent(ctx, d.ResourceID, kube.Event{Type: corev1.EventTypeWarning, Reason: kube.ReasonSafetyPark,
			Message: SafetyParkedDeviceMessage(d.Kind, trip)})
	}
}

// guardedDevices are the Domes and Mounts of the site that the trip parked, found by the INDI
// names their status records. An Observatory or Telescope that is gone has nothing to show it
// on; one that cannot be read fails the report, which the next look makes again.
func (a *Activities) guardedDevices(ctx context.Context, in StepInput, trip guard.Trip) ([]stepDevice, error) {
	var out []stepDevice
	site, err := a.readServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
	if isMissing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, d := range trip.Closed {
		for _, dome := range only(site.Devices, func(s stepDevice) bool { return s.Kind == obsv1.KindDome }) {
			if indiNameOf(&dome) == d.Device {
				out = append(out, dome)
			}
		}
	}
	for _, m := range trip.Parked {
		s, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, m.Telescope)
		if isMissing(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, mount := range only(s.Devices, func(s stepDevice) bool { return s.Kind == obsv1.KindMount }) {
			if indiNameOf(&mount) == m.Device {
				out = append(out, mount)
			}
		}
	}
	return out, nil
}

// isMissing says whether readServer found no such object: its one step failure.
func isMissing(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app)
}

// tellWorkflowOfSafety signals the reservation's workflow with the guard's words: a condition
// changed (the triggers look again), and its history keeps what the guard did.
func (a *Activities) tellWorkflowOfSafety(ctx context.Context, in StepInput, words string) {
	if in.ConditionSignal == "" || a.Temporal == nil || !activity.IsActivity(ctx) {
		return
	}
	id := activity.GetInfo(ctx).WorkflowExecution.ID
	if err := a.Temporal.SignalWorkflow(ctx, id, "", in.ConditionSignal, contract.ReservationChange{Why: contract.WhyCondition, Safety: words}); err != nil {
		logFor(ctx).Warn("the reservation's workflow could not be told what the site guard did", "workflow", id, "err", err)
	}
}
