// The people side's words: the labels and annotations a baker pod carries, the names
// Events report under, and the rule that says when a Person's picture must be read.
package kube

import (
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// The labels, annotations and names of the people side. They are the existing operator's, so
// a user's selectors and scripts keep working; never change them.
const (
	// PeopleComponent is the name the people side reports Events under, and its field manager.
	PeopleComponent = "people-operator"

	// LabelBaker marks a baker pod; the watcher watches pods by it cluster-wide.
	LabelBaker = "people.liken.sh/baker"
	// BakerLabelValue is LabelBaker's only value.
	BakerLabelValue = "avatar"

	// AnnotationPerson on a baker pod names its Person. An annotation, not a label: a Person's
	// name may be 253 characters, a label value only 63.
	AnnotationPerson = "people.liken.sh/person"
	// AnnotationSource on a baker pod is the spec.avatar it reads; a pod whose source is no
	// longer the Person's is stale and deleted.
	AnnotationSource = "people.liken.sh/source"
	// AnnotationChecked on a baker pod is the check-avatar value it was started for.
	AnnotationChecked = "people.liken.sh/checked"
	// AnnotationCheckAvatar on a Person asks for a new read whenever its value changes.
	AnnotationCheckAvatar = "people.liken.sh/check-avatar"

	// EventAvatarUpdated is the Event of a new picture that did not change AvatarReady.
	EventAvatarUpdated = "AvatarUpdated"
)

// BakerSelector selects every baker pod.
const BakerSelector = LabelBaker + "=" + BakerLabelValue

// AvatarCondition returns the Person's AvatarReady condition, or nil.
func AvatarCondition(s *peoplev1.PersonStatus) *peoplev1.Condition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == peoplev1.ConditionAvatarReady {
			return &s.Conditions[i]
		}
	}
	return nil
}

// AvatarReadDue tells whether the Person's picture must be read now: nothing was
// drawn yet, spec.avatar or the check-avatar annotation changed since the last read, or the
// spec changed (so a new display name redraws the initials). recheck is the six-hourly
// re-read, which applies to every source but an inline data: URI, whose bytes cannot change
// without a spec change; dataSource says the current source is one.
func AvatarReadDue(p *peoplev1.Person, recheck, dataSource bool) bool {
	st := &p.Status
	var source, checked string
	if st.Avatar != nil {
		source, checked = st.Avatar.Source, st.Avatar.Checked
	}
	cond := AvatarCondition(st)
	switch {
	case st.Thumbnail == "",
		p.Spec.Avatar != source,
		p.Annotations[AnnotationCheckAvatar] != checked,
		cond == nil || cond.ObservedGeneration != p.Generation:
		return true
	}
	return recheck && !dataSource && p.Spec.Avatar != ""
}
