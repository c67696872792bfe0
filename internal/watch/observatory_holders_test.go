// A holder's Person and their Ready reservation: a change of whom the Person names, and its
// delete, tell the reservation so its way in follows; a change of anything else, or a
// reservation that is not Ready, hears nothing.
package watch_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

func TestAHoldersChangeOfWhomThePersonNamesTellsTheirReadyReservation(t *testing.T) {
	ctx := timeout(t, time.Minute)
	astroAtEnd(t)
	deletePeopleAtEnd(t)
	w := startObservatoryWatcher(t, taskQueue(t))
	holder, name := unique("holder"), unique("res")
	newAstro(t, ctx, obsv1.KindReservation, name, map[string]any{"telescope": "t1", "holder": holder})
	exactlyResSignals(t, ctx, w, name, 1)

	newPerson(t, ctx, holder)
	patchPerson(t, ctx, holder, `{"spec":{"users":["ada@example.org"]}}`)
	exactlyResSignals(t, ctx, w, name, 1) // not Ready: its way in is written when it becomes so

	updateStatus(t, ctx, obsv1.KindReservation, name, map[string]any{"phase": "Ready"})
	patchPerson(t, ctx, holder, `{"spec":{"users":["ada@example.org","lovelace@example.org"]}}`)
	got := exactlyResSignals(t, ctx, w, name, 2)
	if got[1].Change.Why != "holder" {
		t.Errorf("the Person's change signalled %+v", got[1].Change)
	}
	patchPerson(t, ctx, holder, `{"spec":{"displayName":"Augusta Ada King"}}`)
	exactlyResSignals(t, ctx, w, name, 2)

	if err := env.Dynamic.Resource(peoplev1.PersonResource).Delete(ctx, holder, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	exactlyResSignals(t, ctx, w, name, 3)
}
