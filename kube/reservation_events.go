// The core/v1 Events about a Reservation and the other observatory objects, in the object's
// own namespace. As for a Person (events.go), an Event's name is derived from the object's
// UID and everything that makes the Event the same, so a retried write, or another worker,
// counts a repeat on the Event that exists instead of posting a second one (a
// 10-minute dedup, shared by every worker).
package kube

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// ReservationEventName is the name of an Event about a Reservation: its name, a dot, and 16
// hex digits of a hash of its UID and the Event's type, reason and message.
func ReservationEventName(reservation string, uid types.UID, e Event) string {
	return eventName(reservation, string(uid), e.Type, e.Reason, e.Message)
}

// ReservationEvent is the first occurrence of an Event about the Reservation namespace/name,
// reported by instance (the worker's pod) at now.
func ReservationEvent(namespace, reservation string, uid types.UID, e Event, instance string, now time.Time) *corev1.Event {
	r := ResourceID{Kind: obsv1.KindReservation, Namespace: namespace, Name: reservation, UID: uid}
	return newEvent(ReservationEventName(reservation, uid, e), namespace, observatoryRef(r), e, ObservatoryComponent, instance, now)
}

// ObjectEvent is the first occurrence of an Event about an observatory object r (a device, a
// Telescope, an Observatory), named like a Reservation's but with its kind in the hash, so a
// repeat is counted on the Event that exists.
func ObjectEvent(r ResourceID, e Event, instance string, now time.Time) *corev1.Event {
	name := eventName(r.Name, string(r.Kind), string(r.UID), e.Type, e.Reason, e.Message)
	return newEvent(name, r.Namespace, observatoryRef(r), e, ObservatoryComponent, instance, now)
}

// observatoryRef is an Event's reference to the observatory object r.
func observatoryRef(r ResourceID) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: obsv1.SchemeGroupVersion.String(),
		Kind:       string(r.Kind),
		Namespace:  r.Namespace,
		Name:       r.Name,
		UID:        r.UID,
	}
}
