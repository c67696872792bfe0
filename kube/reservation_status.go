// The status of a Reservation as pure functions of its steps: the workflow records what each
// step did (StepRunning, StepEnded, ReservationEnded), and ComposeReservation derives the rest
// (phase, step, endpoint, the Ready and SafeToPowerOff conditions) in the words users read,
// so the rules are in one place and tested without a server or Temporal. ReservationEvents
// then says which Events a change deserves. Every time is the caller's (the workflow's clock),
// in whole seconds, so a status read back from the API server compares equal to the one
// written and an unchanged status is never written twice.
package kube

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The condition reasons of a Reservation, as users read them. While a step runs, the Ready
// condition's reason is the step's name instead.
const (
	ReasonReady        = "Ready"
	ReasonStepFailed   = "StepFailed"
	ReasonStepTimedOut = "StepTimedOut"
	ReasonReleased     = "Released"
	ReasonInUse        = "InUse"
)

// The summaries the runner writes itself.
const (
	// SummaryEnded is an activation step's that never ran or was cut short because the
	// reservation ended.
	SummaryEnded = "reservation ended"
	// SummaryEndedBeforeTaking is every unfinished step's of a reservation that ended before
	// it took its telescope.
	SummaryEndedBeforeTaking = "the reservation ended before it took the telescope"
	// TimedOutPrefix starts the summary of a step whose deadline passed.
	TimedOutPrefix = "timed out"
	// FailedPrefix starts the summary of a step that failed otherwise.
	FailedPrefix = "Failed: "
)

// ReservationFacts is what the composition needs besides the steps.
type ReservationFacts struct {
	Telescope  string
	Holder     string
	Generation int64
	// Endpoint is the telescope's INDI server, shown while Ready.
	Endpoint *obsv1.Endpoint
	// Night is when spec.night's dusk and dawn fall; nil for a reservation by the clock.
	Night *obsv1.ReservationNight
	// Booking is what the site's rules said of it; nil keeps the Confirmed condition as it
	// is (they are not checked once it took the telescope).
	Booking *Booking
}

// ReservationBegun is the status when the runner first takes a reservation on: the steps
// already recorded stay (a runner that starts over resumes from them) and the missing
// activation steps are added as Pending.
func ReservationBegun(old obsv1.ReservationStatus) obsv1.ReservationStatus {
	st := *old.DeepCopy()
	if len(st.Steps) > 0 {
		return st
	}
	for _, name := range ActivationSteps {
		st.Steps = append(st.Steps, obsv1.StepRecord{Name: name, RunRecord: obsv1.RunRecord{State: obsv1.RunPending}})
	}
	return st
}

// StepRunning marks a step Running from now with a summary (often empty). A step that ran
// before (a retry) starts over with a new startTime, so its deadline counts from the retry;
// its actions stay, so the step can skip the Done ones.
func StepRunning(old obsv1.ReservationStatus, step, summary string, now time.Time) obsv1.ReservationStatus {
	st := *old.DeepCopy()
	r := stepOf(&st, step)
	r.State, r.Summary = obsv1.RunRunning, summary
	r.StartTime, r.StopTime = stamp(now), nil
	return st
}

// StepSummary changes a step's summary and nothing else: what a waiting step waits for.
func StepSummary(old obsv1.ReservationStatus, step, summary string) obsv1.ReservationStatus {
	st := *old.DeepCopy()
	stepOf(&st, step).Summary = summary
	return st
}

// StepEnded records a step's end: Done, Skipped or Failed, with its summary and actions. A
// step that never ran gets now as its startTime too.
func StepEnded(old obsv1.ReservationStatus, step string, state obsv1.RunState, summary string, actions []obsv1.ActionRecord, now time.Time) obsv1.ReservationStatus {
	st := *old.DeepCopy()
	r := stepOf(&st, step)
	r.State, r.Summary = state, summary
	if r.StartTime == nil {
		r.StartTime = stamp(now)
	}
	r.StopTime = stamp(now)
	if actions != nil {
		r.Actions = actions
	}
	return st
}

// ReservationEnded is the status when the reservation ends (its end came, or it, its
// Telescope or its Observatory is being deleted). A reservation that took its telescope skips
// its unfinished activation steps ("reservation ended"), keeps a Failed one as it is, and gets
// the seven deactivation steps. One that never took it skips every unfinished step and is done.
func ReservationEnded(old obsv1.ReservationStatus, now time.Time) obsv1.ReservationStatus {
	st := ReservationBegun(old)
	took := TookTelescope(&st)
	for i := range st.Steps {
		r := &st.Steps[i]
		if IsDeactivationStep(r.Name) || !unfinished(r.State) {
			continue
		}
		r.Summary = SummaryEnded
		if !took {
			r.Summary = SummaryEndedBeforeTaking
		}
		if r.State == obsv1.RunRunning {
			r.StopTime = stamp(now)
		}
		r.State = obsv1.RunSkipped
	}
	if took {
		for _, name := range DeactivationSteps {
			if findStep(&st, name) == nil {
				st.Steps = append(st.Steps, obsv1.StepRecord{Name: name, RunRecord: obsv1.RunRecord{State: obsv1.RunPending}})
			}
		}
	}
	return st
}

