// The Reservation workflow's trigger passes: when they look at Ready, and that a condition
// signal during a pass asks for one more instead of overlapping it.
package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
)

// TestTriggersLookAtReadyAtEachChangedConditionAndWhenTheirForRunsOut: the first pass runs
// when the reservation turns Ready; the observer's condition signals each ask for one (and
// neither read the Reservation nor heal); the earliest `for` a pass reports wakes another;
// and the passes end before deactivation begins.
func TestTriggersLookAtReadyAtEachChangedConditionAndWhenTheirForRunsOut(t *testing.T) {
	f := newFakeCluster()
	end := rt0.Add(3 * time.Hour)
	f.res.Spec.End = &metav1.Time{Time: end}
	f.triggerAnswer = func(n int) observatory.TriggersResult {
		if n == 2 {
			// The second pass found a run waiting 20 minutes.
			at := rt0.Add(30 * time.Minute)
			return observatory.TriggersResult{Pending: 1, NextAt: &at}
		}
		return observatory.TriggersResult{}
	}
	env := newReservationEnv(t, f)
	condition := func(after time.Duration) {
		env.RegisterDelayedCallback(func() {
			env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: contract.WhyCondition})
		}, after)
	}
	condition(10 * time.Minute)
	condition(time.Hour)
	run(t, env)

	assert.Equal(t, []time.Time{rt0, rt0.Add(10 * time.Minute), rt0.Add(30 * time.Minute), rt0.Add(time.Hour)}, f.triggerPasses)
	assert.Zero(t, f.heals, "a changed condition heals nothing")
	var abort time.Time
	for _, c := range f.calls {
		if c.Step == kube.StepAbort {
			abort = c.At
		}
	}
	assert.Equal(t, end, abort)
	for _, c := range f.observations {
		if c.What == "start" {
			assert.Equal(t, contract.ReservationChanged, c.In.ConditionSignal, "the observer is told which signal to send")
		}
	}
}

// TestAConditionSignalDuringAPassAsksForOneMore: passes never overlap; the signals that
// arrive during one ask for one more pass after it.
func TestAConditionSignalDuringAPassAsksForOneMore(t *testing.T) {
	f := newFakeCluster()
	f.res.Spec.End = &metav1.Time{Time: rt0.Add(time.Hour)}
	f.triggerTakes = 5 * time.Minute
	env := newReservationEnv(t, f)
	for _, at := range []time.Duration{time.Minute, 2 * time.Minute, 3 * time.Minute} {
		env.RegisterDelayedCallback(func() {
			env.SignalWorkflow(contract.ReservationChanged, contract.ReservationChange{Why: contract.WhyCondition})
		}, at)
	}
	run(t, env)
	assert.Len(t, f.triggerPasses, 2, "the first pass, then one for the three signals")
}
