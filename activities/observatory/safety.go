// What the runner does with the site guard while a reservation is Ready, from its observer:
// it beats the guard's heartbeat (and says it leaves when the workflow stops the observer), and
// it reports what the guard did. A park the guard made becomes the Observatory's
// status.lastSafetyPark and ParkedBySafety condition, once (the first observer of the site to
// write lastSafetyPark reports it); made while the runner was away, also ParkedBySafety and a
// Warning Event on the Observatory and on each Dome and Mount it parked; and a signal to each
// reservation's workflow that carries the guard's words, which its history in the Temporal UI
// shows.
package observatory

import (
	"context"
	"encoding/json"
	"time"

	"go.temporal.io/sdk/activity"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/workflows/contract"
)

// beatTimeout bounds one heartbeat's send, so a silent site server does not hold the observer.
const beatTimeout = 3 * time.Second

// beat tells the site guard this reservation's runner is here (guard.BeatState), or that it
// leaves on purpose (guard.LeaveState: the reservation ends, or its run continues as new).
func beat(ctx context.Context, site *indi.Client, telescope, state string) error {
	ctx, cancel := context.WithTimeout(ctx, beatTimeout)
	defer cancel()
	return site.Send(ctx, indi.Property{Device: guard.Device, Name: guard.PropHeartbeat, Elements: []indi.Element{
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

// safetyWatch is an observer's view of the site guard's parks: the time of the last one it
// has dealt with.
type safetyWatch struct {
	seen time.Time
}

// lookAtSafety reports the guard's last park if it is new to this observer: once it has finished (so
// the report says all it did), and only if it is newer than the Observatory's lastSafetyPark
// when the observer started (an older one was reported by an observer before).
func (a *Activities) lookAtSafety(ctx context.Context, in StepInput, site *observedServer, w *safetyWatch) {
	p, ok := site.client.Property(guard.Device, guard.PropStatus)
	if !ok {
		return
	}
	r := reportOf(p)
	if len(r.Trips) == 0 {
		return
	}
	trip := r.Trips[len(r.Trips)-1]
	at := trip.Time.Truncate(time.Second) // as lastSafetyPark keeps it
	if !trip.Finished || !at.After(w.seen) {
		return
	}
	w.seen = at
	words := guard.TripWords(trip)
	won, err := a.recordSafetyPark(ctx, site.owner, trip, words)
	if err != nil {
		logFor(ctx).Warn("the site guard's park could not be recorded; the next look tries again", "observatory", site.owner.Name, "err", err)
		w.seen = time.Time{}
		return
	}
	if won {
		a.postSafetyPark(ctx, in, trip, words)
	}
	a.tellWorkflowOfSafety(ctx, in, "The site guard "+words)
}

// recordSafetyPark writes the park to the Observatory's lastSafetyPark unless a newer or the
// same is there; won says this call wrote it, so its caller reports it.
func (a *Activities) recordSafetyPark(ctx context.Context, obs kube.ResourceID, trip guard.Trip, words string) (won bool, _ error) {
	err := a.updateStatusField(ctx, obs, "lastSafetyPark", func(raw []byte) (any, error) {
		var last *obsv1.SafetyPark
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &last); err != nil {
				return nil, err
			}
		}
		won = last == nil || trip.Time.Truncate(time.Second).After(last.Time.Time)
		if !won {
			return last, nil
		}
		return obsv1.SafetyPark{Time: metav1.NewTime(trip.Time.Truncate(time.Second)), Cause: trip.Kind,
			Message: "The site guard " + words, RunnerAway: trip.RunnerAway}, nil
	})
	return won, err
}

// seenSafetyPark is the time of the Observatory's lastSafetyPark, zero when it has none: an
// observer that starts reports only what is newer.
func (a *Activities) seenSafetyPark(ctx context.Context, ns, observatory string) time.Time {
	obj, err := a.getTyped(ctx, obsv1.KindObservatory, ns, observatory)
	if o, ok := obj.(*obsv1.Observatory); err == nil && ok && o != nil && o.Status.LastSafetyPark != nil {
		return o.Status.LastSafetyPark.Time.Time
	}
	return time.Time{}
}

// postSafetyPark writes ParkedBySafety and posts a Warning Event on the Observatory and on
// each Dome and Mount the guard parked while the runner was away. With the runner there, the
// triggers moved the same devices on the same Alert and their Events tell it: the Observatory's
// condition alone keeps the guard's part, with no second Event.
func (a *Activities) postSafetyPark(ctx context.Context, in StepInput, trip guard.Trip, words string) {
	type target struct {
		id      kube.ResourceID
		message string
	}
	targets := []target{{kube.ResourceID{Kind: obsv1.KindObservatory, Namespace: in.Namespace, Name: in.Observatory}, "The site guard " + words}}
	if trip.RunnerAway {
		at := trip.Time.UTC().Format("15:04:05 MST")
		for _, d := range a.guardedDevices(ctx, in, trip) {
			verb := "Parked"
			if d.Kind == obsv1.KindDome {
				verb = "Closed"
			}
			targets = append(targets, target{d.ResourceID, verb + " by the site guard at " + at + " because " + trip.Reason + ", while the runner was away"})
		}
	}
	for _, t := range targets {
		cond := kube.ParkedBySafetyCondition(trip.Kind, t.message)
		if err := a.updateStatusField(ctx, t.id, "conditions", func(raw []byte) (any, error) {
			var conds []obsv1.Condition
			if len(raw) > 0 {
				if err := json.Unmarshal(raw, &conds); err != nil {
					return nil, err
				}
			}
			return kube.WithCondition(conds, cond, 0, a.now()), nil
		}); err != nil {
			logFor(ctx).Warn("ParkedBySafety could not be written", "object", t.id.String(), "err", err)
		}
		logFor(ctx).Warn(t.message, "object", t.id.String(), "namespace", t.id.Namespace)
		if trip.RunnerAway {
			a.postObsEvent(ctx, t.id, kube.Event{Type: corev1.EventTypeWarning, Reason: kube.ReasonSafetyPark, Message: t.message})
		}
	}
}

// guardedDevices are the Domes and Mounts of the site that the trip parked, found by the INDI
// names their status records.
func (a *Activities) guardedDevices(ctx context.Context, in StepInput, trip guard.Trip) []stepDevice {
	var out []stepDevice
	site, err := a.readServer(ctx, in.Namespace, obsv1.KindObservatory, in.Observatory)
	if err != nil {
		return nil
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
		if err != nil {
			continue
		}
		for _, mount := range only(s.Devices, func(s stepDevice) bool { return s.Kind == obsv1.KindMount }) {
			if indiNameOf(&mount) == m.Device {
				out = append(out, mount)
			}
		}
	}
	return out
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
