// The words the Temporal UI shows of the workflows the watcher starts: a reservation's
// window, and the summaries and details of a reservation, a shard and an inventory.
package contract

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func mt(s string) *metav1.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return &metav1.Time{Time: t}
}

func TestWindowSaysWhenAReservationRunsInUTC(t *testing.T) {
	for _, c := range []struct {
		start, end *metav1.Time
		want       string
	}{
		{nil, nil, "until it is deleted"},
		{mt("2026-12-01T21:00:00Z"), mt("2026-12-01T23:00:00Z"), "2026-12-01 21:00–23:00 UTC"},
		{mt("2026-12-01T21:00:00+01:00"), mt("2026-12-01T23:30:00+01:00"), "2026-12-01 20:00–22:30 UTC"},
		{mt("2026-12-01T22:00:00Z"), mt("2026-12-02T02:00:00Z"), "2026-12-01 22:00 – 2026-12-02 02:00 UTC"},
		{nil, mt("2026-12-01T22:14:37Z"), "until 2026-12-01 22:14:37 UTC"},
		{mt("2026-12-01T21:00:00Z"), nil, "from 2026-12-01 21:00 UTC until it is deleted"},
	} {
		if got := Window(c.start, c.end); got != c.want {
			t.Errorf("Window(%v, %v) = %q, want %q", c.start, c.end, got, c.want)
		}
	}
}

func TestAReservationsWordsSayWhoHoldsWhichTelescopeWhenAndHowToLook(t *testing.T) {
	w := ReservationWords("observatory", "tonight", obsv1.ReservationSpec{
		Telescope: "east", Holder: "ada", Start: mt("2026-12-01T21:00:00Z"), End: mt("2026-12-01T23:00:00Z"),
	})
	if want := "Reservation tonight: Telescope east for ada, 2026-12-01 21:00–23:00 UTC"; w.Summary != want {
		t.Errorf("summary %q, want %q", w.Summary, want)
	}
	for _, want := range []string{"kubectl -n observatory get reservation tonight -o wide", "kubectl -n observatory describe reservation tonight", "`east`"} {
		if !strings.Contains(w.Details, want) {
			t.Errorf("details %q lack %q", w.Details, want)
		}
	}
	for _, w := range []Words{PeopleShardWords(3), InventoryWords("observatory")} {
		if w.Summary == "" || w.Details == "" || strings.Contains(w.Summary, "\n") {
			t.Errorf("words %+v: a one-line summary and details, both", w)
		}
	}
}
