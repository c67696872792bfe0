// A booking that goes has the waiting ones that counted it checked again: its telescope's
// (an overlap) and its holder's on another telescope (their shares of a night and a week). A
// Ready one, and one of another telescope and holder, hear nothing.
package watch_test

import (
	"testing"
	"time"

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
