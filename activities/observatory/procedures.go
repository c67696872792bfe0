// The Activation and Deactivation steps: the procedures of a reservation's resources, run by
// tier. Activation runs the Observatory, then its devices (only when
// StepInput.IncludesObservatory: the first telescope there), then the Telescope, its devices and its trains' devices;
// Deactivation runs the same tiers in reverse. The resources of one tier run in parallel, the
// tiers in sequence, and one resource's actions in order. Each action is a target state (the
// device is read first and nothing is sent when it is there), or a Job named from the run, so
// a restarted worker adopts the Job it created instead of starting another.
//
// Before an action starts it waits for the runs of its tier that it comes `after` (a name
// that does not exist fails it), and the conditions it `requires` must hold.
//
// A run leaves its record in the resource's status.procedures (one per trigger, the last run)
// and posts ProcedureStarted, ProcedureDone or ProcedureFailed on the resource. A failed
// action fails the step with its summary. Activation stops at the tier that failed;
// Deactivation still runs the tiers after it (a camera that did not warm must not keep the
// mount from parking) and then fails. A retry of the step gets the earlier run's action
// records: Done actions are skipped, and a failed Job is deleted and run again under its new
// name (the step's new start time is in the name's hash).
package observatory

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The default timeouts of an action without its own (the field's documentation).
const (
	defaultStateTimeout = 10 * time.Minute
	defaultCoolTimeout  = 20 * time.Minute
	defaultWarmTimeout  = 10 * time.Minute
)

// jobPollEvery is how often a job action reads its Job: a Job takes seconds to minutes, and a
// read is cheap.
var jobPollEvery = time.Second

// jobGrace is how long after a job action's timeout the activity waits for the Job controller
// to mark the Job failed (activeDeadlineSeconds) before it gives up on it.
const jobGrace = time.Minute

// coolerOffTime bounds turning a camera's cooler off after a warm action's wait.
const coolerOffTime = time.Minute

// Activation runs the activation procedures by tier (the observatory's tiers only when
// in.IncludesObservatory). The Active condition of the Telescope (and the Observatory) goes
// True first.
func (a *Activities) Activation(ctx context.Context, in StepInput) (StepResult, error) {
	return a.runProcedures(ctx, in, kube.TriggerActivation)
}

// Deactivation runs the deactivation procedures in reverse tier order (the observatory's
// tiers only when in.IncludesObservatory). The Active condition goes False first.
func (a *Activities) Deactivation(ctx context.Context, in StepInput) (StepResult, error) {
	if err := a.skipTriggerRuns(ctx, in); err != nil {
		return StepResult{}, err
	}
	return a.runProcedures(ctx, in, kube.TriggerDeactivation)
}

// procAction is an action of any kind's procedures: the verbs of all kinds side by side (the
// schema lets each kind name only its own).
type procAction struct {
	State            string             `json:"state,omitempty"`
	Cool             *obsv1.Temperature `json:"cool,omitempty"`
	Warm             *obsv1.Temperature `json:"warm,omitempty"`
	obsv1.ActionBase `json:",inline"`
}

// label is the action as its record names it: "state: Parked", "cool: -10", "job".
func (p procAction) label() string {
	switch {
	case p.Job != nil:
		return "job"
	case p.Cool != nil:
		return "cool: " + strconv.FormatFloat(p.Cool.Celsius, 'f', -1, 64)
	case p.Warm != nil:
		return "warm: " + strconv.FormatFloat(p.Warm.Celsius, 'f', -1, 64)
	}
	return "state: " + p.State
}

func (p procAction) timeout() (time.Duration, error) {
	if p.Timeout != "" {
		d, err := time.ParseDuration(p.Timeout)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("timeout %q is not a positive Go duration", p.Timeout)
		}
		return d, nil
	}
	switch {
	case p.Job != nil:
		return kube.DefaultJobTimeout, nil
	case p.Cool != nil:
		return defaultCoolTimeout, nil
	case p.Warm != nil:
		return defaultWarmTimeout, nil
	}
	return defaultStateTimeout, nil
}