// TookTelescope says whether the reservation took its telescope: its Wait is Done.
func TookTelescope(st *obsv1.ReservationStatus) bool {
	w := findStep(st, StepWait)
	return w != nil && w.State == obsv1.RunDone
}

// Ended says whether the deactivation steps have been appended (or the reservation ended
// before it took the telescope).
func Ended(st *obsv1.ReservationStatus) bool {
	if findStep(st, StepAbort) != nil {
		return true
	}
	w := findStep(st, StepWait)
	return w != nil && w.State == obsv1.RunSkipped
}

// FindStep returns the record of a step, or nil.
func FindStep(st *obsv1.ReservationStatus, step string) *obsv1.StepRecord { return findStep(st, step) }

// PhaseOf derives the phase and the current step from the steps. Once the deactivation steps
// are there only they count (a Failed activation step stays in the record, but a delete then
// deactivates from Abort).
func PhaseOf(st *obsv1.ReservationStatus) (obsv1.ReservationPhase, string) {
	var act, deact []*obsv1.StepRecord
	for i := range st.Steps {
		if IsDeactivationStep(st.Steps[i].Name) {
			deact = append(deact, &st.Steps[i])
		} else {
			act = append(act, &st.Steps[i])
		}
	}
	steps := act
	if len(deact) > 0 {
		steps = deact
	}
	if len(steps) == 0 {
		return obsv1.ReservationScheduled, StepWait
	}
	for _, r := range steps {
		if r.State == obsv1.RunFailed {
			return obsv1.ReservationFailed, r.Name
		}
	}
	current := ""
	for _, r := range steps {
		if r.State == obsv1.RunRunning {
			current = r.Name
			break
		}
	}
	if current == "" {
		for _, r := range steps {
			if r.State == obsv1.RunPending || r.State == "" {
				current = r.Name
				break
			}
		}
	}
	switch {
	case len(deact) > 0 && current == "":
		return obsv1.ReservationReleased, ""
	case len(deact) > 0:
		return obsv1.ReservationDeactivating, current
	case Ended(st):
		return obsv1.ReservationReleased, ""
	case current == "":
		return obsv1.ReservationReady, ""
	case current == StepWait:
		return obsv1.ReservationScheduled, current
	}
	return obsv1.ReservationActivating, current
}

// ComposeReservation derives the phase, the step, the endpoint and the two conditions from the
// steps. A condition's transition time moves only when its status changes.
func ComposeReservation(old obsv1.ReservationStatus, f ReservationFacts, now time.Time) obsv1.ReservationStatus {
	st := *old.DeepCopy()
	st.ObservedGeneration = f.Generation
	st.Phase, st.Step = PhaseOf(&st)
	st.Endpoint, st.Night = nil, f.Night.DeepCopy()
	if st.Phase == obsv1.ReservationReady && f.Endpoint != nil {
		ep := *f.Endpoint
		st.Endpoint = &ep
	}
	ready := obsv1.Condition{Type: obsv1.ConditionReady, Status: metav1.ConditionFalse}
	safe := obsv1.Condition{Type: obsv1.ConditionSafeToPowerOff, Status: metav1.ConditionFalse, Reason: string(st.Phase),
		Message: fmt.Sprintf("%s Telescope %s", st.Phase, f.Telescope)}
	switch st.Phase {
	case obsv1.ReservationReady:
		ready.Status, ready.Reason, ready.Message = metav1.ConditionTrue, ReasonReady, "Ready"
		if st.Endpoint != nil {
			ready.Message = fmt.Sprintf("Ready at %s:%d", st.Endpoint.Host, st.Endpoint.Port)
		}
		safe.Reason, safe.Message = ReasonInUse, "In use by "+f.Holder
	case obsv1.ReservationFailed:
		r := findStep(&st, st.Step)
		ready.Reason, ready.Message = ReasonStepFailed, r.Summary
		if strings.HasPrefix(r.Summary, TimedOutPrefix) {
			ready.Reason = ReasonStepTimedOut
		}
	case obsv1.ReservationReleased:
		ready.Reason, ready.Message = ReasonReleased, "Released Telescope "+f.Telescope
		safe.Status, safe.Reason, safe.Message = metav1.ConditionTrue, ReasonReleased, "Safe to power off"
	default:
		r := findStep(&st, st.Step)
		ready.Reason, ready.Message = st.Step, "Running"
		if r != nil && r.Summary != "" {
			ready.Message = r.Summary
		}
		if st.Phase == obsv1.ReservationScheduled {
			safe.Message = "Waiting to activate Telescope " + f.Telescope
		}
	}
	setCondition(&st, ready, f.Generation, now)
	setCondition(&st, safe, f.Generation, now)
	if b := bookingNow(&st, f); b != nil {
		confirmed := obsv1.Condition{Type: obsv1.ConditionConfirmed, Status: metav1.ConditionFalse, Reason: b.Reason, Message: b.Message}
		if b.Confirmed {
			confirmed.Status = metav1.ConditionTrue
		}
		setCondition(&st, confirmed, f.Generation, now)
	}
	return st
}

