// Booking among observers on make run's kind of stack: a request that overlaps an earlier
// booking is marked (queued) or refused at once as the site's rules say, so is one over a
// rule, each with a Confirmed condition and a Warning Event in the rule's words, and the
// first booking is untouched; a window the site guard keeps in daylight is marked too; a
// change of the rules checks the waiting bookings again; when the earlier booking goes, the
// later is confirmed. Two
// reservations waiting for one telescope start in the order of their holders' priorities.
package observatory

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestABookingIsMarkedOrRefusedAtOnceAndTheFirstIsUntouched(t *testing.T) {
	startSystem(t)
	ns := namespace(t, "booking")
	env.ApplyObservatory(t, "examples/observatory.yaml", ns, obsv1.KindReservation)
	at := eveningIn3Days(t, ns)
	book(t, ns, "first", "ada", at(0), at(2))
	awaitBooking(t, ns, "first", kube.ReasonConfirmed)

	began := time.Now()
	book(t, ns, "second", "bob", at(1), at(3))
	msg := awaitBooking(t, ns, "second", kube.ReasonQueued)
	t.Logf("the overlap was marked %v after the request", time.Since(began).Round(time.Millisecond))
	require.Contains(t, msg, "Overlaps Reservation first of ada")
	awaitWarning(t, ns, obsv1.KindReservation, "second", kube.ReasonQueued, msg)
	require.Equal(t, "Within the site's booking rules; no earlier booking overlaps it", awaitBooking(t, ns, "first", kube.ReasonConfirmed))

	_, err := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "lab", types.MergePatchType,
		[]byte(`{"spec":{"booking":{"overlaps":"Refuse","maxDuration":"3h","maxPerNight":"4h"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	began = time.Now()
	require.Contains(t, awaitBooking(t, ns, "second", kube.ReasonOverlap), "Refused: overlaps Reservation first of ada",
		"the waiting booking is checked again under the site's new rules")
	t.Logf("the rules' change refused the queued booking %v after it", time.Since(began).Round(time.Millisecond))
	for _, c := range []struct {
		name, holder string
		from, to     int
		reason, says string
	}{
		{"third", "carol", 1, 2, kube.ReasonOverlap, "Refused: overlaps Reservation first of ada"},
		{"long", "ada", 3, 7, kube.ReasonTooLong, "Refused: it lasts 4h; the site allows at most 3h per reservation (spec.booking.maxDuration)"},
		{"more", "ada", 3, 5, kube.ReasonConfirmed, "Within the site's booking rules"},
		{"most", "ada", 5, 6, kube.ReasonNightShare, "Refused: ada would hold 5h in the night of"},
	} {
		began := time.Now()
		book(t, ns, c.name, c.holder, at(c.from), at(c.to))
		msg := awaitBooking(t, ns, c.name, c.reason)
		t.Logf("%s was %s %v after the request: %s", c.name, c.reason, time.Since(began).Round(time.Millisecond), msg)
		require.Contains(t, msg, c.says)
		if c.reason != kube.ReasonConfirmed {
			awaitWarning(t, ns, obsv1.KindReservation, c.name, c.reason, msg)
			r, _ := reservation(t, ns, c.name)
			require.Equal(t, msg, kube.ReservationCondition(&r.Status, obsv1.ConditionReady).Message, "the Wait says why it will not start")
		}
	}
	awaitBooking(t, ns, "first", kube.ReasonConfirmed)

	// With the guard's Sun limit at civil dusk, a window at the site's noon is marked.
	_, err = env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "lab", types.MergePatchType,
		[]byte(`{"spec":{"safety":{"sunAltitude":-6}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	began = time.Now()
	book(t, ns, "noon", "dave", at(-8), at(-6))
	msg = awaitBooking(t, ns, "noon", kube.ReasonDaylight)
	t.Logf("noon was %s %v after the request: %s", kube.ReasonDaylight, time.Since(began).Round(time.Millisecond), msg)
	require.Contains(t, msg, "In daylight: the Sun stays above -6° all through")
	awaitWarning(t, ns, obsv1.KindReservation, "noon", kube.ReasonDaylight, msg)
	awaitBooking(t, ns, "first", kube.ReasonConfirmed)

	require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Delete(context.Background(), "first", metav1.DeleteOptions{}))
	awaitBooking(t, ns, "second", kube.ReasonConfirmed)
}

func TestTwoReservationsWaitingForATelescopeStartInTheOrderOfTheirPriorities(t *testing.T) {
	startSystem(t)
	ns := namespace(t, "priority")
	c := temporal(t)
	for _, r := range []string{"tonight", "low", "high"} {
		endNightAtEnd(t, c, ns, r)
	}
	env.ApplyObservatory(t, "examples/observatory.yaml", ns, obsv1.KindReservation)
	_, err := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "lab", types.MergePatchType,
		[]byte(`{"spec":{"booking":{"priorities":[{"holder":"carol","priority":10}]}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	create(t, ns, "kind: Reservation\nmetadata: {name: tonight}\nspec: {telescope: east, holder: ada}")
	awaitPhase(t, ns, "tonight", obsv1.ReservationReady)
	create(t, ns, "kind: Reservation\nmetadata: {name: low}\nspec: {telescope: east, holder: bob}")
	awaitBooking(t, ns, "low", kube.ReasonQueued)
	create(t, ns, "kind: Reservation\nmetadata: {name: high}\nspec: {telescope: east, holder: carol}")
	awaitBooking(t, ns, "high", kube.ReasonQueued)
	eventually(t, 30*time.Second, "both wait for tonight", func() (bool, string) {
		l, _ := reservation(t, ns, "low")
		h, _ := reservation(t, ns, "high")
		lw, hw := step(l, kube.StepWait).Summary, step(h, kube.StepWait).Summary
		return lw == hw && lw == "Telescope east is held by Reservation tonight", lw + " / " + hw
	})

	require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Delete(context.Background(), "tonight", metav1.DeleteOptions{}))
	awaitPhase(t, ns, "high", obsv1.ReservationReady)
	l, _ := reservation(t, ns, "low")
	require.Equal(t, obsv1.ReservationScheduled, l.Status.Phase)
	require.Equal(t, "Telescope east is held by Reservation high", step(l, kube.StepWait).Summary)
}

// eveningIn3Days is the site's hours of an evening three days from now: at(h) is h hours
// after 20:00 by the site's solar time (its longitude), so every hour is that night's.
func eveningIn3Days(t *testing.T, ns string) func(h int) time.Time {
	u, err := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Get(context.Background(), "lab", metav1.GetOptions{})
	require.NoError(t, err)
	longitude, _, _ := unstructured.NestedFloat64(u.Object, "spec", "location", "longitude")
	day := time.Now().UTC().AddDate(0, 0, 3)
	evening := time.Date(day.Year(), day.Month(), day.Day(), 20, 0, 0, 0, time.UTC).
		Add(-time.Duration(longitude / 15 * float64(time.Hour))).Truncate(time.Minute)
	return func(h int) time.Time { return evening.Add(time.Duration(h) * time.Hour) }
}

func book(t *testing.T, ns, name, holder string, start, end time.Time) {
	create(t, ns, fmt.Sprintf("kind: Reservation\nmetadata: {name: %s}\nspec: {telescope: east, holder: %s, start: %q, end: %q}",
		name, holder, start.Format(time.RFC3339), end.Format(time.RFC3339)))
}

// awaitBooking waits until the Reservation's Confirmed condition has the reason, and returns
// its message.
func awaitBooking(t *testing.T, ns, name, reason string) string {
	t.Helper()
	var msg string
	eventually(t, 30*time.Second, "Reservation "+name+"'s booking is "+reason, func() (bool, string) {
		r, _ := reservation(t, ns, name)
		c := kube.ReservationCondition(&r.Status, obsv1.ConditionConfirmed)
		if c == nil {
			return false, "no Confirmed condition"
		}
		msg = c.Message
		return c.Reason == reason, c.Reason + ": " + c.Message
	})
	return msg
}

func awaitPhase(t *testing.T, ns, name string, phase obsv1.ReservationPhase) {
	t.Helper()
	eventually(t, 3*time.Minute, "Reservation "+name+" is "+string(phase), func() (bool, string) {
		r, _ := reservation(t, ns, name)
		return r.Status.Phase == phase, fmt.Sprintf("%s %s", r.Status.Phase, r.Status.Step)
	})
}
