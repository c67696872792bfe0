// The pure part of triggers: whether a trigger's condition holds and since when,
// and which runs the triggers of a resource ask for. A trigger fires once per transition of
// its condition into the wanted status: the transition time is the run's `since`, kept in the
// resource's procedure record, so a restarted worker neither repeats a run nor loses one.
package kube

import (
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TriggerRecord names a resource's i-th trigger in its status.procedures: triggers[i].
func TriggerRecord(i int) string { return "triggers[" + strconv.Itoa(i) + "]" }

// Observed is one resource's conditions, as a trigger reads them.
type Observed struct {
	Kind       obsv1.Kind
	Name       string
	Conditions []obsv1.Condition
}

// WhenHolds says whether ref holds for the resource owner and since when: the latest
// transition among the conditions it names. A reference without a kind is the owner itself;
// a kind without a name is every resource of that kind, all of which must match; a
// reference that matches no resource does not hold.
func WhenHolds(owner ResourceID, ref obsv1.ConditionRef, seen []Observed) (bool, time.Time) {
	kind, name, want := refOf(owner, ref)
	var since time.Time
	matched := false
	for _, o := range seen {
		if o.Kind != kind || (name != "" && o.Name != name) {
			continue
		}
		matched = true
		c := ConditionOf(o.Conditions, ref.Type)
		if c == nil || c.Status != want {
			return false, time.Time{}
		}
		if t := c.LastTransitionTime.Time; t.After(since) {
			since = t
		}
	}
	return matched, since
}

// refOf is what ref names with its defaults filled in: the owner itself when it names no
// kind, and the status True when it names none.
func refOf(owner ResourceID, ref obsv1.ConditionRef) (obsv1.Kind, string, metav1.ConditionStatus) {
	kind, name := ref.Kind, ref.Name
	if kind == "" {
		kind, name = owner.Kind, owner.Name
	}
	want := ref.Status
	if want == "" {
		want = metav1.ConditionTrue
	}
	return kind, name, want
}

// TriggerRun is a run one trigger of a resource asks for.
type TriggerRun struct {
	Index int
	// Since is the transition that made it due; At is when it may start (Since plus `for`).
	Since, At time.Time
}

// DueTriggers are the runs the triggers (their `when`s, in order) of owner ask for, given
// its procedure records: one per trigger whose condition holds, unless its record already
// shows that transition's run ended (Done, Failed) or let go (Skipped). A Pending record of
// the same transition is still due, and so is a Running one: a run that began completes,
// on another worker if its own died. With retry (the resource's retry annotation), a Failed
// run whose condition still holds is due again.
func DueTriggers(owner ResourceID, whens []obsv1.TriggerCondition, records []obsv1.ProcedureRecord, seen []Observed, retry bool) ([]TriggerRun, error) {
	var out []TriggerRun
	for i, w := range whens {
		wait, err := forDuration(w.For)
		if err != nil {
			return nil, fmt.Errorf("%s %s triggers[%d].when.for: %w", owner.Kind, owner.Name, i, err)
		}
		holds, since := WhenHolds(owner, w.ConditionRef, seen)
		if !holds {
			continue
		}
		since = since.UTC().Truncate(time.Second)
		if rec := FindProcedureRecord(records, TriggerRecord(i)); rec != nil && rec.Since != nil && rec.Since.Time.Equal(since) {
			switch rec.State {
			case obsv1.RunPending, obsv1.RunRunning:
			case obsv1.RunFailed:
				if !retry {
					continue
				}
			default:
				continue
			}
		}
		out = append(out, TriggerRun{Index: i, Since: since, At: since.Add(wait)})
	}
	return out, nil
}

// StaleTriggers are the indexes of the triggers whose Pending run is no longer due: their
// condition changed before the run could start, so it is Skipped.
func StaleTriggers(records []obsv1.ProcedureRecord, due []TriggerRun, count int) []int {
	var out []int
	for i := range count {
		rec := FindProcedureRecord(records, TriggerRecord(i))
		if rec == nil || rec.State != obsv1.RunPending {
			continue
		}
		stillDue := false
		for _, d := range due {
			if d.Index == i && rec.Since != nil && rec.Since.Time.Equal(d.Since) {
				stillDue = true
			}
		}
		if !stillDue {
			out = append(out, i)
		}
	}
	return out
}

// forDuration reads a trigger's `for`: empty is at once.
func forDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a Go duration such as 20m", s)
	}
	return d, nil
}

// Waiting says what a trigger run waits for before it may start: the first of the
// conditions its actions require that does not hold, as "Waiting for WeatherStation lab
// Safe=True"; "" when they all hold. A trigger's run waits for its requirements (the next
// pass looks again) where an activation's fails.
func Waiting(owner ResourceID, requires []obsv1.ConditionRef, seen []Observed) string {
	for _, ref := range requires {
		if holds, _ := WhenHolds(owner, ref, seen); holds {
			continue
		}
		kind, name, want := refOf(owner, ref)
		what := string(kind)
		if name != "" {
			what += " " + name
		}
		return fmt.Sprintf("Waiting for %s %s=%s", what, ref.Type, want)
	}
	return ""
}

// ConditionKinds adds to kinds the kinds whose conditions refs name; a reference without a
// kind names its owner's. A pass over the triggers reads only those kinds: one pass per
// change must stay cheap.
func ConditionKinds(kinds map[obsv1.Kind]bool, owner obsv1.Kind, refs []obsv1.ConditionRef) {
	for _, ref := range refs {
		if ref.Kind != "" {
			kinds[ref.Kind] = true
		} else {
			kinds[owner] = true
		}
	}
}

// WaitingRun is a due run that may not start yet, with what its Pending record says.
type WaitingRun struct {
	TriggerRun
	Why string
}

// SplitDue sorts the due runs of owner's triggers, in order, into those that start now and
// those that wait: for the first condition their actions require (requires, by trigger index)
// that does not hold, else for their At when it is after now. next is the earliest At of the
// runs that wait for their `for` (zero when none): when the next pass is due.
func SplitDue(owner ResourceID, due []TriggerRun, requires [][]obsv1.ConditionRef, seen []Observed, now time.Time) (start []TriggerRun, wait []WaitingRun, next time.Time) {
	for _, d := range due {
		if waiting := Waiting(owner, requires[d.Index], seen); waiting != "" {
			// Its requirements do not hold yet: it waits, Pending, and the pass after the
			// next change looks again.
			wait = append(wait, WaitingRun{TriggerRun: d, Why: waiting})
			continue
		}
		if d.At.After(now) {
			wait = append(wait, WaitingRun{TriggerRun: d,
				Why: "Pending: starts at " + d.At.UTC().Format(time.RFC3339) + " if the condition still holds"})
			if next.IsZero() || d.At.Before(next) {
				next = d.At
			}
			continue
		}
		start = append(start, d)
	}
	return start, wait, next
}
