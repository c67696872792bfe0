// The core/v1 Events the people side posts about a Person. A Person is cluster-scoped, and a
// core/v1 Event about a cluster-scoped object lives in `default` (the API server accepts no
// other namespace for it), which is why the Role for Events is there.
//
// An Event's name is derived from the Person's UID, the Event's type, reason and message, so a
// retried activity, or another worker, finds the same Event and counts a repeat on it instead
// of posting a second one. This is client-go's event correlation, made to work across workers
// and restarts without a shared cache.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// EventRepeatWindow is how long after an Event's last occurrence the same Event counts as a
// repeat (its count goes up) rather than as news (it starts over): client-go's figure.
const EventRepeatWindow = 10 * time.Minute

// PersonEventName is the name of the Event about the Person with this name and UID: the
// Person's name, a dot, and 16 hex digits of a hash of everything that makes the Event the same.
// It is a DNS subdomain like any Event name, however long the Person's name.
func PersonEventName(person string, uid types.UID, e Event) string {
	h := sha256.New()
	for _, part := range []string{string(uid), e.Type, e.Reason, e.Message} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	suffix := "." + hex.EncodeToString(h.Sum(nil))[:16]
	return cut(person, 253-len(suffix)) + suffix
}

// PersonEvent is the first occurrence of an Event about a Person, in namespace, reported by
// instance (the worker's pod) at now.
func PersonEvent(person string, uid types.UID, e Event, namespace, instance string, now time.Time) *corev1.Event {
	t := metav1.NewTime(now.UTC().Truncate(time.Second))
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: PersonEventName(person, uid, e), Namespace: namespace},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: peoplev1.SchemeGroupVersion.String(),
			Kind:       peoplev1.PersonKind.Kind,
			Name:       person,
			UID:        uid,
		},
		Type:                e.Type,
		Reason:              e.Reason,
		Message:             e.Message,
		Source:              corev1.EventSource{Component: PeopleComponent},
		ReportingController: PeopleComponent,
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
