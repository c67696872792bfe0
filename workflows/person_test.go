// The Person workflow against fake activities: one pass per burst of changes, the six-hour
// look at a fetched picture, bakes, retries, clean-up and continue-as-new.
package workflows

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities/people"
	"liken.sh/runner/contract"
	"liken.sh/runner/test/testenv"
)

// fakePeople stands in for the people activities: it records every pass and answers from a
// script, so each test reads as the lifecycle it checks.
type fakePeople struct {
	mu      sync.Mutex
	passes  []people.PersonPass
	bakes   []people.PersonPass
	forgets []string
	answer  func(n int, in people.PersonPass) (people.PersonOutcome, error)
}

func (f *fakePeople) sync(_ context.Context, in people.PersonPass) (people.PersonOutcome, error) {
	f.mu.Lock()
	f.passes = append(f.passes, in)
	n := len(f.passes)
	f.mu.Unlock()
	return f.answer(n, in)
}

func (f *fakePeople) bake(_ context.Context, in people.PersonPass) (people.PersonOutcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bakes = append(f.bakes, in)
	return people.PersonOutcome{Source: "claim://ns/c/a.png", Reason: "Baked", Recheck: true, Wrote: true}, nil
}

func (f *fakePeople) forget(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgets = append(f.forgets, name)
	return nil
}

func newPersonEnv(t *testing.T, f *fakePeople) *testsuite.TestWorkflowEnvironment {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Person, workflow.RegisterOptions{Name: contract.PersonWorkflow})
	env.OnActivity(peopleActs.SyncPerson, mock.Anything, mock.Anything).Return(f.sync).Maybe()
	env.OnActivity(peopleActs.BakePerson, mock.Anything, mock.Anything).Return(f.bake).Maybe()
	env.OnActivity(peopleActs.ForgetPerson, mock.Anything, mock.Anything).Return(f.forget).Maybe()
	return env
}

func signal(env *testsuite.TestWorkflowEnvironment, after time.Duration, c contract.PersonChange) {
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(contract.PersonChanged, c) }, after)
}

func TestANewPersonGetsOnePassAndThenWaitsForChanges(t *testing.T) {
	f := &fakePeople{answer: func(n int, in people.PersonPass) (people.PersonOutcome, error) {
		if n == 3 {
			return people.PersonOutcome{Gone: true}, nil
		}
		return people.PersonOutcome{Reason: "Initials"}, nil
	}}
	env := newPersonEnv(t, f)
	signal(env, time.Minute, contract.PersonChange{Generation: 2, Why: "updated"})
	signal(env, 2*time.Minute, contract.PersonChange{Deleted: true, Why: "deleted"})

	env.ExecuteWorkflow(Person, contract.PersonInput{Name: "ada"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, f.passes, 3, "one pass at start and one per change")
	require.Equal(t, []string{"ada"}, f.forgets)
	require.Empty(t, f.bakes)
}

func TestABurstOfChangesIsAnsweredByOnePass(t *testing.T) {
	f := &fakePeople{answer: func(n int, in people.PersonPass) (people.PersonOutcome, error) {
		if n == 3 {
			return people.PersonOutcome{Gone: true}, nil
		}
		return people.PersonOutcome{Reason: "Initials"}, nil
	}}
	env := newPersonEnv(t, f)
	// Five changes land together while the workflow waits: they need one look, not five.
	env.RegisterDelayedCallback(func() {
		for i := range 5 {
			env.SignalWorkflow(contract.PersonChanged, contract.PersonChange{Generation: int64(i + 2)})
		}
	}, time.Minute)
	signal(env, time.Hour, contract.PersonChange{Deleted: true})

	env.ExecuteWorkflow(Person, contract.PersonInput{Name: "ada"})
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, f.passes, 3)
}

func TestAFetchedPictureIsCheckedAgainEverySixHours(t *testing.T) {
	f := &fakePeople{answer: func(n int, in people.PersonPass) (people.PersonOutcome, error) {
		if n == 4 {
			return people.PersonOutcome{Gone: true}, nil
		}
		return people.PersonOutcome{Source: "https://example.com/ada.png", Reason: "Fetched", Recheck: true}, nil
	}}
	env := newPersonEnv(t, f)
	env.ExecuteWorkflow(Person, contract.PersonInput{Name: "ada"})
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, f.passes, 4)
	require.False(t, f.passes[0].Recheck, "the first pass is a look, not a re-check")
	for _, p := range f.passes[1:] {
		require.True(t, p.Recheck, "the passes after six hours are re-checks")
	}
}