// procResource is one resource whose procedure a tier runs.
type procResource struct {
	id kube.ResourceID
	// server is the INDI server pod that serves it; drivers the device's driver.
	server  string
	drivers []string
	// observatory is the site; telescope is empty for the site's own resources.
	observatory, telescope string
	indiDevice             string
	generation             int64
	actions                []procAction
	// For a pass over the triggers: the resource's triggers, its procedure records and its
	// retry annotation.
	triggers []procTrigger
	records  []obsv1.ProcedureRecord
	retry    string
}

// procTrigger is a trigger of any kind's procedures.
type procTrigger struct {
	When obsv1.TriggerCondition `json:"when"`
	// On is the key older versions used for when.
	On  *obsv1.TriggerCondition `json:"on,omitempty"`
	Run []procAction            `json:"run"`
}

// requires are the conditions the trigger's actions require, in order.
func (t procTrigger) requires() []obsv1.ConditionRef {
	var out []obsv1.ConditionRef
	for _, act := range t.Run {
		out = append(out, act.Requires...)
	}
	return out
}

// when is the trigger's condition, under either key.
func (t procTrigger) when() obsv1.TriggerCondition {
	if t.When.Type == "" && t.On != nil {
		return *t.On
	}
	return t.When
}

// procSpec is what a resource's spec holds for its procedures.
type procSpec struct {
	Activation   []procAction  `json:"activation,omitempty"`
	Deactivation []procAction  `json:"deactivation,omitempty"`
	Triggers     []procTrigger `json:"triggers,omitempty"`
	Driver       obsv1.Driver  `json:"driver,omitempty"`
	Telescope    string        `json:"telescope,omitempty"`
	Observatory  string        `json:"observatory,omitempty"`
	OpticalTrain string        `json:"opticalTrain,omitempty"`
}

func readProcSpec(u *unstructured.Unstructured) (procSpec, error) {
	var s procSpec
	raw, err := json.Marshal(u.Object["spec"])
	if err == nil {
		err = json.Unmarshal(raw, &s)
	}
	return s, err
}

// actionEnd is how an action ended: Done, or Failed with the error type the step fails with
// (ErrStepFailed or ErrStepTimedOut). A transient error (err) leaves it Running: Temporal
// tries the step again, which adopts what this try started.
type actionEnd struct {
	state   obsv1.RunState
	summary string
	errType string
	err     error
}

