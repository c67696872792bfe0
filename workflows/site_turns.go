// SiteTurns is the durable lock on one observatory's site (ID observatory/<ns>/<name>): its
// INDI server and devices start once for all its telescopes and stop with the last one, and its
// own activation and deactivation tiers run once, never two at a time.
//
// The design: the reservations keep running their own steps (so each step stays a named
// activity in the reservation's history, with its deadline and status record), and ask this
// workflow for a turn before each of the four steps that touch the site: StartSite, Activation,
// Deactivation and StopSite. Turns are granted one at a time, first come first served. The
// grant says whether the reservation must do the site's part (Run): StartSite when the site is
// not up, Activation's observatory tiers when they are not active, Deactivation's when no other
// telescope there is still active, StopSite when no other telescope there is held. A reservation
// told to Run holds the site until it reports the step's outcome; one told not to goes on at
// once (StartSite and StopSite are then Skipped). While a turn is held, a waiting request whose
// answer that turn cannot change (a StopSite, or a Deactivation while the holder is active)
// is told not to Run at once, rather than after the holder's step (grantBeside). The site's
// state is Down, Partial (a start or stop that failed or was cut short: the next reservation
// runs the step again, and steps are idempotent) or Up, for the server and for the tiers apart.
//
// Membership counts telescopes from their StartSite turn to their StopSite turn; activity
// counts them from their Activation turn to their Deactivation turn. So the last telescope to
// deactivate runs the observatory's tiers, and the last to stop runs StopSite, even when the
// two are different reservations. The lock ends itself when the site is down and nobody is a
// member, waits or holds a turn, and continues as new with its state when its history grows.
package workflows

import (
	"slices"
	"strconv"
	"strings"

	"go.temporal.io/sdk/workflow"
)

const (
	// SiteRequests is the signal a reservation sends an observatory; payload a SiteRequest.
	SiteRequests = "site-requests"
	// SiteAnswers is the signal an observatory sends a reservation; payload a SiteAnswer.
	SiteAnswers = "site-answers"
)

// SiteOp is what a reservation asks of its observatory.
type SiteOp string

// The turns, and the two ways to end one.
const (
	SiteStart      SiteOp = "start"
	SiteActivate   SiteOp = "activate"
	SiteDeactivate SiteOp = "deactivate"
	SiteStop       SiteOp = "stop"
	// SiteDone ends a turn the reservation ran: OK says whether the step succeeded.
	SiteDone SiteOp = "done"
	// SiteWithdraw takes back a request that was not granted yet, or a turn that was
	// granted but not used (the reservation ended first).
	SiteWithdraw SiteOp = "withdraw"
)

// SiteLevel is how far a site's server, or its tiers, are up.
type SiteLevel string

// The levels. The zero value is Down.
const (
	SiteDown    SiteLevel = ""
	SitePartial SiteLevel = "Partial"
	SiteUp      SiteLevel = "Up"
)

// An observatory's lock continues as new like a telescope's (see telescopeHistoryLimit).
// Variables for tests.
var (
	observatoryHistoryLimit = 4000
	observatoryRequestLimit = 800
)

// SiteRequest is what a reservation asks of its observatory.
type SiteRequest struct {
	Op          SiteOp
	Reservation string
	WorkflowID  string
	Telescope   string
	// Token is unique per request; the answer and the SiteDone carry it.
	Token string
	// OK is the outcome of the step a SiteDone ends.
	OK bool `json:",omitempty"`
}

// SiteAnswer grants a turn.
type SiteAnswer struct {
	Token string
	Op    SiteOp
	// Run: this reservation does the site's part of the step, and holds the site until its
	// SiteDone.
	Run bool `json:",omitempty"`
	// Others are the other telescopes held at the site, for the summaries of skipped steps.
	Others []string `json:",omitempty"`
}

// SiteMember is a telescope held at the site.
type SiteMember struct {
	Reservation string
	Telescope   string
	// Active: between its Activation turn and its Deactivation turn.
	Active bool `json:",omitempty"`
}

// SiteState is an observatory lock's whole state, which a continued run takes over.
type SiteState struct {
	Server  SiteLevel     `json:",omitempty"`
	Tiers   SiteLevel     `json:",omitempty"`
	Members []SiteMember  `json:",omitempty"`
	Turn    *SiteRequest  `json:",omitempty"`
	Queue   []SiteRequest `json:",omitempty"`
}

