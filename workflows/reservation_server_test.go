// Tests of several reservations at once, on a real Temporal dev server (test/testenv) with
// an in-process worker: the Reservation, TelescopeLock and SiteTurns workflows signal each other
// through Temporal, which the test environment of one workflow cannot do. The Kubernetes side
// is a fake registered under the activities' own names (the activities are what is faked, not
// Temporal); SignalCoordinator is the real one, so its SignalWithStart and the messages'
// round trip through the data converter are proven here too.
package workflows

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, testenv.Options{Temporal: true}, &env) }

func TestASecondReservationOfATelescopeWaitsForTheFirstToBeReleased(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	q := f.startWorker()
	now := time.Now().UTC().Truncate(time.Second)

	f.reserve(q, "first", "east", now.Add(-2*time.Minute), nil)
	f.await("first", "became Ready", phaseIs(obsv1.ReservationReady))
	f.reserve(q, "second", "east", now.Add(-time.Minute), nil)
	f.await("second", "named the holder in its Wait", func(s obsv1.ReservationStatus) bool {
		return summaryOf(s, kube.StepWait) == "Telescope east is held by Reservation first"
	})
	assert.Equal(t, obsv1.ReservationScheduled, f.status("second").Phase)
	assert.Empty(t, f.callsOf("second", ""), "the second ran no step while the first held the telescope")

	f.remove("first")
	f.await("first", "was Released", phaseIs(obsv1.ReservationReleased))
	f.await("second", "became Ready", phaseIs(obsv1.ReservationReady))
	firstStop := f.callsOf("first", kube.StepStopSite)
	secondStart := f.callsOf("second", kube.StepStartSite)
	require.Len(t, firstStop, 1)
	require.Len(t, secondStart, 1)
	assert.True(t, firstStop[0].At.Before(secondStart[0].At), "the second started after the first was down")
	assert.Equal(t, "Took Telescope east", summaryOf(f.status("second"), kube.StepWait))

	f.remove("second")
	f.await("second", "was Released", phaseIs(obsv1.ReservationReleased))
	f.ended(contract.TelescopeLockID(f.ns, "east"))
	f.ended(contract.SiteTurnsID(f.ns, "lab"))
	f.mu.Lock()
	defer f.mu.Unlock()
	assert.Empty(t, f.finalizers, "every finalizer was given back")
	assert.Equal(t, []string{
		"+Reservation/first", "+Telescope/east", "+Observatory/lab", "+Reservation/second",
		"-Observatory/lab", "-Telescope/east", "-Reservation/first",
		"+Telescope/east", "+Observatory/lab", "-Observatory/lab", "-Telescope/east", "-Reservation/second",
	}, f.finalizerLog)

	// What the Temporal UI shows of a released reservation.
	d, err := f.c.DescribeWorkflow(context.Background(), contract.ReservationID(f.ns, "first"), "")
	require.NoError(t, err)
	assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, d.Status)
	sa := d.TypedSearchAttributes
	tel, _ := sa.GetKeyword(contract.SearchTelescope)
	holder, _ := sa.GetKeyword(contract.SearchHolder)
	phase, _ := sa.GetKeyword(contract.SearchPhase)
	assert.Equal(t, "east", tel)
	assert.Equal(t, "holder-of-first", holder)
	assert.Equal(t, "Released", phase)
	assert.False(t, sa.ContainsKey(contract.SearchStep), "a released reservation has no step")
}

func TestWaitingReservationsTakeTheTelescopeByStartThenCreationThenName(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	q := f.startWorker()
	now := time.Now().UTC().Truncate(time.Second)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }

	f.reserve(q, "holder", "east", now.Add(-time.Hour), nil)
	f.await("holder", "became Ready", phaseIs(obsv1.ReservationReady))
	// Asked in the opposite of the order they are served in.
	f.reserve(q, "zz", "east", now.Add(-5*time.Minute), at(-10*time.Minute))
	f.reserve(q, "aa", "east", now.Add(-5*time.Minute), at(-10*time.Minute))
	f.reserve(q, "early", "east", now.Add(-time.Minute), at(-20*time.Minute))
	for _, n := range []string{"zz", "aa", "early"} {
		f.await(n, "waited for the holder", func(s obsv1.ReservationStatus) bool {
			return summaryOf(s, kube.StepWait) == "Telescope east is held by Reservation holder"
		})
	}

	var order []string
	last := "holder"
	for range 3 {
		f.remove(last)
		f.await(last, "was Released", phaseIs(obsv1.ReservationReleased))
		require.Eventually(t, func() bool {
			for _, n := range []string{"zz", "aa", "early"} {
				if f.status(n).Phase != obsv1.ReservationScheduled && f.status(n).Phase != obsv1.ReservationReleased && n != last {
					last = n
					return true
				}
			}
			return false
		}, 30*time.Second, 20*time.Millisecond, "nobody took the telescope after %s", last)
		f.await(last, "became Ready", phaseIs(obsv1.ReservationReady))
		order = append(order, last)
	}
	assert.Equal(t, []string{"early", "aa", "zz"}, order)
	f.remove(last)
	f.await(last, "was Released", phaseIs(obsv1.ReservationReleased))
	f.ended(contract.TelescopeLockID(f.ns, "east"))
}

