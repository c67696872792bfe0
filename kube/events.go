// The core/v1 Events the runner posts, people and observatory alike, and how a repeat is
// counted. An Event's name is derived from the object's name and a hash of everything that
// makes the Event the same (the object's UID, the Event's type, reason and message), so a
// retried activity, or another worker, finds the same Event and counts a repeat on it instead
// of posting a second one: client-go's event correlation, made to work across workers and
// restarts without a shared cache. The builders of each side (PersonEvent, ReservationEvent,
// ObjectEvent) say only what the Event is about.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Event is an Event about an object, before it has a name or a time.
type Event struct {
	// Type is corev1.EventTypeNormal or corev1.EventTypeWarning.
	Type    string
	Reason  string
	Message string
}

// EventRepeatWindow is how long after an Event's last occurrence the same Event counts as a
// repeat (its count goes up) rather than as news (it starts over): client-go's figure.
const EventRepeatWindow = 10 * time.Minute

// eventName is the name of an Event about the object named object: its name, a dot, and 16
// hex digits of a hash of the parts that make the Event the same. It is a DNS subdomain like
// any Event name, however long the object's name.
func eventName(object string, parts ...string) string {
	h := sha256.New()
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	suffix := "." + hex.EncodeToString(h.Sum(nil))[:16]
	return cut(object, 253-len(suffix)) + suffix
}

// newEvent is the first occurrence of e about the object about, as the Event named name in
// namespace, reported by component and instance (the worker's pod) at now.
func newEvent(name, namespace string, about corev1.ObjectReference, e Event, component, instance string, now time.Time) *corev1.Event {
	t := metav1.NewTime(now.UTC().Truncate(time.Second))
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: name, Namespace: namespace},
		InvolvedObject:      about,
		Type:                e.Type,
		Reason:              e.Reason,
		Message:             e.Message,
		Source:              corev1.EventSource{Component: component},
		ReportingController: component,
		ReportingInstance:   instance,
		FirstTimestamp:      t,
		LastTimestamp:       t,
		Count:               1,
	}
}

// EventRepeat is what an Event that already exists becomes when it happens again at now: within
// EventRepeatWindow of its last occurrence its count goes up; after it, it starts over as a new
// Event would, with a count of one.
func EventRepeat(existing *corev1.Event, now time.Time) (count int32, first, last metav1.Time) {
	last = metav1.NewTime(now.UTC().Truncate(time.Second))
	if existing.LastTimestamp.IsZero() || last.Sub(existing.LastTimestamp.Time) > EventRepeatWindow {
		return 1, last, last
	}
	count = existing.Count + 1
	if existing.Count < 1 {
		count = 2
	}
	first = existing.FirstTimestamp
	if first.IsZero() {
		first = existing.LastTimestamp
	}
	return count, first, last
}

// cut shortens a DNS subdomain to at most n characters so that it still ends in a letter or
// digit, as a name that gets a suffix must.
func cut(name string, n int) string {
	if len(name) <= n {
		return name
	}
	return strings.TrimRight(name[:n], "-.")
}