// SiteTurnsInput starts (or continues) an observatory's site lock.
type SiteTurnsInput struct {
	Namespace string
	Name      string
	State     SiteState
}

// apply takes one request into the state.
func (s *SiteState) apply(r SiteRequest) {
	switch r.Op {
	case SiteDone:
		if s.Turn == nil || s.Turn.Token != r.Token {
			return
		}
		level := SitePartial
		switch {
		case r.OK && (s.Turn.Op == SiteStart || s.Turn.Op == SiteActivate):
			level = SiteUp
		case r.OK:
			level = SiteDown
		}
		if s.Turn.Op == SiteStart || s.Turn.Op == SiteStop {
			s.Server = level
		} else {
			s.Tiers = level
		}
		s.Turn = nil
	case SiteWithdraw:
		s.dequeue(r.Reservation)
		if s.Turn != nil && s.Turn.Reservation == r.Reservation {
			s.Turn = nil
		}
	default:
		s.dequeue(r.Reservation)
		s.Queue = append(s.Queue, r)
	}
}

func (s *SiteState) dequeue(reservation string) {
	s.Queue = slices.DeleteFunc(s.Queue, func(r SiteRequest) bool { return r.Reservation == reservation })
}

func (s *SiteState) member(reservation string) *SiteMember {
	for i := range s.Members {
		if s.Members[i].Reservation == reservation {
			return &s.Members[i]
		}
	}
	return nil
}

func (s *SiteState) leave(reservation string) {
	s.Members = slices.DeleteFunc(s.Members, func(m SiteMember) bool { return m.Reservation == reservation })
}

// grant takes the first request off the queue when no turn is held, and decides it.
func (s *SiteState) grant() (SiteRequest, SiteAnswer, bool) {
	if s.Turn != nil || len(s.Queue) == 0 {
		return SiteRequest{}, SiteAnswer{}, false
	}
	r := s.Queue[0]
	s.Queue = s.Queue[1:]
	return r, s.decide(r), true
}

// grantBeside answers, while a turn is held, the first waiting request whose answer that
// turn cannot change: a StopSite, as the holder stays a member until its own StopSite, so
// the requester is not the last to leave; a Deactivation while the holder is active, so the
// requester is not the last active. Each is told not to Run, at once, as it would be when
// the turn ends, and holds nothing. So twenty telescopes' StopSite turns do not wait the
// whole dome park of the last one's Deactivation.
func (s *SiteState) grantBeside() (SiteRequest, SiteAnswer, bool) {
	if s.Turn == nil {
		return SiteRequest{}, SiteAnswer{}, false
	}
	holder := s.member(s.Turn.Reservation)
	if holder == nil {
		return SiteRequest{}, SiteAnswer{}, false
	}
	for i, r := range s.Queue {
		if r.Reservation == holder.Reservation ||
			(r.Op != SiteStop && (r.Op != SiteDeactivate || !holder.Active)) {
			continue
		}
		s.Queue = append(s.Queue[:i:i], s.Queue[i+1:]...)
		return r, s.decide(r), true
	}
	return SiteRequest{}, SiteAnswer{}, false
}

// decide answers a request taken off the queue, and holds the site for it when it runs.
func (s *SiteState) decide(r SiteRequest) SiteAnswer {
	m := s.member(r.Reservation)
	if m == nil && (r.Op == SiteStart || r.Op == SiteActivate) {
		s.Members = append(s.Members, SiteMember{Reservation: r.Reservation, Telescope: r.Telescope})
		m = &s.Members[len(s.Members)-1]
	}
	ans := SiteAnswer{Token: r.Token, Op: r.Op}
	switch r.Op {
	case SiteStart:
		ans.Run = s.Server != SiteUp
	case SiteActivate:
		m.Active = true
		ans.Run = s.Tiers != SiteUp
	case SiteDeactivate:
		if m != nil {
			m.Active = false
		}
		ans.Run = s.Tiers != SiteDown && !s.anyActive()
	case SiteStop:
		s.leave(r.Reservation)
		ans.Run = s.Server != SiteDown && len(s.Members) == 0
	}
	for _, x := range s.Members {
		if x.Reservation != r.Reservation {
			ans.Others = append(ans.Others, x.Telescope)
		}
	}
	if ans.Run {
		t := r
		s.Turn = &t
	}
	return ans
}

