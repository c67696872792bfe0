// The site lock: the site starts once and stops with its last telescope, failed starts and stops,
// withdrawn requests, and the SiteTurns workflow that serialises turns.
package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"
	"liken.sh/runner/contract"
	"liken.sh/runner/test/testenv"
)

func siteAsk(op SiteOp, reservation, telescope string) SiteRequest {
	return SiteRequest{Op: op, Reservation: reservation, Telescope: telescope, Token: reservation + "/" + string(op),
		WorkflowID: contract.ReservationID("observatory", reservation)}
}

func siteDone(reservation string, op SiteOp, ok bool) SiteRequest {
	return SiteRequest{Op: SiteDone, Reservation: reservation, Token: reservation + "/" + string(op), OK: ok}
}

// turn asks for a turn and returns the grant, which must come at once.
func turn(t *testing.T, s *SiteState, op SiteOp, reservation, telescope string) SiteAnswer {
	t.Helper()
	s.apply(siteAsk(op, reservation, telescope))
	_, ans, ok := s.grant()
	require.True(t, ok, "%s's %s turn was not granted", reservation, op)
	return ans
}

func TestTheSiteStartsOnceAndStopsWithTheLastTelescope(t *testing.T) {
	s := &SiteState{}
	a := turn(t, s, SiteStart, "a", "east")
	assert.True(t, a.Run, "the first telescope starts the site")
	s.apply(siteAsk(SiteStart, "b", "west"))
	_, _, ok := s.grant()
	assert.False(t, ok, "the second waits while the first starts the site")
	s.apply(siteDone("a", SiteStart, true))
	_, b, ok := s.grant()
	require.True(t, ok)
	assert.False(t, b.Run, "and then finds it up")
	assert.Equal(t, []string{"east"}, b.Others)

	assert.True(t, turn(t, s, SiteActivate, "a", "east").Run, "the first to activate runs the observatory's tiers")
	s.apply(siteDone("a", SiteActivate, true))
	assert.False(t, turn(t, s, SiteActivate, "b", "west").Run, "once")

	assert.False(t, turn(t, s, SiteDeactivate, "a", "east").Run, "west is still active")
	stop := turn(t, s, SiteStop, "a", "east")
	assert.False(t, stop.Run, "west still holds the site")
	assert.Equal(t, []string{"west"}, stop.Others)
	assert.True(t, turn(t, s, SiteDeactivate, "b", "west").Run, "the last active telescope deactivates the tiers")
	s.apply(siteDone("b", SiteDeactivate, true))
	assert.True(t, turn(t, s, SiteStop, "b", "west").Run, "the last telescope stops the site")
	s.apply(siteDone("b", SiteStop, true))
	assert.True(t, s.idle())
}

func TestTheLastToDeactivateAndTheLastToStopMayBeDifferentReservations(t *testing.T) {
	s := &SiteState{Server: SiteUp, Tiers: SiteUp}
	turn(t, s, SiteStart, "a", "east")
	turn(t, s, SiteStart, "b", "west")
	turn(t, s, SiteActivate, "a", "east")
	turn(t, s, SiteActivate, "b", "west")
	assert.False(t, turn(t, s, SiteDeactivate, "a", "east").Run)
	assert.True(t, turn(t, s, SiteDeactivate, "b", "west").Run, "west is the last active")
	s.apply(siteDone("b", SiteDeactivate, true))
	assert.False(t, turn(t, s, SiteStop, "b", "west").Run, "but east is still there")
	assert.True(t, turn(t, s, SiteStop, "a", "east").Run, "east stops the site")
}

func TestAFailedStartIsRunAgainByTheNextAndAFailedStopKeepsTheLockAlive(t *testing.T) {
	s := &SiteState{}
	assert.True(t, turn(t, s, SiteStart, "a", "east").Run)
	s.apply(siteDone("a", SiteStart, false))
	assert.Equal(t, SitePartial, s.Server)
	assert.True(t, turn(t, s, SiteStart, "b", "west").Run, "a site that did not come up is started again")
	s.apply(siteDone("b", SiteStart, true))
	turn(t, s, SiteStop, "a", "east")
	assert.True(t, turn(t, s, SiteStop, "b", "west").Run)
	s.apply(siteDone("b", SiteStop, false))
	assert.False(t, s.idle(), "a site that did not stop is remembered, so the retry stops it")
	assert.True(t, turn(t, s, SiteStop, "b", "west").Run, "the retry runs StopSite again")
}