// runProcedures is both steps: trigger says which.
func (a *Activities) runProcedures(ctx context.Context, in StepInput, trigger string) (StepResult, error) {
	tiers, err := a.procedureTiers(ctx, in, trigger)
	if err != nil {
		return StepResult{}, err
	}
	if err := a.setActive(ctx, in, trigger == kube.TriggerActivation); err != nil {
		return StepResult{}, err
	}
	if trigger == kube.TriggerDeactivation {
		for i, j := 0, len(tiers)-1; i < j; i, j = i+1, j-1 {
			tiers[i], tiers[j] = tiers[j], tiers[i]
		}
	}
	hb := newHeartbeat(ctx)
	defer hb.stop()

	var (
		res       StepResult
		ran       []string
		firstFail *actionEnd
	)
	for _, tier := range tiers {
		if len(tier) == 0 {
			continue
		}
		results := make([][]obsv1.ActionRecord, len(tier))
		ends := make([]actionEnd, len(tier))
		// Each run's end, for the actions of the tier that wait for it (after).
		runs := make(map[string]chan struct{}, len(tier))
		for _, r := range tier {
			runs[r.id.String()] = make(chan struct{})
		}
		var wg sync.WaitGroup
		for i, r := range tier {
			wg.Go(func() {
				defer close(runs[r.id.String()])
				results[i], ends[i] = a.runResource(ctx, in, trigger, r, runs, hb)
			})
		}
		wg.Wait()
		for i, r := range tier {
			res.Actions = append(res.Actions, results[i]...)
			e := ends[i]
			if e.err != nil {
				return res, e.err
			}
			if e.state == obsv1.RunFailed && firstFail == nil {
				firstFail = &ends[i]
			}
			ran = append(ran, string(r.id.Kind)+" "+r.id.Name)
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if firstFail != nil && trigger == kube.TriggerActivation {
			break
		}
	}
	if firstFail != nil {
		msg := firstFail.summary
		if firstFail.errType == ErrStepFailed && !strings.HasPrefix(msg, kube.FailedPrefix) {
			msg = kube.FailedPrefix + msg
		}
		// The records go with the error, so the workflow can show which action failed.
		return res, temporal.NewNonRetryableApplicationError(msg, firstFail.errType, nil, res)
	}
	if len(ran) == 0 {
		res.Skipped = true
		res.Summary = "No " + trigger + " procedures"
		return res, nil
	}
	verb := "Activated "
	if trigger == kube.TriggerDeactivation {
		verb = "Deactivated "
	}
	res.Summary = verb + strings.Join(ran, ", ")
	return res, nil
}

// runResource runs one resource's actions in order and keeps its record.
func (a *Activities) runResource(ctx context.Context, in StepInput, trigger string, r *procResource,
	runs map[string]chan struct{}, hb *heartbeat) ([]obsv1.ActionRecord, actionEnd) {
	prior := priorActions(in.Actions, r)
	rec, err := a.startProcedure(ctx, in, trigger, r, prior)
	if err != nil {
		return rec.Actions, actionEnd{err: err}
	}

	var client *indi.Client
	defer func() {
		if client != nil {
			client.Close()
		}
	}()
	var end actionEnd
	for i, act := range r.actions {
		ar := &rec.Actions[i]
		if ar.State == obsv1.RunDone {
			continue
		}
		ar.State, ar.StartTime, ar.StopTime, ar.Summary = obsv1.RunRunning, a.procStamp(), nil, ""
		if _, err := a.writeProcedure(ctx, r, rec); err != nil {
			return rec.Actions, actionEnd{err: err}
		}
		end = a.awaitAfter(ctx, r, act, runs, hb)
		if end.err == nil && end.state != obsv1.RunFailed {
			end = a.checkRequires(ctx, r, act)
		}
		switch {
		case end.err != nil || end.state == obsv1.RunFailed:
		case act.Job != nil:
			end = a.runJobAction(ctx, in, trigger, r, i, act, prior[i], hb)
		case trigger == kube.TriggerDeactivation && !a.deviceRuns(ctx, r):
			// Its pod never ran (the activation failed first), or is gone: there is no
			// driver to bring anywhere, and the teardown goes on.
			end = actionEnd{state: obsv1.RunSkipped, summary: string(r.id.Kind) + " " + r.id.Name + " does not run: nothing to " + act.label()}
		default:
			end = a.runDeviceAction(ctx, in, trigger, r, act, &client, hb)
		}
		if end.err != nil {
			return rec.Actions, end
		}
		ar.State, ar.StopTime, ar.Summary = end.state, a.procStamp(), end.summary
		if end.state == obsv1.RunFailed {
			break
		}
	}
	end = a.endProcedure(ctx, trigger, r, &rec, end)
	return rec.Actions, end
}

// startProcedure writes r's record of this run, its actions Pending except those the earlier
// try of the step did (prior), and posts ProcedureStarted unless that try posted it.
func (a *Activities) startProcedure(ctx context.Context, in StepInput, trigger string, r *procResource,
	prior []*obsv1.ActionRecord) (obsv1.ProcedureRecord, error) {
	now := a.procStamp()
	rec := obsv1.ProcedureRecord{
		Trigger:   trigger,
		Since:     &metav1.Time{Time: in.Started.UTC().Truncate(time.Second)},
		RunRecord: obsv1.RunRecord{State: obsv1.RunRunning, StartTime: now},
	}
	for i, act := range r.actions {
		ar := obsv1.ActionRecord{Kind: r.id.Kind, Name: r.id.Name, Action: act.label(),
			RunRecord: obsv1.RunRecord{State: obsv1.RunPending}}
		if p := prior[i]; p != nil && p.Action == ar.Action && p.State == obsv1.RunDone {
			ar = *p
		}
		rec.Actions = append(rec.Actions, ar)
	}
	if prev, err := a.writeProcedure(ctx, r, rec); err != nil {
		return rec, err
	} else if prev == nil || prev.State != obsv1.RunRunning || !prev.Since.Equal(rec.Since) {
		a.postProcedureEvent(ctx, r, corev1.EventTypeNormal, kube.ReasonProcedureStarted,
			fmt.Sprintf("%s of %s %s started by Reservation %s", trigger, r.id.Kind, r.id.Name, in.Reservation))
	}
	return rec, nil
}

// runDeviceAction brings r's device to act's target over INDI. *client is the resource's
// connection, dialled at its first device action and closed by the caller.
func (a *Activities) runDeviceAction(ctx context.Context, in StepInput, trigger string, r *procResource, act procAction,
	client **indi.Client, hb *heartbeat) actionEnd {
	if *client == nil {
		var err error
		if *client, err = a.dialINDI(ctx, r); err != nil {
			return actionEnd{err: err}
		}
	}
	if trigger == kube.TriggerDeactivation && deviceDisconnected(ctx, *client, r.indiDevice) {
		// A driver that runs but never connected its hardware has nothing to move.
		return actionEnd{state: obsv1.RunSkipped, summary: string(r.id.Kind) + " " + r.id.Name + " is not connected: nothing to " + act.label()}
	}
	if judgedByLocks(r.id.Kind, act) {
		// The driver judges the move on the last state the site guard told it (a mount on the
		// dome's, a dome on every mount's): the guard hears of the site as it is now first.
		if _, err := a.armSite(ctx, in.Namespace, in.Observatory); err != nil {
			return actionEnd{err: err}
		}
	}
	return a.runINDIAction(ctx, *client, r, act, hb)
}

// endProcedure closes r's record with how its last action ended, writes it and posts
// ProcedureDone or ProcedureFailed. It returns the run's end: Failed as the action failed, or
// Done with the record's summary.
func (a *Activities) endProcedure(ctx context.Context, trigger string, r *procResource, rec *obsv1.ProcedureRecord, end actionEnd) actionEnd {
	rec.StopTime = a.procStamp()
	if end.state == obsv1.RunFailed {
		rec.State, rec.Summary = obsv1.RunFailed, end.summary
	} else {
		labels := make([]string, len(r.actions))
		for i, act := range r.actions {
			labels[i] = act.label()
		}
		rec.State, rec.Summary = obsv1.RunDone, "Done: "+strings.Join(labels, ", ")
		end = actionEnd{state: obsv1.RunDone, summary: rec.Summary}
	}
	if _, err := a.writeProcedure(ctx, r, *rec); err != nil {
		return actionEnd{err: err}
	}
	took := int64(rec.StopTime.Sub(rec.StartTime.Time) / time.Second)
	if rec.State == obsv1.RunFailed {
		a.postProcedureEvent(ctx, r, corev1.EventTypeWarning, kube.ReasonProcedureFailed,
			fmt.Sprintf("%s of %s %s failed: %s", trigger, r.id.Kind, r.id.Name, rec.Summary))
	} else {
		a.postProcedureEvent(ctx, r, corev1.EventTypeNormal, kube.ReasonProcedureDone,
			fmt.Sprintf("%s of %s %s done in %d s", trigger, r.id.Kind, r.id.Name, took))
	}
	return end
}

// priorActions are the earlier run's records of r's actions, by index (nil where none).
func priorActions(all []obsv1.ActionRecord, r *procResource) []*obsv1.ActionRecord {
	out := make([]*obsv1.ActionRecord, len(r.actions))
	i := 0
	for j := range all {
		if all[j].Kind == r.id.Kind && all[j].Name == r.id.Name && i < len(out) {
			out[i] = &all[j]
			i++
		}
	}
	return out
}

func (a *Activities) procStamp() *metav1.Time {
	return &metav1.Time{Time: a.now().UTC().Truncate(time.Second)}
}

// writeProcedure puts rec in r's status.procedures and writes the status when it changed. It
// returns the record of the same trigger that was there before.
func (a *Activities) writeProcedure(ctx context.Context, r *procResource, rec obsv1.ProcedureRecord) (*obsv1.ProcedureRecord, error) {
	var prev *obsv1.ProcedureRecord
	err := a.updateStatusField(ctx, r.id, "procedures", func(raw []byte) (any, error) {
		var records []obsv1.ProcedureRecord
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &records); err != nil {
				return nil, err
			}
		}
		if p := kube.FindProcedureRecord(records, rec.Trigger); p != nil {
			cp := *p
			prev = &cp
		}
		return kube.WithProcedureRecord(records, rec), nil
	})
	return prev, err
}

func (a *Activities) postProcedureEvent(ctx context.Context, r *procResource, typ, reason, msg string) {
	a.postObsEvent(ctx, r.id, kube.Event{Type: typ, Reason: reason, Message: msg})
}
