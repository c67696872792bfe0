// Event names pinned across the change that made their builders one.
package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The names are pinned: a worker of the next release must find the Events this one posted, to
// count a repeat on them instead of posting a second.
func TestEveryEventKeepsTheNameItHadBeforeTheBuildersWereOne(t *testing.T) {
	now := time.Date(2030, 1, 1, 22, 0, 0, 0, time.UTC)
	e := Event{Type: corev1.EventTypeWarning, Reason: "StepFailed", Message: "Failed: the mount is parked"}
	long := strings.Repeat("a", 260)
	cases := []struct {
		name string
		ev   *corev1.Event
		want string
	}{
		{"a Person's", PersonEvent("ada", "uid-1", e, "default", "w", now), "ada.4cd7766c31a1257e"},
		{"a Reservation's", ReservationEvent("lab", "ada-east", "uid-2", e, "w", now), "ada-east.ce83838cbda9540c"},
		{"a Mount's", ObjectEvent(ResourceID{Kind: obsv1.KindMount, Namespace: "lab", Name: "east", UID: "uid-3"}, e, "w", now), "east.ea3f53ac977a0adc"},
		{"one about a long name", PersonEvent(long, "uid-1", e, "default", "w", now), strings.Repeat("a", 236) + ".4cd7766c31a1257e"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, c.ev.Name)
			assert.LessOrEqual(t, len(c.ev.Name), 253)
			assert.Equal(t, int32(1), c.ev.Count)
			assert.Equal(t, e.Message, c.ev.Message)
		})
	}
}