// bookingNow is what the Confirmed condition says: the rules' word while the booking is
// checked; once the telescope is taken, a booking queued behind another is confirmed (it
// holds the telescope now), and any other word stays as it was (nil).
func bookingNow(st *obsv1.ReservationStatus, f ReservationFacts) *Booking {
	if f.Booking != nil || !TookTelescope(st) {
		return f.Booking
	}
	if c := ReservationCondition(st, obsv1.ConditionConfirmed); c != nil && c.Reason == ReasonQueued {
		return &Booking{Confirmed: true, Reason: ReasonConfirmed, Message: "Holds Telescope " + f.Telescope + ": what it was queued behind is over"}
	}
	return nil
}

// ReservationCondition returns the condition of that type, or nil.
func ReservationCondition(st *obsv1.ReservationStatus, typ string) *obsv1.Condition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}

// ReservationEvents are the Events a change of status deserves, in order: one for a change
// of the Confirmed condition (a Warning when the booking is refused or queued), one per step that
// ended (Normal, reason the step's name, "Done in 19 s: <summary>"; or a Warning StepFailed or
// StepTimedOut), then one for a new phase (Ready, Deactivating, Released). A step the runner
// skipped without starting it (the rest of the activation after an end) gets none: it never
// ran, and the phase Event says why.
func ReservationEvents(old, updated *obsv1.ReservationStatus, telescope string) []Event {
	out := ConditionEvents(old.Conditions, updated.Conditions, obsv1.ConditionConfirmed)
	for i := range updated.Steps {
		r := &updated.Steps[i]
		if unfinished(r.State) || r.StartTime == nil {
			continue
		}
		if prev := findStep(old, r.Name); prev != nil && !unfinished(prev.State) && sameRun(prev, r) {
			continue
		}
		switch r.State {
		case obsv1.RunDone:
			out = append(out, Event{Type: corev1.EventTypeNormal, Reason: r.Name, Message: withSummary(fmt.Sprintf("Done in %d s", seconds(&r.RunRecord)), r.Summary)})
		case obsv1.RunSkipped:
			out = append(out, Event{Type: corev1.EventTypeNormal, Reason: r.Name, Message: withSummary("Skipped", r.Summary)})
		case obsv1.RunFailed:
			reason := ReasonStepFailed
			if strings.HasPrefix(r.Summary, TimedOutPrefix) {
				reason = ReasonStepTimedOut
			}
			out = append(out, Event{Type: corev1.EventTypeWarning, Reason: reason, Message: withSummary(r.Name, r.Summary)})
		}
	}
	if old.Phase == updated.Phase {
		return out
	}
	switch updated.Phase {
	case obsv1.ReservationReady:
		msg := fmt.Sprintf("Ready in %d s", span(findStep(updated, StepWait), lastStopped(updated)))
		if updated.Endpoint != nil {
			msg += fmt.Sprintf(" at %s:%d", updated.Endpoint.Host, updated.Endpoint.Port)
		}
		out = append(out, Event{Type: corev1.EventTypeNormal, Reason: string(updated.Phase), Message: msg})
	case obsv1.ReservationDeactivating:
		out = append(out, Event{Type: corev1.EventTypeNormal, Reason: string(updated.Phase), Message: "Deactivating Telescope " + telescope})
	case obsv1.ReservationReleased:
		n := int64(0)
		if a := findStep(updated, StepAbort); a != nil && a.StartTime != nil {
			if s := lastStopped(updated); s != nil && s.StopTime != nil {
				n = int64(s.StopTime.Sub(a.StartTime.Time) / time.Second)
			}
		}
		out = append(out, Event{Type: corev1.EventTypeNormal, Reason: string(updated.Phase),
			Message: fmt.Sprintf("Released in %d s: Telescope %s is safe to power off", n, telescope)})
	}
	return out
}

