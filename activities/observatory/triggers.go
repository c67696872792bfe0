// Triggers: between the end of Activation and the start of Deactivation, a
// resource's triggers run their actions once per transition of their condition. The
// Reservation workflow calls RunTriggers whenever a condition may have changed and when the
// earliest `for` it was told of runs out; one pass runs at a time per reservation, so one run
// at a time per resource. A pass reads every condition in the namespace, lets go (Skipped)
// the Pending runs whose condition changed, records as Pending the runs whose `for` has not
// run out, and runs the rest: in parallel across resources (`after` waits for the runs of the
// same pass), in order within one. The records carry each run's `since`, so a pass after a
// restart neither repeats a run nor loses one, and a run that began completes.
package observatory

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// triggersPass is procedureTiers' trigger for a pass over the triggers: every resource
// that has any.
const triggersPass = "triggers"

// TriggersResult is what a pass over a reservation's triggers did.
type TriggersResult struct {
	// Ran names the runs that ended, such as "Mount east triggers[0]: Done: state: Parked".
	Ran []string `json:",omitempty"`
	// Pending counts the runs waiting for their `for`; NextAt is when the first may start.
	Pending int        `json:",omitempty"`
	NextAt  *time.Time `json:",omitempty"`
}

// RunTriggers is one pass over the triggers of the reservation's resources.
func (a *Activities) RunTriggers(ctx context.Context, in StepInput) (TriggersResult, error) {
	tiers, err := a.procedureTiers(ctx, in, triggersPass)
	if err != nil {
		return TriggersResult{}, err
	}
	var owners []*procResource
	for _, t := range tiers {
		owners = append(owners, t...)
	}
	if len(owners) == 0 {
		return TriggersResult{}, nil
	}
	// Only the kinds the triggers name are read: one pass per change must stay cheap.
	kinds := map[obsv1.Kind]bool{}
	for _, r := range owners {
		for _, t := range r.triggers {
			kube.ConditionKinds(kinds, r.id.Kind, append([]obsv1.ConditionRef{t.when().ConditionRef}, t.requires()...))
		}
	}
	seen, err := a.observe(ctx, in.Namespace, kinds)
	if err != nil {
		return TriggersResult{}, err
	}
	var res TriggersResult
	ready, err := a.dueTriggers(ctx, owners, seen, &res)
	if err != nil {
		return res, err
	}
	if err := a.runDueTriggers(ctx, in, ready, &res); err != nil {
		return res, err
	}
	// The retries asked for are answered: their Failed runs ran again (or their condition
	// no longer holds). A newer value, asked for meanwhile, stays for the next pass.
	for _, r := range owners {
		if r.retry != "" {
			if err := a.removeRetry(ctx, r.id.Kind, r.id.Namespace, r.id.Name, r.retry); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// dueTriggers decides the runs the owners' triggers ask for now: it lets go (Skipped) the
// Pending runs no longer due, records as Pending (counted in res) those that wait, and
// returns the runs to start now, per resource in trigger order.
func (a *Activities) dueTriggers(ctx context.Context, owners []*procResource, seen []kube.Observed, res *TriggersResult) (map[*procResource][]kube.TriggerRun, error) {
	now := a.now().UTC()
	ready := map[*procResource][]kube.TriggerRun{}
	for _, r := range owners {
		whens := make([]obsv1.TriggerCondition, len(r.triggers))
		requires := make([][]obsv1.ConditionRef, len(r.triggers))
		for i, t := range r.triggers {
			whens[i], requires[i] = t.when(), t.requires()
		}
		due, err := kube.DueTriggers(r.id, whens, r.records, seen, r.retry != "")
		if err != nil {
			return nil, badSpec(r.id.Kind, r.id.Name, err)
		}
		for _, i := range kube.StaleTriggers(r.records, due, len(whens)) {
			rec := *kube.FindProcedureRecord(r.records, kube.TriggerRecord(i))
			rec.State, rec.StopTime = obsv1.RunSkipped, a.procStamp()
			rec.Summary = "Skipped: the condition changed before the run could start"
			if _, err := a.writeProcedure(ctx, r, rec); err != nil {
				return nil, err
			}
		}
		start, wait, next := kube.SplitDue(r.id, due, requires, seen, now)
		for _, w := range wait {
			if err := a.recordPending(ctx, r, w.TriggerRun, w.Why); err != nil {
				return nil, err
			}
			res.Pending++
		}
		if !next.IsZero() && (res.NextAt == nil || next.Before(*res.NextAt)) {
			res.NextAt = &next
		}
		if len(start) > 0 {
			ready[r] = start
		}
	}
	return ready, nil
}

// runDueTriggers runs the ready runs: in parallel across resources (`after` waits for the
// runs of the same pass), in order within one, each as its own procedure named triggers[i].
// It names in res every run that ended and returns the first error.
func (a *Activities) runDueTriggers(ctx context.Context, in StepInput, ready map[*procResource][]kube.TriggerRun, res *TriggersResult) error {
	hb := newHeartbeat(ctx)
	defer hb.stop()
	runs := make(map[string]chan struct{}, len(ready))
	for r := range ready {
		runs[r.id.String()] = make(chan struct{})
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr error
	for r, due := range ready {
		wg.Go(func() {
			defer close(runs[r.id.String()])
			for _, d := range due {
				name := kube.TriggerRecord(d.Index)
				run := *r
				run.actions = r.triggers[d.Index].Run
				runIn := in
				runIn.Started = d.Since
				runIn.Actions = nil
				if prev := kube.FindProcedureRecord(r.records, name); prev != nil && prev.Since != nil && prev.Since.Time.Equal(d.Since) {
					runIn.Actions = prev.Actions
				}
				_, end := a.runResource(ctx, runIn, name, &run, runs, hb)
				mu.Lock()
				if end.err != nil && firstErr == nil {
					firstErr = end.err
				}
				res.Ran = append(res.Ran, fmt.Sprintf("%s %s %s: %s", r.id.Kind, r.id.Name, name, end.summary))
				mu.Unlock()
				if end.err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	sort.Strings(res.Ran)
	return firstErr
}

// recordPending records a run that waits (for its trigger's `for`, or for what its actions
// require), saying why; a record that says so already is left as it is.
func (a *Activities) recordPending(ctx context.Context, r *procResource, d kube.TriggerRun, why string) error {
	name := kube.TriggerRecord(d.Index)
	if prev := kube.FindProcedureRecord(r.records, name); prev != nil && prev.State == obsv1.RunPending &&
		prev.Since != nil && prev.Since.Time.Equal(d.Since) && prev.Summary == why {
		return nil
	}
	rec := obsv1.ProcedureRecord{
		Trigger:   name,
		Since:     &metav1.Time{Time: d.Since},
		RunRecord: obsv1.RunRecord{State: obsv1.RunPending, Summary: why},
	}
	_, err := a.writeProcedure(ctx, r, rec)
	return err
}

// observe reads the conditions of the resources of kinds in ns.
func (a *Activities) observe(ctx context.Context, ns string, kinds map[obsv1.Kind]bool) ([]kube.Observed, error) {
	var out []kube.Observed
	for _, kind := range obsv1.Kinds {
		if !kinds[kind] {
			continue
		}
		list, err := a.resource(kind, ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("list the %s resources in %s: %w", kind, ns, err)
		}
		for i := range list.Items {
			out = append(out, kube.Observed{Kind: kind, Name: list.Items[i].GetName(), Conditions: statusConditions(&list.Items[i])})
		}
	}
	return out, nil
}

// statusConditions and statusProcedures read an object's status fields; a field that does
// not decode reads as empty, as the runner rewrites it whole.
func statusConditions(u *unstructured.Unstructured) []obsv1.Condition {
	var out []obsv1.Condition
	decodeStatus(u, "conditions", &out)
	return out
}

func statusProcedures(u *unstructured.Unstructured) []obsv1.ProcedureRecord {
	var out []obsv1.ProcedureRecord
	decodeStatus(u, "procedures", &out)
	return out
}

func decodeStatus(u *unstructured.Unstructured, field string, into any) {
	v, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "status", field)
	if !ok {
		return
	}
	if raw, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(raw, into)
	}
}

// skipTriggerRuns ends the triggers' life at the start of deactivation: a run still Pending
// or Running (its pass was cancelled) becomes Skipped.
func (a *Activities) skipTriggerRuns(ctx context.Context, in StepInput) error {
	tiers, err := a.procedureTiers(ctx, in, triggersPass)
	if err != nil {
		return err
	}
	for _, t := range tiers {
		for _, r := range t {
			for _, rec := range r.records {
				if !strings.HasPrefix(rec.Trigger, "triggers[") || (rec.State != obsv1.RunPending && rec.State != obsv1.RunRunning) {
					continue
				}
				rec.State, rec.StopTime = obsv1.RunSkipped, a.procStamp()
				rec.Summary = "Skipped: deactivation began"
				if _, err := a.writeProcedure(ctx, r, rec); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
