// The people shard workflow against fake activities: it paints a batch and hands on the painted
// once quiet, continues as new with what it has not handed on, and shards by name.
package workflows

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/people"
	"liken.sh/runner/contract"
	"liken.sh/runner/test/testenv"
)

// fakeShard stands in for PaintPeople and SignalWorkflows: it paints every Person but those
// in left, and records what was painted and handed on, and when.
type fakeShard struct {
	env      *testsuite.TestWorkflowEnvironment
	left     map[string]bool
	paintErr error

	mu        sync.Mutex
	paints    [][]string
	handed    [][]string
	handedT   []time.Time
	startOnly []string // the Persons handed on as starts only
	inFlight  int      // hand-ons running now
	most      int      // the most that ran at once
}

func (f *fakeShard) paint(_ context.Context, names []string) (people.PaintOutcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paints = append(f.paints, names)
	var out people.PaintOutcome
	for _, n := range names {
		if f.left[n] {
			out.Left = append(out.Left, n)
		} else {
			out.Painted++
		}
	}
	return out, f.paintErr
}

func (f *fakeShard) signal(_ context.Context, signals []activities.WorkflowSignal) error {
	f.mu.Lock()
	f.inFlight++
	f.most = max(f.most, f.inFlight)
	f.mu.Unlock()
	time.Sleep(time.Millisecond) // long enough for another hand-on to overlap
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inFlight--
	var ids []string
	for _, s := range signals {
		if s.WorkflowType != contract.PersonWorkflow || s.Signal != contract.PersonChanged {
			return errors.New("not a Person's signal")
		}
		ids = append(ids, s.WorkflowID)
		if s.StartOnly {
			f.startOnly = append(f.startOnly, s.WorkflowID)
		}
	}
	f.handed = append(f.handed, ids)
	f.handedT = append(f.handedT, f.env.Now())
	return nil
}

func newShardEnv(t *testing.T, f *fakeShard) *testsuite.TestWorkflowEnvironment {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	f.env = env
	env.RegisterWorkflowWithOptions(PeopleShard, workflow.RegisterOptions{Name: contract.PeopleShardWorkflow})
	env.OnActivity(peopleActs.PaintPeople, mock.Anything, mock.Anything).Return(f.paint).Maybe()
	env.OnActivity(peopleActs.SignalWorkflows, mock.Anything, mock.Anything).Return(f.signal).Maybe()
	return env
}

func shardSignal(env *testsuite.TestWorkflowEnvironment, after time.Duration, names ...string) {
	shardSignalWhy(env, after, "added", names...)
}

// shardSignalWhy sends the shard one batch of changes, all with the watcher's word why.
func shardSignalWhy(env *testsuite.TestWorkflowEnvironment, after time.Duration, why string, names ...string) {
	env.RegisterDelayedCallback(func() {
		batch := make([]contract.PersonChange, len(names))
		for i, n := range names {
			batch[i] = contract.PersonChange{Name: n, Why: why}
		}
		env.SignalWorkflow(contract.PeopleChanged, batch)
	}, after)
}

func TestAShardPaintsABatchAndHandsOnThePaintedOnesOnceQuiet(t *testing.T) {
	f := &fakeShard{left: map[string]bool{"bob": true}}
	env := newShardEnv(t, f)
	start := env.Now()
	shardSignal(env, time.Minute, "ada", "bob", "ada")
	shardSignal(env, time.Minute+500*time.Millisecond, "carol")
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)

	env.ExecuteWorkflow(PeopleShard, contract.PeopleInput{Shard: 3})
	require.True(t, env.IsWorkflowCompleted())

	require.Equal(t, [][]string{{"ada", "bob"}, {"carol"}}, f.paints, "one paint per batch, a Person once per batch")
	require.Equal(t, [][]string{{"person/bob"}, {"person/ada", "person/carol"}}, f.handed,
		"bob (not painted) at once; ada and carol together once the shard was quiet")
	require.Equal(t, time.Minute, f.handedT[0].Sub(start).Round(time.Second))
	require.Equal(t, time.Minute+1500*time.Millisecond, f.handedT[1].Sub(start),
		"a second after the last change, not after the first")
}

func TestAPaintedPersonHeardOfOnlyInResyncsIsHandedOnAsAStartOnly(t *testing.T) {
	f := &fakeShard{left: map[string]bool{"carol": true}}
	env := newShardEnv(t, f)
	shardSignalWhy(env, time.Minute, contract.WhyResync, "ada", "bob", "carol")
	shardSignalWhy(env, time.Minute+100*time.Millisecond, "updated", "bob")
	shardSignalWhy(env, time.Minute+200*time.Millisecond, contract.WhyResync, "bob", "ada")
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)

	env.ExecuteWorkflow(PeopleShard, contract.PeopleInput{Shard: 2})
	require.True(t, env.IsWorkflowCompleted())
	require.Equal(t, [][]string{{"person/carol"}, {"person/ada", "person/bob"}}, f.handed)
	require.Equal(t, []string{"person/ada"}, f.startOnly,
		"ada's workflow only has to be there; bob changed (a resync does not hide it); carol's picture is for her workflow to read")
}

func TestAShardThatCannotPaintHandsEveryChangeOnAtOnce(t *testing.T) {
	f := &fakeShard{paintErr: errors.New("the API server is away")}
	env := newShardEnv(t, f)
	shardSignal(env, time.Minute, "ada", "grace")
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)

	env.ExecuteWorkflow(PeopleShard, contract.PeopleInput{Shard: 1})
	require.True(t, env.IsWorkflowCompleted())
	require.Equal(t, [][]string{{"person/ada", "person/grace"}}, f.handed)
}

