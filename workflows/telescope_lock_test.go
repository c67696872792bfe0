// The telescope lock: the order waiters are served in, withdrawals and re-asks, and the
// workflow that grants one holder at a time and continues as new with its queue.
package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
	"liken.sh/runner/contract"
	"liken.sh/runner/test/testenv"
)

func ticket(name string, start, created time.Duration) TelescopeTicket {
	return TelescopeTicket{
		Reservation: name, WorkflowID: contract.ReservationID("observatory", name), Token: name + "/1",
		Start: rt0.Add(start), Created: rt0.Add(created),
	}
}

func take(t TelescopeTicket) TelescopeRequest { return TelescopeRequest{Op: TelescopeTake, Ticket: t} }
func give(name string) TelescopeRequest {
	return TelescopeRequest{Op: TelescopeRelease, Ticket: TelescopeTicket{Reservation: name}}
}

func TestWaitersAreServedByStartThenCreationThenName(t *testing.T) {
	l := &telescopeLock{}
	l.apply(take(ticket("holder", 0, 0)))
	require.Equal(t, "holder", l.next().Reservation)
	l.apply(take(ticket("late", 2*time.Hour, 0)))
	l.apply(take(ticket("zeta", time.Hour, time.Minute)))
	l.apply(take(ticket("beta", time.Hour, 2*time.Minute)))
	l.apply(take(ticket("alpha", time.Hour, 2*time.Minute)))
	assert.Nil(t, l.next(), "nobody takes a held telescope")

	var order []string
	for {
		l.apply(give(l.holder.Reservation))
		n := l.next()
		if n == nil {
			break
		}
		order = append(order, n.Reservation)
	}
	assert.Equal(t, []string{"zeta", "alpha", "beta", "late"}, order)
	assert.True(t, l.idle())
}

func TestAHigherPriorityIsServedFirstOnceTheLockKnowsPriorities(t *testing.T) {
	for _, c := range []struct {
		byPriority bool
		want       []string
	}{{true, []string{"club", "early", "later"}}, {false, []string{"early", "later", "club"}}} {
		l := &telescopeLock{byPriority: c.byPriority}
		l.apply(take(ticket("holder", 0, 0)))
		l.next()
		l.apply(take(ticket("early", time.Hour, 0)))
		club := ticket("club", 3*time.Hour, time.Minute)
		club.Priority = 10
		l.apply(take(club))
		l.apply(take(ticket("later", 2*time.Hour, 0)))
		var order []string
		for l.apply(give(l.holder.Reservation)); l.next() != nil; l.apply(give(l.holder.Reservation)) {
			order = append(order, l.holder.Reservation)
		}
		assert.Equal(t, c.want, order, "a lock recorded before priorities (byPriority false) keeps serving by start")
	}
}

func TestAWaiterThatWithdrawsLeavesTheQueue(t *testing.T) {
	l := &telescopeLock{}
	l.apply(take(ticket("holder", 0, 0)))
	l.next()
	l.apply(take(ticket("b", time.Hour, 0)))
	l.apply(take(ticket("c", 2*time.Hour, 0)))
	l.apply(give("b"))
	l.apply(give("holder"))
	assert.Equal(t, "c", l.next().Reservation)
}

func TestTheHolderAskingAgainKeepsTheTelescope(t *testing.T) {
	l := &telescopeLock{}
	l.apply(take(ticket("a", 0, 0)))
	l.next()
	l.holder.Told = l.holder.Token
	l.apply(take(ticket("b", -time.Hour, 0)))
	again := ticket("a", 0, 0)
	again.Token = "a/2"
	l.apply(take(again))
	assert.Equal(t, "a/2", l.holder.Token, "a continued run holds it under its new token")
	assert.Empty(t, l.holder.Told, "and is granted again")
	assert.Len(t, l.queue, 1)
}

// grants records what the lock signalled, by reservation.
type grants struct {
	answers map[string][]TelescopeAnswer
	order   []string
	fail    map[string]bool
}