func TestTwoTelescopesOfOneObservatoryStartTheSiteOnceAndTheLastStopsIt(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	f.telescope("west", "lab")
	f.slow[kube.StepStartSite] = 300 * time.Millisecond
	q := f.startWorker()
	now := time.Now().UTC().Truncate(time.Second)

	f.reserve(q, "e", "east", now.Add(-time.Minute), nil)
	f.reserve(q, "w", "west", now.Add(-time.Minute), nil)
	f.await("e", "became Ready", phaseIs(obsv1.ReservationReady))
	f.await("w", "became Ready", phaseIs(obsv1.ReservationReady))

	starts := f.callsOf("", kube.StepStartSite)
	require.Len(t, starts, 1, "StartSite ran once for the two telescopes")
	other := map[string]string{"e": "w", "w": "e"}[starts[0].Reservation]
	st := f.status(other)
	assert.Equal(t, obsv1.RunSkipped, stateOf(st, kube.StepStartSite))
	assert.Equal(t, "Observatory lab is already up for Telescope "+map[string]string{"e": "east", "w": "west"}[starts[0].Reservation],
		summaryOf(st, kube.StepStartSite))
	tiers := 0
	for _, c := range f.callsOf("", kube.StepActivation) {
		if c.In.IncludesObservatory {
			tiers++
		}
	}
	assert.Equal(t, 1, tiers, "the observatory's activation tiers ran once")

	f.remove("e")
	f.await("e", "was Released", phaseIs(obsv1.ReservationReleased))
	assert.Empty(t, f.callsOf("e", kube.StepStopSite), "the first to end does not stop the site")
	assert.Equal(t, "Observatory lab is still in use by Telescope west", summaryOf(f.status("e"), kube.StepStopSite))
	require.Len(t, f.callsOf("e", kube.StepDeactivation), 1)
	assert.False(t, f.callsOf("e", kube.StepDeactivation)[0].In.IncludesObservatory, "nor deactivate its tiers")
	assert.True(t, f.holds("Observatory/lab"), "the observatory stays held while west is")

	f.remove("w")
	f.await("w", "was Released", phaseIs(obsv1.ReservationReleased))
	require.Len(t, f.callsOf("w", kube.StepStopSite), 1, "the last to end stops the site")
	assert.True(t, f.callsOf("w", kube.StepDeactivation)[0].In.IncludesObservatory)
	assert.False(t, f.holds("Observatory/lab"))
	f.ended(contract.SiteTurnsID(f.ns, "lab"))
}

