// A Reservation's booking against its site's rules (kube.CheckBooking), read with the
// Reservation: the namespace's reservations are the site's bookings, each seen as the rules
// see it (its window, whether it was refused, whether it still holds a telescope). Only those
// that can matter are read: the telescope's, and the holder's when a share is limited (the
// API server selects them by spec field), made before this one. A window the site guard keeps
// wholly in daylight is marked too.
package observatory

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// checkBooking checks r against the rules of its site, among the site's reservations.
func (a *Activities) checkBooking(ctx context.Context, r *obsv1.Reservation, site *obsv1.Observatory) (kube.Booking, error) {
	selectors := []string{"spec.telescope=" + r.Spec.Telescope}
	if rules := site.Spec.Booking; rules != nil && (rules.MaxPerNight != nil || rules.MaxPerWeek != nil) {
		selectors = append(selectors, "spec.holder="+r.Spec.Holder)
	}
	seen := map[string]bool{r.Name: true}
	var others []kube.Booked
	for _, sel := range selectors {
		list, err := a.resource(obsv1.KindReservation, r.Namespace).List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			return kube.Booking{}, fmt.Errorf("list the Reservations of %s with %s: %w", r.Namespace, sel, err)
		}
		for _, u := range list.Items {
			var o obsv1.Reservation
			if seen[u.GetName()] || !u.GetCreationTimestamp().Time.Before(r.CreationTimestamp.Add(time.Second)) ||
				runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &o) != nil {
				continue
			}
			seen[u.GetName()] = true
			others = append(others, booked(&o, site.Spec.Location))
		}
	}
	self := booked(r, site.Spec.Location)
	b := kube.MarkDaylight(kube.CheckBooking(self, others, site.Spec.Booking, site.Spec.Location.Longitude), self, site.Spec)
	if !b.Confirmed {
		logFor(ctx).Info("a Reservation's booking is not confirmed", "reservation", r.Name, "namespace", r.Namespace,
			"reason", b.Reason, "why", b.Message)
	}
	return b, nil
}

// booked is a Reservation as the booking rules see it.
func booked(r *obsv1.Reservation, loc obsv1.Location) kube.Booked {
	b := kube.Booked{Name: r.Name, Telescope: r.Spec.Telescope, Holder: r.Spec.Holder,
		Created: r.CreationTimestamp.UTC(), Start: r.CreationTimestamp.UTC()}
	start, end := r.Spec.Start, r.Spec.End
	if r.Spec.Night != "" {
		if w := kube.PlanNight(r.Spec, loc).Window; w != nil {
			start, end = &w.Start, &w.End
		}
	}
	if start != nil {
		b.Start = start.UTC()
	}
	if end != nil {
		e := end.UTC()
		b.End = &e
	}
	b.Refused = kube.BookingRefused(kube.ReservationCondition(&r.Status, obsv1.ConditionConfirmed))
	b.Over = r.DeletionTimestamp != nil || r.Status.Phase == obsv1.ReservationReleased || r.Status.Phase == obsv1.ReservationFailed
	return b
}
