// The pure parts of running a procedure on a resource: the record a run leaves in the
// resource's status.procedures, the Active condition of a Telescope or an Observatory, and the
// Events about either. The activities read the object, apply these, and write the status only
// when it changed, so a retried write changes nothing and posts nothing twice.
package kube

import (
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The procedures' triggers, reasons and messages.
const (
	TriggerActivation   = "activation"
	TriggerDeactivation = "deactivation"

	ReasonProcedureStarted = "ProcedureStarted"
	ReasonProcedureDone    = "ProcedureDone"
	ReasonProcedureFailed  = "ProcedureFailed"

	ReasonActive   = "Active"
	ReasonInactive = "Inactive"

	// A lock refused a move.
	ReasonMountUnparkRefused = "MountUnparkRefused"
	ReasonDomeParkRefused    = "DomeParkRefused"
)

// WithProcedureRecord is records with rec in place of the record of the same trigger: a
// resource keeps the last run of each procedure, which is what a restarted runner resumes.
// A new trigger is appended. The input is not changed.
func WithProcedureRecord(records []obsv1.ProcedureRecord, rec obsv1.ProcedureRecord) []obsv1.ProcedureRecord {
	out := make([]obsv1.ProcedureRecord, 0, len(records)+1)
	found := false
	for _, r := range records {
		if r.Trigger == rec.Trigger {
			if !found {
				out = append(out, rec)
			}
			found = true
			continue
		}
		out = append(out, r)
	}
	if !found {
		out = append(out, rec)
	}
	return out
}

// FindProcedureRecord is the record of trigger, or nil.
func FindProcedureRecord(records []obsv1.ProcedureRecord, trigger string) *obsv1.ProcedureRecord {
	for i := range records {
		if records[i].Trigger == trigger {
			return &records[i]
		}
	}
	return nil
}

// ActiveCondition is the Active condition a Telescope or an Observatory gets when a
// reservation's Activation starts (active) or its Deactivation starts (not active).
func ActiveCondition(active bool, reservation string) obsv1.Condition {
	if active {
		return obsv1.Condition{Type: obsv1.ConditionActive, Status: metav1.ConditionTrue,
			Reason: ReasonActive, Message: "Activated by Reservation " + reservation}
	}
	return obsv1.Condition{Type: obsv1.ConditionActive, Status: metav1.ConditionFalse,
		Reason: ReasonInactive, Message: "Deactivated by Reservation " + reservation}
}

// WithCondition is conds with c set: its transition time moves to now only when the status
// changes. The input is not changed.
func WithCondition(conds []obsv1.Condition, c obsv1.Condition, generation int64, now time.Time) []obsv1.Condition {
	c.ObservedGeneration = generation
	c.LastTransitionTime = metav1.NewTime(now.UTC().Truncate(time.Second))
	out := make([]obsv1.Condition, 0, len(conds)+1)
	found := false
	for _, prev := range conds {
		if prev.Type != c.Type {
			out = append(out, prev)
			continue
		}
		if prev.Status == c.Status {
			c.LastTransitionTime = prev.LastTransitionTime
		}
		out = append(out, c)
		found = true
	}
	if !found {
		out = append(out, c)
	}
	return out
}

// ShortDuration writes an action's timeout as a person wrote it: 10m, 90s, 2h (Go's own form
// for the rest).
func ShortDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return d.String()
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0 && d < time.Minute:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}