func (s *SiteState) anyActive() bool {
	for _, m := range s.Members {
		if m.Active {
			return true
		}
	}
	return false
}

// details are the site's current details in the Temporal UI.
func (s *SiteState) details() string {
	level := func(l SiteLevel) string {
		if l == SiteDown {
			return "Down"
		}
		return string(l)
	}
	out := "Server **" + level(s.Server) + "**, its own procedures **" + level(s.Tiers) + "**"
	var held []string
	for _, m := range s.Members {
		h := "Telescope " + m.Telescope + " (" + m.Reservation
		if m.Active {
			h += ", active"
		}
		held = append(held, h+")")
	}
	if len(held) > 0 {
		out += "; held: " + strings.Join(held, ", ")
	}
	if s.Turn != nil {
		out += "; " + s.Turn.Reservation + " runs " + string(s.Turn.Op)
	}
	if len(s.Queue) > 0 {
		out += "; " + strconv.Itoa(len(s.Queue)) + " waiting"
	}
	return out
}

// idle: nothing runs at the site and nobody is there or waits; the state is all zero.
func (s *SiteState) idle() bool {
	return s.Server == SiteDown && s.Tiers == SiteDown && len(s.Members) == 0 && s.Turn == nil && len(s.Queue) == 0
}

// grantedTurn is a request taken off the queue and its answer.
type grantedTurn struct {
	req SiteRequest
	ans SiteAnswer
}

// grants takes the turns that can be granted now: the next one, or, together, every start and
// activation after it that can be granted at once. Those need not wait to know that the
// answers before them arrived: a reservation gone meanwhile only leaves the members, and a
// start's or an activation's answer does not depend on them. A stop's or a deactivation's
// does (the last to leave stops the site), so one is decided only first, once the answers
// before it are known. Answered one per workflow task, the last of twenty telescopes that
// start a site at once waited for nineteen answers (about 0.7 s on two busy cores).
func (s *SiteState) grants() []grantedTurn {
	var out []grantedTurn
	for {
		if len(out) > 0 && !(s.Turn == nil && len(s.Queue) > 0 &&
			(s.Queue[0].Op == SiteStart || s.Queue[0].Op == SiteActivate)) {
			return out
		}
		req, ans, ok := s.grant()
		if !ok {
			req, ans, ok = s.grantBeside()
		}
		if !ok {
			return out
		}
		out = append(out, grantedTurn{req, ans})
	}
}

// SiteTurns runs one observatory's site lock until the site is down and unused.
func SiteTurns(ctx workflow.Context, in SiteTurnsInput) error {
	log := workflow.GetLogger(ctx)
	requests := workflow.GetSignalChannel(ctx, SiteRequests)
	s := in.State
	handled := 0
	for {
		var r SiteRequest
		for requests.ReceiveAsync(&r) {
			s.apply(r)
			handled++
			r = SiteRequest{}
		}
		for {
			granted := s.grants()
			if len(granted) == 0 {
				break
			}
			sent := make([]workflow.Future, len(granted))
			for i, g := range granted {
				sent[i] = signalReservationAsync(ctx, g.req.WorkflowID, g.ans)
			}
			for i, g := range granted {
				if err := sent[i].Get(ctx, nil); err != nil {
					// The reservation is gone: it will neither use the turn nor leave.
					log.Warn("a site turn did not reach its reservation; it no longer counts", "reservation", g.req.Reservation, "err", err)
					if s.Turn != nil && s.Turn.Token == g.req.Token {
						s.Turn = nil
					}
					s.leave(g.req.Reservation)
				}
			}
		}
		workflow.SetCurrentDetails(ctx, s.details())
		if s.idle() {
			if requests.ReceiveAsync(&r) {
				s.apply(r)
				continue
			}
			log.Info("the site is down and unused; its lock ends", "observatory", in.Name)
			return nil
		}
		if info := workflow.GetInfo(ctx); info.GetContinueAsNewSuggested() ||
			info.GetCurrentHistoryLength() > observatoryHistoryLimit || handled >= observatoryRequestLimit {
			for requests.ReceiveAsync(&r) {
				s.apply(r)
				r = SiteRequest{}
			}
			return workflow.NewContinueAsNewError(ctx, SiteTurns, SiteTurnsInput{Namespace: in.Namespace, Name: in.Name, State: s})
		}
		requests.Receive(ctx, &r)
		s.apply(r)
		handled++
	}
}
