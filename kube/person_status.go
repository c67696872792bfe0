// The status a Person gets after a read of its picture, and the Event that tells a user about
// it. Both are pure: the activity reads the Person and the picture, this decides what the
// status becomes and whether the change is worth an Event, and the activity writes both. The
// rules: a photo survives a failed read, the condition's transition time moves
// only when its status does, and one Event marks each transition.
package kube

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures/avatar"
)

// KeptPictureNote ends the message of a failed read when the status keeps a photo.
const KeptPictureNote = "; the last good picture stays"

// AvatarRead is what one read of a Person's picture found.
type AvatarRead struct {
	// Source is the spec.avatar that was read.
	Source string
	// Reason is the AvatarReady reason: a success (Initials, Fetched, Inline, Baked) or a
	// failure (FetchFailed, DecodeFailed, BakeFailed, UnsupportedScheme).
	Reason string
	// Message says what to fix after a failure; empty on success.
	Message string
	// Thumbnail is the new picture (a data URI) after a success that is not Unchanged.
	Thumbnail string
	// Unchanged: the source is still the version recorded in the status (an HTTP 304, or a
	// file with the same mtime and size), so the thumbnail and the version stay.
	Unchanged bool
	// Initials is the Person's drawn initials: the picture after a failure when the status
	// holds no photo to keep.
	Initials string
	// The source's version after a success: ETag and Last-Modified for HTTP, the file's
	// modification time (RFC 3339) and size for a file.
	ETag, LastModified string
	Size               int64
}

// Succeeded tells whether the read made a picture.
func (r AvatarRead) Succeeded() bool { return SuccessReason(r.Reason) }

// SuccessReason tells whether an AvatarReady reason is a success.
func SuccessReason(reason string) bool {
	switch reason {
	case avatar.ReasonInitials, avatar.ReasonFetched, avatar.ReasonInline, avatar.ReasonBaked:
		return true
	}
	return false
}

// IsPhoto tells whether a thumbnail is a picture that was read, not drawn initials: the
// picture a failed read keeps.
func IsPhoto(thumbnail string) bool {
	return thumbnail != "" && !avatar.IsInitials(thumbnail)
}

// PersonStatusAfter is the status a Person has after a read of its picture, given the status
// before it, the Person's generation and check-avatar annotation at the read, and the time.
// Everything the read does not own (status.uid, other conditions) is kept.
//
// Both a success and a failure record the source, the check-avatar value and the generation,
// so the same read is not due again: a failing source is read again only when something
// changes or the six-hourly re-check comes, never in a loop. A failure clears the recorded
// version, so the next read of that source is a full one.
func PersonStatusAfter(old peoplev1.PersonStatus, read AvatarRead, generation int64, checked string, now time.Time) peoplev1.PersonStatus {
	st := *old.DeepCopy()
	avatar := peoplev1.AvatarStatus{Source: read.Source, Checked: checked}
	cond := peoplev1.Condition{
		Type:               peoplev1.ConditionAvatarReady,
		ObservedGeneration: generation,
		Reason:             read.Reason,
	}
	switch {
	case read.Succeeded() && read.Unchanged && old.Thumbnail != "":
		cond.Status = metav1.ConditionTrue
		if old.Avatar != nil {
			avatar.ETag, avatar.LastModified, avatar.Size = old.Avatar.ETag, old.Avatar.LastModified, old.Avatar.Size
		}
	case read.Succeeded():
		cond.Status = metav1.ConditionTrue
		st.Thumbnail = read.Thumbnail
		avatar.ETag, avatar.LastModified, avatar.Size = read.ETag, read.LastModified, read.Size
	default:
		cond.Status = metav1.ConditionFalse
		cond.Message = read.Message
		if IsPhoto(old.Thumbnail) {
			cond.Message += KeptPictureNote
		} else {
			st.Thumbnail = read.Initials
		}
	}
	if avatar == (peoplev1.AvatarStatus{}) {
		st.Avatar = nil
	} else {
		st.Avatar = &avatar
	}

	// The transition time says since when the picture has been good (or bad): a new reason
	// or message with the same status does not move it.
	cond.LastTransitionTime = metav1.NewTime(now.UTC().Truncate(time.Second))
	if prev := AvatarCondition(&old); prev != nil && prev.Status == cond.Status {
		cond.LastTransitionTime = prev.LastTransitionTime
	}
	if prev := AvatarCondition(&st); prev != nil {
		*prev = cond
	} else {
		st.Conditions = append(st.Conditions, cond)
	}
	return st
}

// AvatarUpdatedMessage is the message of an AvatarUpdated Event.
const AvatarUpdatedMessage = "the thumbnail holds a new picture"

// AvatarEvent is the Event a status change deserves, if any: one per AvatarReady transition
// (a new condition, or a new status or reason) with the condition's reason and message,
// Warning when the picture failed; or AvatarUpdated when a new picture arrived without a
// transition. A new message alone (one failure after another of the same kind) is not news.
func AvatarEvent(old, updated *peoplev1.PersonStatus) (Event, bool) {
	nc := AvatarCondition(updated)
	if nc == nil {
		return Event{}, false
	}
	oc := AvatarCondition(old)
	if oc == nil || oc.Status != nc.Status || oc.Reason != nc.Reason {
		typ := corev1.EventTypeNormal
		if nc.Status == metav1.ConditionFalse {
			typ = corev1.EventTypeWarning
		}
		return Event{Type: typ, Reason: nc.Reason, Message: nc.Message}, true
	}
	if nc.Status == metav1.ConditionTrue && updated.Thumbnail != old.Thumbnail {
		return Event{Type: corev1.EventTypeNormal, Reason: EventAvatarUpdated, Message: AvatarUpdatedMessage}, true
	}
	return Event{}, false
}
