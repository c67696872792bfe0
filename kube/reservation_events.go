// The core/v1 Events about a Reservation, in its own namespace. As for a Person, an Event's
// name is derived from the Reservation's UID and everything that makes the Event the same, so
// a retried write, or another worker, counts a repeat on the Event that exists instead of
// posting a second one (the spec's 10-minute dedup, shared by every worker).
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// ReservationEventName is the name of an Event about a Reservation: its name, a dot, and 16
// hex digits of a hash of its UID and the Event's type, reason and message.
func ReservationEventName(reservation string, uid types.UID, e Event) string {
	h := sha256.New()
	for _, part := range []string{string(uid), e.Type, e.Reason, e.Message} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	suffix := "." + hex.EncodeToString(h.Sum(nil))[:16]
	return cut(reservation, 253-len(suffix)) + suffix
}

// ReservationEvent is the first occurrence of an Event about the Reservation namespace/name,
// reported by instance (the worker's pod) at now.
func ReservationEvent(namespace, reservation string, uid types.UID, e Event, instance string, now time.Time) *corev1.Event {
	t := metav1.NewTime(now.UTC().Truncate(time.Second))
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: ReservationEventName(reservation, uid, e), Namespace: namespace},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: obsv1.SchemeGroupVersion.String(),
			Kind:       string(obsv1.KindReservation),
			Namespace:  namespace,
			Name:       reservation,
			UID:        uid,
		},
		Type:                e.Type,
		Reason:              e.Reason,
		Message:             e.Message,
		Source:              corev1.EventSource{Component: ObservatoryComponent},
		ReportingController: ObservatoryComponent,
		ReportingInstance:   instance,
		FirstTimestamp:      t,
		LastTimestamp:       t,
		Count:               1,
	}
}