func TestAWithdrawnRequestNeitherHoldsTheSiteNorChangesIt(t *testing.T) {
	s := &SiteState{}
	assert.True(t, turn(t, s, SiteStart, "a", "east").Run)
	s.apply(siteAsk(SiteStart, "b", "west"))
	s.apply(SiteRequest{Op: SiteWithdraw, Reservation: "b"})
	s.apply(SiteRequest{Op: SiteWithdraw, Reservation: "a"})
	assert.Nil(t, s.Turn)
	assert.Empty(t, s.Queue)
	assert.Equal(t, SiteDown, s.Server)
}

func TestTheObservatoryLockSerialisesTurnsAndEndsWhenTheSiteIsDown(t *testing.T) {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	env.SetStartTime(rt0)
	env.RegisterWorkflowWithOptions(SiteTurns, workflow.RegisterOptions{Name: contract.SiteTurnsWorkflow})
	type grant struct {
		at  time.Duration
		ans SiteAnswer
	}
	got := map[string][]grant{}
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", SiteAnswers, mock.Anything).Return(
		func(_, workflowID, _, _ string, arg any) error {
			got[workflowID] = append(got[workflowID], grant{env.Now().Sub(rt0), arg.(SiteAnswer)})
			return nil
		})
	send := func(after time.Duration, r SiteRequest) {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(SiteRequests, r) }, after)
	}
	send(0, siteAsk(SiteStart, "a", "east"))
	send(time.Minute, siteAsk(SiteStart, "b", "west"))
	send(5*time.Minute, siteDone("a", SiteStart, true))
	send(time.Hour, siteAsk(SiteStop, "a", "east"))
	send(2*time.Hour, siteAsk(SiteStop, "b", "west"))
	send(2*time.Hour+time.Minute, siteDone("b", SiteStop, true))
	env.ExecuteWorkflow(SiteTurns, SiteTurnsInput{Namespace: "observatory", Name: "lab"})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "the lock ends once the site is down and nobody is there")

	a, b := got[contract.ReservationID("observatory", "a")], got[contract.ReservationID("observatory", "b")]
	require.Len(t, a, 2)
	require.Len(t, b, 2)
	assert.True(t, a[0].ans.Run)
	assert.Equal(t, 5*time.Minute, b[0].at, "west's turn came when east's StartSite was done")
	assert.False(t, b[0].ans.Run)
	assert.False(t, a[1].ans.Run, "east was not the last to stop")
	assert.True(t, b[1].ans.Run)
}

func TestAStopSiteIsAnsweredAtOnceWhileTheLastTelescopeDeactivatesTheSite(t *testing.T) {
	s := &SiteState{Server: SiteUp, Tiers: SiteUp}
	for _, r := range []string{"a", "b", "c"} {
		turn(t, s, SiteStart, r, "tel-"+r)
		turn(t, s, SiteActivate, r, "tel-"+r)
	}
	assert.False(t, turn(t, s, SiteDeactivate, "a", "tel-a").Run)
	assert.False(t, turn(t, s, SiteDeactivate, "b", "tel-b").Run)
	assert.True(t, turn(t, s, SiteDeactivate, "c", "tel-c").Run, "c is the last active: it parks the dome")

	s.apply(siteAsk(SiteStop, "a", "tel-a"))
	_, _, ok := s.grant()
	assert.False(t, ok, "in turn, a's stop would wait for c's deactivation")
	req, ans, ok := s.grantBeside()
	require.True(t, ok, "but c stays at the site, so a is not the last to leave")
	assert.Equal(t, "a", req.Reservation)
	assert.False(t, ans.Run)
	assert.ElementsMatch(t, []string{"tel-b", "tel-c"}, ans.Others)
	assert.Equal(t, "c", s.Turn.Reservation, "c still holds its turn")

	s.apply(siteDone("c", SiteDeactivate, true))
	assert.False(t, turn(t, s, SiteStop, "b", "tel-b").Run)
	assert.True(t, turn(t, s, SiteStop, "c", "tel-c").Run, "the last to leave stops the site")
}

