// The core/v1 Events the people side posts about a Person. A Person is cluster-scoped, and a
// core/v1 Event about a cluster-scoped object lives in `default` (the API server accepts no
// other namespace for it), which is why the Role for Events is there. Naming and counting are
// shared with the observatory side (events.go).
package kube

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// PersonEventName is the name of the Event about the Person with this name and UID.
func PersonEventName(person string, uid types.UID, e Event) string {
	return eventName(person, string(uid), e.Type, e.Reason, e.Message)
}

// PersonEvent is the first occurrence of an Event about a Person, in namespace, reported by
// instance (the worker's pod) at now.
func PersonEvent(person string, uid types.UID, e Event, namespace, instance string, now time.Time) *corev1.Event {
	about := corev1.ObjectReference{
		APIVersion: peoplev1.SchemeGroupVersion.String(),
		Kind:       peoplev1.PersonKind.Kind,
		Name:       person,
		UID:        uid,
	}
	return newEvent(PersonEventName(person, uid, e), namespace, about, e, PeopleComponent, instance, now)
}