func TestAStepPastItsDeadlineOnARealServerTimesOutWithItsLastHeartbeat(t *testing.T) {
	old := stepDeadline
	stepDeadline = func(step string) time.Duration {
		if step == kube.StepPowerOn {
			return 2 * time.Second
		}
		return kube.StepDeadline(step)
	}
	t.Cleanup(func() { stepDeadline = old })
	f := newFakeSite(t)
	f.telescope("east", "lab")
	f.answer = func(ctx context.Context, in observatory.StepInput) (observatory.StepResult, error) {
		if in.Step != kube.StepPowerOn {
			return observatory.StepResult{}, nil
		}
		for {
			activity.RecordHeartbeat(ctx, "waiting for pod east-switch to be Ready")
			select {
			case <-ctx.Done():
				return observatory.StepResult{}, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
	q := f.startWorker()
	f.reserve(q, "a", "east", time.Now().Add(-time.Minute), nil)
	f.await("a", "failed", phaseIs(obsv1.ReservationFailed))
	st := f.status("a")
	c := kube.ReservationCondition(&st, obsv1.ConditionReady)
	assert.Equal(t, "StepTimedOut", c.Reason)
	assert.Equal(t, "timed out after 2s: waiting for pod east-switch to be Ready", c.Message)
	assert.Equal(t, kube.StepPowerOn, st.Step)

	// Deleting it now deactivates from Abort; nothing is undone before.
	f.remove("a")
	f.await("a", "was Released", phaseIs(obsv1.ReservationReleased))
	assert.Equal(t, obsv1.RunFailed, stateOf(f.status("a"), kube.StepPowerOn))
}

func TestAReservationWhoseStepsAllFailKeepsItsFinalizers(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	f.answer = func(ctx context.Context, in observatory.StepInput) (observatory.StepResult, error) {
		// A cluster where nothing works: every step refuses, as a user-fixable failure.
		return observatory.StepResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("Failed: the %s step cannot reach the cluster", in.Step), observatory.ErrStepFailed, nil)
	}
	q := f.startWorker()
	f.reserve(q, "a", "east", time.Now().Add(-time.Minute), nil)
	f.await("a", "failed", phaseIs(obsv1.ReservationFailed))
	st := f.status("a")
	assert.Equal(t, kube.StepStartSite, st.Step)
	assert.Equal(t, "Failed: the StartSite step cannot reach the cluster", kube.ReservationCondition(&st, obsv1.ConditionReady).Message)

	// Deleted, it deactivates from Abort, which fails too: the finalizer stays, and so does
	// the telescope's, until a retry gets the deactivation through.
	f.remove("a")
	f.await("a", "failed at Abort", func(s obsv1.ReservationStatus) bool {
		return s.Phase == obsv1.ReservationFailed && s.Step == kube.StepAbort
	})
	assert.True(t, f.holds("Reservation/a"))
	assert.True(t, f.holds("Telescope/east"))
}

func TestADeleteDuringAStepCancelsItAndDeactivates(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	started, cancelled := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.answer = func(ctx context.Context, in observatory.StepInput) (observatory.StepResult, error) {
		if in.Step != kube.StepStartDevices {
			return observatory.StepResult{Summary: "did " + in.Step}, nil
		}
		once.Do(func() { close(started) })
		for {
			// A step heartbeats, which is how it hears of a cancel.
			activity.RecordHeartbeat(ctx, "waiting for pod east-mount to be Ready")
			select {
			case <-ctx.Done():
				close(cancelled)
				return observatory.StepResult{}, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	q := f.startWorker()
	f.reserve(q, "a", "east", time.Now().Add(-time.Minute), nil)
	// The status names the step before its activity runs; a delete in between would cancel
	// an activity no worker has started, which is a different path.
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("StartDevices did not start")
	}
	f.remove("a")
	f.await("a", "was Released", phaseIs(obsv1.ReservationReleased))
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("StartDevices was not cancelled")
	}
	st := f.status("a")
	assert.Equal(t, obsv1.RunSkipped, stateOf(st, kube.StepStartDevices))
	assert.Equal(t, "reservation ended", summaryOf(st, kube.StepStartDevices))
	assert.True(t, strings.HasPrefix(summaryOf(st, kube.StepAbort), "Reservation a was deleted"))
	abort := f.callsOf("a", kube.StepAbort)
	require.Len(t, abort, 1)
	assert.Equal(t, "Reservation a was deleted", abort[0].In.Why)
}

func TestTheHistoriesOfReservationsAndTheirLocksReplay(t *testing.T) {
	f := newFakeSite(t)
	f.telescope("east", "lab")
	f.telescope("west", "lab")
	q := f.startWorker()
	now := time.Now().UTC().Truncate(time.Second)
	f.reserve(q, "first", "east", now.Add(-2*time.Minute), nil)
	// The lock grants a free telescope to whichever request reaches it first, so second is
	// reserved only once first holds east (under load, second's request could arrive first).
	f.await("first", "became Ready", phaseIs(obsv1.ReservationReady))
	f.reserve(q, "second", "east", now.Add(-time.Minute), nil)
	f.reserve(q, "third", "west", now.Add(-time.Minute), nil)
	f.await("third", "became Ready", phaseIs(obsv1.ReservationReady))
	f.await("second", "waited", func(s obsv1.ReservationStatus) bool {
		return summaryOf(s, kube.StepWait) == "Telescope east is held by Reservation first"
	})
	for _, n := range []string{"first", "second", "third"} {
		if n == "second" {
			f.await(n, "became Ready", phaseIs(obsv1.ReservationReady))
		}
		f.remove(n)
		f.await(n, "was Released", phaseIs(obsv1.ReservationReleased))
	}
	f.ended(contract.TelescopeLockID(f.ns, "east"))
	f.ended(contract.TelescopeLockID(f.ns, "west"))
	f.ended(contract.SiteTurnsID(f.ns, "lab"))

	// Every decision the three workflows made replays from their histories: none depends on
	// anything but the history (map order, wall clock).
	r := worker.NewWorkflowReplayer()
	RegisterWorkflows(r)
	for _, id := range []string{
		contract.ReservationID(f.ns, "first"), contract.ReservationID(f.ns, "second"), contract.ReservationID(f.ns, "third"),
		contract.TelescopeLockID(f.ns, "east"), contract.TelescopeLockID(f.ns, "west"), contract.SiteTurnsID(f.ns, "lab"),
	} {
		t.Run(id, func(t *testing.T) {
			h := &historypb.History{}
			it := f.c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				require.NoError(t, err)
				h.Events = append(h.Events, e)
			}
			require.NotEmpty(t, h.Events)
			require.NoError(t, r.ReplayWorkflowHistory(nil, h))
		})
	}
}