func newTelescopeEnv(t *testing.T, g *grants) *testsuite.TestWorkflowEnvironment {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	env.SetStartTime(rt0)
	env.RegisterWorkflowWithOptions(TelescopeLock, workflow.RegisterOptions{Name: contract.TelescopeLockWorkflow})
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", TelescopeAnswers, mock.Anything).Return(
		func(_, workflowID, _, _ string, arg any) error {
			ans := arg.(TelescopeAnswer)
			if g.fail[workflowID] {
				return errors.New("workflow not found")
			}
			g.answers[workflowID] = append(g.answers[workflowID], ans)
			if ans.Granted {
				g.order = append(g.order, workflowID)
			}
			return nil
		})
	return env
}

func signalLock(env *testsuite.TestWorkflowEnvironment, after time.Duration, r TelescopeRequest) {
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(TelescopeRequests, r) }, after)
}

func TestTheTelescopeLockGrantsOneHolderAtATimeAndEndsWhenIdle(t *testing.T) {
	g := &grants{answers: map[string][]TelescopeAnswer{}}
	env := newTelescopeEnv(t, g)
	id := func(n string) string { return contract.ReservationID("observatory", n) }
	// The first request starts the lock (SignalWithStart delivers it with the start).
	signalLock(env, 0, take(ticket("first", 0, 0)))
	signalLock(env, time.Minute, take(ticket("c", time.Hour, 0)))
	signalLock(env, time.Minute, take(ticket("b", 30*time.Minute, time.Minute)))
	signalLock(env, time.Minute, take(ticket("a", 30*time.Minute, time.Minute)))
	signalLock(env, time.Hour, give("first"))
	signalLock(env, 2*time.Hour, give("a"))
	signalLock(env, 3*time.Hour, give("b"))
	signalLock(env, 4*time.Hour, give("c"))
	env.ExecuteWorkflow(TelescopeLock, TelescopeLockInput{Namespace: "observatory", Name: "east"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())

	assert.Equal(t, []string{id("first"), id("a"), id("b"), id("c")}, g.order)
	assert.Equal(t, []TelescopeAnswer{{Token: "c/1", Holder: "first"}, {Token: "c/1", Holder: "a"}, {Token: "c/1", Holder: "b"},
		{Token: "c/1", Granted: true}}, g.answers[id("c")], "a waiter hears of each new holder once, then its grant")
}

func TestAGrantThatCannotReachItsReservationGoesToTheNext(t *testing.T) {
	g := &grants{answers: map[string][]TelescopeAnswer{}, fail: map[string]bool{contract.ReservationID("observatory", "gone"): true}}
	env := newTelescopeEnv(t, g)
	signalLock(env, 0, take(ticket("first", 0, 0)))
	signalLock(env, time.Minute, take(ticket("gone", time.Hour, 0)))
	signalLock(env, time.Minute, take(ticket("next", 2*time.Hour, 0)))
	signalLock(env, time.Hour, give("first"))
	signalLock(env, 2*time.Hour, give("next"))
	env.ExecuteWorkflow(TelescopeLock, TelescopeLockInput{Namespace: "observatory", Name: "east"})
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, []string{contract.ReservationID("observatory", "first"), contract.ReservationID("observatory", "next")}, g.order)
}

func TestALongLivedTelescopeLockContinuesAsNewWithItsQueue(t *testing.T) {
	old := telescopeRequestLimit
	telescopeRequestLimit = 4
	t.Cleanup(func() { telescopeRequestLimit = old })
	g := &grants{answers: map[string][]TelescopeAnswer{}}
	env := newTelescopeEnv(t, g)
	signalLock(env, 0, take(ticket("first", 0, 0)))
	for i, n := range []string{"d", "e", "f", "g", "h"} {
		signalLock(env, time.Duration(i+1)*time.Minute, take(ticket(n, time.Hour, 0)))
	}
	env.ExecuteWorkflow(TelescopeLock, TelescopeLockInput{Namespace: "observatory", Name: "east"})
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var next TelescopeLockInput
	require.NoError(t, converterGet(can, &next))
	require.NotNil(t, next.Holder)
	assert.Equal(t, "first", next.Holder.Reservation)
	assert.Equal(t, next.Holder.Token, next.Holder.Told, "the continued run does not grant the holder again")
	assert.NotEmpty(t, next.Queue)
}

// converterGet decodes the input a run continues with.
func converterGet(can *workflow.ContinueAsNewError, into any) error {
	return converter.GetDefaultDataConverter().FromPayloads(can.Input, into)
}
