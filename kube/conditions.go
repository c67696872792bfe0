// The conditions every observatory kind but Reservation shares, and their Events:
// each transition of a condition (it is new, or its status or reason changed; a new message
// alone is not news) posts one Event with the condition's reason and message, a Warning for
// ParentFound=False, Ready with reason Error and Safe=False. Whoever writes a condition posts
// the Events of its transitions, from the statuses before and after its write.
package kube

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The reasons of the ParentFound condition.
const (
	// ReasonNoParent: the resource names no parent; it is on the shelf.
	ReasonNoParent = "NoParent"
	// ReasonFound: every resource up to the Observatory exists.
	ReasonFound = "Found"
	// ReasonNotFound: a resource up to the Observatory is missing; the message names it.
	ReasonNotFound = "NotFound"
)

// ConditionEvents are the Events of the conditions of the given types that changed from old
// to updated, in the order of types. A condition that went away posts nothing: its writer
// dropped it along with the state it reported.
func ConditionEvents(old, updated []obsv1.Condition, types ...string) []Event {
	var out []Event
	for _, typ := range types {
		c := ConditionOf(updated, typ)
		if c == nil {
			continue
		}
		if prev := ConditionOf(old, typ); prev != nil && prev.Status == c.Status && prev.Reason == c.Reason {
			continue
		}
		out = append(out, Event{Type: conditionEventType(c), Reason: c.Reason, Message: c.Message})
	}
	return out
}

// conditionEventType is Warning for the conditions that report a failure a person must see.
func conditionEventType(c *obsv1.Condition) string {
	switch {
	case c.Type == obsv1.ConditionParentFound && c.Status == metav1.ConditionFalse,
		c.Type == obsv1.ConditionReady && c.Reason == ReasonError,
		c.Type == obsv1.ConditionSafe && c.Status == metav1.ConditionFalse,
		c.Type == obsv1.ConditionConfirmed && c.Status == metav1.ConditionFalse:
		return corev1.EventTypeWarning
	}
	return corev1.EventTypeNormal
}

// ReadyCondition is a Ready condition: True only with reason Ready or Connected (the phase
// the resource is in names the reason).
func ReadyCondition(reason, message string) obsv1.Condition {
	status := metav1.ConditionFalse
	if reason == ReasonReady || reason == string(obsv1.DeviceConnected) {
		status = metav1.ConditionTrue
	}
	return obsv1.Condition{Type: obsv1.ConditionReady, Status: status, Reason: reason, Message: message}
}

// ConditionOf returns the condition of that type, or nil.
func ConditionOf(conds []obsv1.Condition, typ string) *obsv1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// WithoutConditions is conds without the conditions of the given types. The input is not
// changed.
func WithoutConditions(conds []obsv1.Condition, types ...string) []obsv1.Condition {
	var out []obsv1.Condition
	for _, c := range conds {
		drop := false
		for _, t := range types {
			drop = drop || c.Type == t
		}
		if !drop {
			out = append(out, c)
		}
	}
	return out
}