func TestOnlyAnswersTheHeldTurnCannotChangeGoBesideIt(t *testing.T) {
	// a holds the Activation turn (the dome unparks); b, active, deactivates meanwhile, and
	// d asks to start: b is answered (a stays active), d waits for the site's activation.
	s := &SiteState{Server: SiteUp}
	turn(t, s, SiteStart, "a", "tel-a")
	turn(t, s, SiteStart, "b", "tel-b")
	b := turn(t, s, SiteActivate, "b", "tel-b")
	require.True(t, b.Run)
	s.apply(siteDone("b", SiteActivate, false))
	assert.True(t, turn(t, s, SiteActivate, "a", "tel-a").Run, "a failed activation is run again")
	s.apply(siteAsk(SiteStart, "d", "tel-d"))
	s.apply(siteAsk(SiteDeactivate, "b", "tel-b"))
	req, ans, ok := s.grantBeside()
	require.True(t, ok)
	assert.Equal(t, "b", req.Reservation)
	assert.False(t, ans.Run, "a is active: b is not the last")
	_, _, ok = s.grantBeside()
	assert.False(t, ok, "a start waits for the turn")

	// The holder that is not active (its Deactivation turn) lets no Deactivation beside it:
	// that one might be the last, and two deactivations of the site never run at once.
	s = &SiteState{Server: SiteUp, Tiers: SiteUp, Members: []SiteMember{{Reservation: "a"}, {Reservation: "b"}}}
	assert.True(t, turn(t, s, SiteDeactivate, "a", "tel-a").Run)
	s.apply(siteAsk(SiteDeactivate, "b", "tel-b"))
	_, _, ok = s.grantBeside()
	assert.False(t, ok)
}

func TestTheObservatoryLockAnswersAStopWhileTheLastTelescopeDeactivatesTheSite(t *testing.T) {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	env.SetStartTime(rt0)
	env.RegisterWorkflowWithOptions(SiteTurns, workflow.RegisterOptions{Name: contract.SiteTurnsWorkflow})
	at := map[string]time.Duration{}
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", SiteAnswers, mock.Anything).Return(
		func(_, workflowID, _, _ string, arg any) error {
			at[workflowID+" "+string(arg.(SiteAnswer).Op)] = env.Now().Sub(rt0)
			return nil
		})
	send := func(after time.Duration, r SiteRequest) {
		env.RegisterDelayedCallback(func() { env.SignalWorkflow(SiteRequests, r) }, after)
	}
	send(0, siteAsk(SiteDeactivate, "a", "east"))
	send(time.Minute, siteAsk(SiteDeactivate, "b", "west"))
	send(2*time.Minute, siteAsk(SiteStop, "a", "east"))
	send(10*time.Minute, siteDone("b", SiteDeactivate, true))
	send(11*time.Minute, siteAsk(SiteStop, "b", "west"))
	send(12*time.Minute, siteDone("b", SiteStop, true))
	state := SiteState{Server: SiteUp, Tiers: SiteUp, Members: []SiteMember{
		{Reservation: "a", Telescope: "east", Active: true}, {Reservation: "b", Telescope: "west", Active: true}}}
	env.ExecuteWorkflow(SiteTurns, SiteTurnsInput{Namespace: "observatory", Name: "lab", State: state})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	a := contract.ReservationID("observatory", "a")
	assert.Equal(t, 2*time.Minute, at[a+" stop"], "east's StopSite did not wait for west's deactivation of the site")
}

// When the first telescope's StartSite is done, the others' starts are granted together
// (their answers then go out in one workflow task), up to a request whose answer depends on
// who is still there: a deactivation waits for the answers before it.
func TestStartsTheSiteIsPastAreGrantedTogetherAndADeactivationAfterTheirAnswers(t *testing.T) {
	s := &SiteState{}
	turn(t, s, SiteStart, "r0", "t0")
	for _, r := range []string{"r1", "r2", "r3"} {
		s.apply(siteAsk(SiteStart, r, "t"+r[1:]))
	}
	s.Members = append(s.Members, SiteMember{Reservation: "r4", Telescope: "t4", Active: true})
	s.apply(siteAsk(SiteDeactivate, "r4", "t4"))
	s.apply(siteAsk(SiteStart, "r5", "t5"))
	assert.Empty(t, s.grants(), "nothing while r0 starts the site")

	s.apply(siteDone("r0", SiteStart, true))
	var names []string
	for _, g := range s.grants() {
		assert.False(t, g.ans.Run, g.req.Reservation)
		names = append(names, g.req.Reservation)
	}
	assert.Equal(t, []string{"r1", "r2", "r3"}, names, "the starts together, not the deactivation behind them")
	next := s.grants()
	require.NotEmpty(t, next)
	assert.Equal(t, "r4", next[0].req.Reservation, "the deactivation is decided once the answers before it are known")
}