func TestAShardContinuesAsNewWithTheChangesItHasNotHandedOn(t *testing.T) {
	defer func(n int) { peopleBatchLimit = n }(peopleBatchLimit)
	peopleBatchLimit = 1
	f := &fakeShard{}
	env := newShardEnv(t, f)
	start := env.Now()

	env.ExecuteWorkflow(PeopleShard, contract.PeopleInput{Shard: 5, Pending: []contract.PersonChange{{Name: "ada", Why: "added"}}})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next contract.PeopleInput
	require.NoError(t, converterGet(can, &next))
	require.Equal(t, []contract.PersonChange{{Name: "ada", Why: "added"}}, next.Waiting,
		"the painted change that was still waiting goes to the next run, as painted")
	require.Empty(t, next.Pending)
	require.Equal(t, start, next.WaitingSince.In(start.Location()), "waiting since its paint")
	require.Empty(t, f.handed)
}

func TestARunHandsOnWhatTheRunBeforePaintedWithoutPaintingItAgain(t *testing.T) {
	f := &fakeShard{}
	env := newShardEnv(t, f)
	start := env.Now()
	shardSignal(env, 500*time.Millisecond, "bob")
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)

	env.ExecuteWorkflow(PeopleShard, contract.PeopleInput{Shard: 5, Waiting: []contract.PersonChange{{Name: "ada", Why: "added"}}, WaitingSince: start})
	require.True(t, env.IsWorkflowCompleted())
	require.Equal(t, [][]string{{"bob"}}, f.paints, "ada was painted by the run before")
	require.Equal(t, [][]string{{"person/ada", "person/bob"}}, f.handed, "together, once the shard was quiet")
	require.Equal(t, 1500*time.Millisecond, f.handedT[0].Sub(start))
}

func TestABusyShardHandsOnFiveMinutesAfterTheOldestWaiting(t *testing.T) {
	defer func(n int) { peopleBatchLimit = n }(peopleBatchLimit)
	peopleBatchLimit = 1000
	f := &fakeShard{}
	env := newShardEnv(t, f)
	start := env.Now()
	// A change every 0.9 s: the shard is never quiet for a second.
	for i := range 400 {
		shardSignal(env, time.Minute+time.Duration(i)*900*time.Millisecond, "ada")
	}
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)

	env.ExecuteWorkflow(PeopleShard, contract.PeopleInput{Shard: 4})
	require.True(t, env.IsWorkflowCompleted())
	require.NotEmpty(t, f.handedT)
	first := f.handedT[0].Sub(start) - time.Minute
	assert.True(t, first >= 5*time.Minute && first < 5*time.Minute+2*time.Second,
		"handed on %s after the first change, not before five minutes", first)
}

// burstShard runs a shard that gets n Persons (p0, p1, ...) in one batch, until it is cancelled.
func burstShard(t *testing.T, n int) (*fakeShard, []string) {
	f := &fakeShard{}
	env := newShardEnv(t, f)
	var names []string
	for i := range n {
		names = append(names, "p"+strconv.Itoa(i))
	}
	shardSignal(env, time.Minute, names...)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(PeopleShard, contract.PeopleInput{Shard: 6})
	require.True(t, env.IsWorkflowCompleted())
	return f, names
}

func TestAShardPaintsALargeBatchInSlices(t *testing.T) {
	f, names := burstShard(t, 150)
	require.Len(t, f.paints, 3)
	assert.Equal(t, []int{64, 64, 22}, []int{len(f.paints[0]), len(f.paints[1]), len(f.paints[2])})
	assert.Equal(t, names[64:128], f.paints[1], "in the order they came")
	require.Len(t, f.handed, 1, "handed on together once quiet")
	assert.Len(t, f.handed[0], 150)
}

func TestAShardHandsOnThousandsInChunksOneAfterAnother(t *testing.T) {
	f, _ := burstShard(t, 450)
	require.Len(t, f.handed, 3)
	assert.Equal(t, []int{200, 200, 50}, []int{len(f.handed[0]), len(f.handed[1]), len(f.handed[2])})
	assert.Equal(t, 1, f.most, "one chunk at a time")
}

func TestTheSameNameAlwaysLandsInTheSameShard(t *testing.T) {
	seen := map[int]bool{}
	for _, n := range []string{"ada", "grace", "mary", "charles", "alan", "edsger", "barbara", "john", "donald", "frances"} {
		s := contract.ShardOf(n)
		require.Equal(t, s, contract.ShardOf(n))
		require.True(t, s >= 0 && s < contract.PeopleShards)
		seen[s] = true
	}
	require.Greater(t, len(seen), 3, "ten names spread over several shards")
}

func TestADeletedPersonIsHandedOnOnlyToAWorkflowThatStillRuns(t *testing.T) {
	got := personSignals([]contract.PersonChange{{Name: "ada", Why: "added"}, {Name: "bob", Deleted: true, Why: "deleted"}})
	require.Len(t, got, 2)
	assert.False(t, got[0].OnlyIfRunning, "a change starts the Person's workflow if need be")
	assert.True(t, got[1].OnlyIfRunning, "a delete must not start a workflow that would only end")
	assert.Equal(t, contract.PersonID("bob"), got[1].WorkflowID)
	assert.Equal(t, PersonWords("ada").Summary, got[0].Summary, "a Person's workflow starts with its words")
	assert.Equal(t, PersonWords("ada").Details, got[0].Details)
}
