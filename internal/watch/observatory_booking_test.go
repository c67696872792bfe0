// A booking that goes has the waiting ones that counted it checked again: its telescope's
// (an overlap) and its holder's on another telescope (their shares of a night and a week). A
// Ready one, and one of another telescope and holder, hear nothing. A change of the site's
// rules has every waiting booking checked again.
package watch_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestADeletedBookingHasTheWaitingOnesThatCountedItCheckedAgain(t *testing.T) {
	ctx := timeout(t, time.Minute)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	ada, bob := unique("ada"), unique("bob")
	first, queued, share, ready, other := unique("first"), unique("queued"), unique("share"), unique("ready"), unique("other")
	for name, spec := range map[string]map[string]any{
		first:  {"telescope": "t1", "holder": ada},
		queued: {"telescope": "t1", "holder": bob},
		share:  {"telescope": "t2", "holder": ada},
		ready:  {"telescope": "t1", "holder": bob},
		other:  {"telescope": "t3", "holder": bob},
	} {
		newAstro(t, ctx, obsv1.KindReservation, name, spec)
		exactlyResSignals(t, ctx, w, name, 1)
	}
	updateStatus(t, ctx, obsv1.KindReservation, ready, map[string]any{"phase": "Ready"})
	deleteAstro(t, ctx, obsv1.KindReservation, first)

	for _, name := range []string{queued, share} {
		got := exactlyResSignals(t, ctx, w, name, 2)
		if got[1].Change.Why != "booking" {
			t.Errorf("%s was signalled %+v", name, got[1].Change)
		}
	}
	exactlyResSignals(t, ctx, w, ready, 1)
	exactlyResSignals(t, ctx, w, other, 1)
}

// A change of the Observatory's spec (its booking rules, its Sun limit, its place) has the
// waiting bookings checked again; a metadata change does not, nor does any change tell a
// Ready reservation, whose booking is no longer checked.
func TestAnObservatorysSpecChangeHasTheWaitingBookingsCheckedAgain(t *testing.T) {
	ctx := timeout(t, time.Minute)
	astroAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	site, waiting, ready := unique("site"), unique("waiting"), unique("ready")
	newAstro(t, ctx, obsv1.KindObservatory, site, map[string]any{"location": map[string]any{"latitude": 52.2, "longitude": 0.1}})
	for _, name := range []string{waiting, ready} {
		newAstro(t, ctx, obsv1.KindReservation, name, map[string]any{"telescope": "t1", "holder": unique("ada")})
		exactlyResSignals(t, ctx, w, name, 1)
	}
	updateStatus(t, ctx, obsv1.KindReservation, ready, map[string]any{"phase": "Ready"})

	observatories := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(obsNS)
	patch := func(body string) {
		t.Helper()
		if _, err := observatories.Patch(ctx, site, types.MergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	patch(`{"metadata":{"labels":{"club":"north"}}}`)
	exactlyResSignals(t, ctx, w, waiting, 1)
	patch(`{"spec":{"booking":{"maxPerNight":"4h"},"safety":{"sunAltitude":-6}}}`)
	got := exactlyResSignals(t, ctx, w, waiting, 2)
	if got[1].Change.Why != "booking" {
		t.Errorf("the spec change's signal: %+v", got[1].Change)
	}
	exactlyResSignals(t, ctx, w, ready, 1)
}