func setCondition(st *obsv1.ReservationStatus, c obsv1.Condition, generation int64, now time.Time) {
	c.ObservedGeneration = generation
	c.LastTransitionTime = *stamp(now)
	if prev := ReservationCondition(st, c.Type); prev != nil {
		if prev.Status == c.Status {
			c.LastTransitionTime = prev.LastTransitionTime
		}
		*prev = c
		return
	}
	st.Conditions = append(st.Conditions, c)
}

// stepOf returns the step's record, adding it (Pending) when the status has none.
func stepOf(st *obsv1.ReservationStatus, step string) *obsv1.StepRecord {
	if r := findStep(st, step); r != nil {
		return r
	}
	st.Steps = append(st.Steps, obsv1.StepRecord{Name: step, RunRecord: obsv1.RunRecord{State: obsv1.RunPending}})
	return &st.Steps[len(st.Steps)-1]
}

func findStep(st *obsv1.ReservationStatus, step string) *obsv1.StepRecord {
	for i := range st.Steps {
		if st.Steps[i].Name == step {
			return &st.Steps[i]
		}
	}
	return nil
}

func unfinished(s obsv1.RunState) bool {
	return s == obsv1.RunPending || s == obsv1.RunRunning || s == ""
}

// sameRun says whether two records of a step are of the same run (a retry has a new start).
func sameRun(a, b *obsv1.StepRecord) bool {
	return a.State == b.State && timeEqual(a.StartTime, b.StartTime) && timeEqual(a.StopTime, b.StopTime)
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

// lastStopped is the step that stopped last.
func lastStopped(st *obsv1.ReservationStatus) *obsv1.StepRecord {
	var last *obsv1.StepRecord
	for i := range st.Steps {
		r := &st.Steps[i]
		if r.StopTime != nil && (last == nil || !r.StopTime.Before(last.StopTime)) {
			last = r
		}
	}
	return last
}

// span is the whole seconds from from's stop to to's stop.
func span(from, to *obsv1.StepRecord) int64 {
	if from == nil || to == nil || from.StopTime == nil || to.StopTime == nil {
		return 0
	}
	return int64(to.StopTime.Sub(from.StopTime.Time) / time.Second)
}

func seconds(r *obsv1.RunRecord) int64 {
	if r.StartTime == nil || r.StopTime == nil {
		return 0
	}
	return int64(r.StopTime.Sub(r.StartTime.Time) / time.Second)
}

func withSummary(head, summary string) string {
	if summary == "" {
		return head
	}
	return head + ": " + summary
}

// stamp is a time as the status keeps it: UTC, whole seconds.
func stamp(t time.Time) *metav1.Time {
	m := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &m
}

// SameReservationStatus says whether two statuses say the same: what a write would change.
// It is written out, not reflected, so workflow code may call it (a reflective comparison
// walks maps, which a deterministic workflow must not).
func SameReservationStatus(a, b *obsv1.ReservationStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Phase != b.Phase || a.Step != b.Step ||
		len(a.Conditions) != len(b.Conditions) || len(a.Steps) != len(b.Steps) {
		return false
	}
	if (a.Endpoint == nil) != (b.Endpoint == nil) || (a.Endpoint != nil && *a.Endpoint != *b.Endpoint) {
		return false
	}
	if (a.Night == nil) != (b.Night == nil) || (a.Night != nil && (!a.Night.Start.Equal(&b.Night.Start) ||
		!a.Night.End.Equal(&b.Night.End) || a.Night.Between != b.Night.Between)) {
		return false
	}
	for i := range a.Conditions {
		x, y := &a.Conditions[i], &b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.ObservedGeneration != y.ObservedGeneration ||
			x.Reason != y.Reason || x.Message != y.Message || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	for i := range a.Steps {
		x, y := &a.Steps[i], &b.Steps[i]
		if x.Name != y.Name || !sameRunRecord(&x.RunRecord, &y.RunRecord) || len(x.Actions) != len(y.Actions) {
			return false
		}
		for j := range x.Actions {
			p, q := &x.Actions[j], &y.Actions[j]
			if p.Kind != q.Kind || p.Name != q.Name || p.Action != q.Action || !sameRunRecord(&p.RunRecord, &q.RunRecord) {
				return false
			}
		}
	}
	return true
}

func sameRunRecord(a, b *obsv1.RunRecord) bool {
	return a.State == b.State && a.Summary == b.Summary && timeEqual(a.StartTime, b.StartTime) && timeEqual(a.StopTime, b.StopTime)
}