func TestAChangeRestartsTheSixHours(t *testing.T) {
	start := time.Time{}
	var at []time.Duration
	var env *testsuite.TestWorkflowEnvironment
	f := &fakePeople{answer: func(n int, in people.PersonPass) (people.PersonOutcome, error) {
		now := env.Now()
		if start.IsZero() {
			start = now
		}
		at = append(at, now.Sub(start).Round(time.Minute))
		if n == 3 {
			return people.PersonOutcome{Gone: true}, nil
		}
		return people.PersonOutcome{Reason: "Fetched", Recheck: true}, nil
	}}
	env = newPersonEnv(t, f)
	signal(env, 5*time.Hour, contract.PersonChange{Generation: 2})
	env.ExecuteWorkflow(Person, contract.PersonInput{Name: "ada"})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []time.Duration{0, 5 * time.Hour, 11 * time.Hour}, at)
}

func TestAClaimPictureIsBakedByABakerPod(t *testing.T) {
	f := &fakePeople{answer: func(n int, in people.PersonPass) (people.PersonOutcome, error) {
		if n == 2 {
			return people.PersonOutcome{Gone: true}, nil
		}
		return people.PersonOutcome{Source: "claim://ns/c/a.png", NeedsBake: true}, nil
	}}
	env := newPersonEnv(t, f)
	signal(env, time.Minute, contract.PersonChange{Deleted: true})
	env.ExecuteWorkflow(Person, contract.PersonInput{Name: "ada"})
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, f.bakes, 1)
	require.Equal(t, "ada", f.bakes[0].Name)
}

func TestAFailedPassIsTriedAgainAfterThirtySeconds(t *testing.T) {
	var env *testsuite.TestWorkflowEnvironment
	attempts := int(syncPerson.RetryPolicy.MaximumAttempts)
	var calls []time.Time
	f := &fakePeople{}
	f.answer = func(n int, in people.PersonPass) (people.PersonOutcome, error) {
		calls = append(calls, env.Now())
		if n <= attempts {
			// Every attempt of the first pass fails, so its local activity gives up.
			return people.PersonOutcome{}, errors.New("the API server is unreachable")
		}
		return people.PersonOutcome{Gone: true}, nil
	}
	env = newPersonEnv(t, f)
	env.ExecuteWorkflow(Person, contract.PersonInput{Name: "ada"})
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, calls, attempts+1, "the pass was never tried again after its attempts ran out")
	require.GreaterOrEqual(t, calls[attempts].Sub(calls[attempts-1]), retryAfterFailure)
}

func TestAPersonCreatedAgainDuringCleanUpKeepsItsWorkflow(t *testing.T) {
	var env *testsuite.TestWorkflowEnvironment
	f := &fakePeople{}
	f.answer = func(n int, in people.PersonPass) (people.PersonOutcome, error) {
		switch n {
		case 1:
			// The Person is created again while the workflow cleans up after the old one.
			env.SignalWorkflow(contract.PersonChanged, contract.PersonChange{UID: "new", Why: "added"})
			return people.PersonOutcome{Gone: true}, nil
		case 2:
			return people.PersonOutcome{UID: "new", Reason: "Initials"}, nil
		}
		return people.PersonOutcome{Gone: true}, nil
	}
	env = newPersonEnv(t, f)
	signal(env, time.Hour, contract.PersonChange{Deleted: true})
	env.ExecuteWorkflow(Person, contract.PersonInput{Name: "ada"})
	require.NoError(t, env.GetWorkflowError())
	require.Len(t, f.passes, 3)
	require.Len(t, f.forgets, 2)
}

func TestALongLivedPersonContinuesAsNewBeforeItsHistoryGrowsLarge(t *testing.T) {
	old := personPassLimit
	personPassLimit = 10
	t.Cleanup(func() { personPassLimit = old })
	f := &fakePeople{answer: func(n int, in people.PersonPass) (people.PersonOutcome, error) {
		return people.PersonOutcome{Reason: "Initials"}, nil
	}}
	env := newPersonEnv(t, f)
	for i := range 30 {
		signal(env, time.Duration(i+1)*time.Minute, contract.PersonChange{Generation: int64(i + 2)})
	}
	env.ExecuteWorkflow(Person, contract.PersonInput{Name: "ada"})
	var cont *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &cont)
	require.Equal(t, contract.PersonWorkflow, cont.WorkflowType.Name)
	require.Len(t, f.passes, 10)
}
