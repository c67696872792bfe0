// The Ready hold heals (plans what joined, left or was deleted) only at a change that may
// have moved a device or deleted a pod, never at a change of the Reservation alone.
package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"liken.sh/runner/contract"
)

// TestAChangeOfTheReservationItselfWhileReadyHealsNothing: a new end (the Reservation's own
// change) is read and re-arms the end, but moves no device and deletes no pod, so nothing is
// healed; a deleted pod still heals.
func TestAChangeOfTheReservationItselfWhileReadyHealsNothing(t *testing.T) {
	f := newFakeCluster()
	f.res.Spec.End = &metav1.Time{Time: rt0.Add(time.Hour)}
	env := newReservationEnv(t, f)
	signal := func(why string, after time.Duration) {
		env.RegisterDelayedCallback(func() {
			env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: why})
		}, after)
	}
	signal(contract.WhyUpdated, 10*time.Minute)
	signal(contract.WhyAdded, 15*time.Minute)
	signal("pod", 20*time.Minute)
	run(t, env)
	assert.Equal(t, 1, f.heals, "only the deleted pod heals")
}
