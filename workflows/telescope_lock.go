// TelescopeLock is the durable lock on one telescope (ID telescope/<ns>/<name>): a telescope
// has one holder at a time, and the reservations that wait for it are served in order (the
// holder's priority at the site, then start, then creation time, then name). The lock lives in Temporal, not in a worker's
// memory, so it survives any worker's restart and every worker sees the same queue.
//
// A reservation asks for the telescope (or gives it back) through the SignalCoordinator
// activity, which starts this workflow when it does not run; the lock answers each waiter with
// a signal naming the reservation that holds the telescope, and the next holder with a grant.
// Only reservations whose start has come, whose end has not passed and that are not being
// deleted ask, and a reservation that stops counting withdraws, so the queue holds only those
// that count. A Failed holder keeps the telescope until it gives it back, which it does when it
// is deleted or its end passes. The lock ends itself when nobody holds or waits (after draining
// the signals that arrived meanwhile, so none is lost) and continues as new, with its queue,
// when its history grows.
//
// This is the mutex of Temporal's samples (an activity that signals-with-start, a workflow
// that grants by signal), with an ordered queue instead of a FIFO and a token per request, so
// a grant that crossed a withdrawal is recognised as stale and ignored.
package workflows

import (
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"
)

const (
	// TelescopeRequests is the signal a reservation sends the lock; its payload is a
	// TelescopeRequest.
	TelescopeRequests = "telescope-requests"
	// TelescopeAnswers is the signal the lock sends a reservation; its payload is a
	// TelescopeAnswer.
	TelescopeAnswers = "telescope-answers"
)

// The operations of a TelescopeRequest.
const (
	// TelescopeTake queues the reservation (or, when it holds the telescope already, grants
	// it again under the new token: a continued run asks again).
	TelescopeTake = "take"
	// TelescopeRelease gives the telescope back, or withdraws from the queue.
	TelescopeRelease = "release"
)

// A lock continues as new when Temporal suggests it, when its history passes
// telescopeHistoryLimit events, or after telescopeRequestLimit requests (a request is about
// four events, and the count is what the test environment can check). Variables for tests.
var (
	telescopeHistoryLimit = 4000
	telescopeRequestLimit = 800
)

// TelescopeTicket is one reservation's place at the lock.
type TelescopeTicket struct {
	Reservation string
	WorkflowID  string
	// Token is unique per request; the answers carry it.
	Token string
	// Start is spec.start, or the creation time when the reservation has no start.
	Start   time.Time
	Created time.Time
	// Priority is the holder's at the site (Observatory spec.booking.priorities).
	Priority int32 `json:",omitempty"`
	// Told is the holder the waiter was last told about, so it is told only of a change.
	Told string `json:",omitempty"`
}

// TelescopeRequest is what a reservation asks of the lock.
type TelescopeRequest struct {
	Op     string
	Ticket TelescopeTicket
}

// TelescopeAnswer is what the lock tells a reservation.
type TelescopeAnswer struct {
	Token string
	// Granted: the reservation holds the telescope.
	Granted bool `json:",omitempty"`
	// Holder is the reservation that holds the telescope while this one waits.
	Holder string `json:",omitempty"`
}

// TelescopeLockInput starts (or continues) a telescope's lock.
type TelescopeLockInput struct {
	Namespace string
	Name      string
	// Holder and Queue are the state a continued run takes over.
	Holder *TelescopeTicket  `json:",omitempty"`
	Queue  []TelescopeTicket `json:",omitempty"`
}

// telescopeLock is the lock's state and its rules, apart from Temporal so the order can be
// read (and tested) as plain code.
type telescopeLock struct {
	holder *TelescopeTicket
	queue  []TelescopeTicket
	// byPriority: the waiters are served by priority first (a run recorded before
	// priorities existed keeps serving by start).
	byPriority bool
}

// apply takes one request into the state.
func (l *telescopeLock) apply(r TelescopeRequest) {
	name := r.Ticket.Reservation
	l.remove(name)
	switch r.Op {
	case TelescopeTake:
		if l.holder != nil && l.holder.Reservation == name {
			// The holder asks again (a continued run, or a request that crossed a grant):
			// it keeps the telescope under its new token and is granted again.
			t := r.Ticket
			l.holder = &t
			l.holder.Told = ""
			return
		}
		l.queue = append(l.queue, r.Ticket)
		l.sort()
	case TelescopeRelease:
		if l.holder != nil && l.holder.Reservation == name {
			l.holder = nil
		}
	}
}

// remove takes a reservation out of the queue.
func (l *telescopeLock) remove(name string) {
	q := l.queue[:0]
	for _, t := range l.queue {
		if t.Reservation != name {
			q = append(q, t)
		}
	}
	l.queue = q
}

// sort orders the waiters by priority (highest first), then start, then creation time, then
// name.
func (l *telescopeLock) sort() {
	sort.SliceStable(l.queue, func(i, j int) bool {
		a, b := l.queue[i], l.queue[j]
		if l.byPriority && a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.Reservation < b.Reservation
	})
}

// next hands the telescope to the first waiter when nobody holds it.
func (l *telescopeLock) next() *TelescopeTicket {
	if l.holder != nil || len(l.queue) == 0 {
		return nil
	}
	t := l.queue[0]
	l.queue = l.queue[1:]
	l.holder = &t
	return l.holder
}

func (l *telescopeLock) idle() bool { return l.holder == nil && len(l.queue) == 0 }

// details are the lock's current details in the Temporal UI: who holds, who waits.
func (l *telescopeLock) details() string {
	held := "Free"
	if l.holder != nil {
		held = "Held by Reservation **" + l.holder.Reservation + "**"
	}
	if len(l.queue) == 0 {
		return held + "; nobody waits"
	}
	waiting := make([]string, len(l.queue))
	for i, t := range l.queue {
		waiting[i] = t.Reservation
	}
	return held + "; waiting, in order: " + strings.Join(waiting, ", ")
}

// TelescopeLock runs one telescope's lock until nobody holds or waits for it.
func TelescopeLock(ctx workflow.Context, in TelescopeLockInput) error {
	log := workflow.GetLogger(ctx)
	requests := workflow.GetSignalChannel(ctx, TelescopeRequests)
	l := &telescopeLock{holder: in.Holder, queue: in.Queue,
		byPriority: workflow.GetVersion(ctx, "priority-first", workflow.DefaultVersion, 1) == 1}
	l.sort()
	handled := 0

	for {
		var r TelescopeRequest
		for requests.ReceiveAsync(&r) {
			l.apply(r)
			handled++
			r = TelescopeRequest{}
		}
		if err := answer(ctx, l); err != nil {
			return err
		}
		workflow.SetCurrentDetails(ctx, l.details())
		if l.idle() {
			// A request that arrived while the answers went out is taken first; one that
			// arrives after this run ends starts the next run.
			if requests.ReceiveAsync(&r) {
				l.apply(r)
				continue
			}
			log.Info("the telescope is free and nobody waits; the lock ends", "telescope", in.Name)
			return nil
		}
		if info := workflow.GetInfo(ctx); info.GetContinueAsNewSuggested() ||
			info.GetCurrentHistoryLength() > telescopeHistoryLimit || handled >= telescopeRequestLimit {
			for requests.ReceiveAsync(&r) {
				l.apply(r)
				r = TelescopeRequest{}
			}
			return workflow.NewContinueAsNewError(ctx, TelescopeLock, TelescopeLockInput{
				Namespace: in.Namespace, Name: in.Name, Holder: l.holder, Queue: l.queue,
			})
		}
		requests.Receive(ctx, &r)
		l.apply(r)
		handled++
	}
}

// answer grants the telescope when it is free and tells each waiter who holds it. A holder
// whose workflow is gone (a grant cannot reach it) is dropped, so a lost reservation cannot
// keep the telescope.
func answer(ctx workflow.Context, l *telescopeLock) error {
	for {
		if l.holder != nil && l.holder.Told != l.holder.Token {
			h := l.holder
			err := signalReservation(ctx, h.WorkflowID, TelescopeAnswer{Token: h.Token, Granted: true})
			if err != nil {
				workflow.GetLogger(ctx).Warn("a grant did not reach its reservation; the next one gets the telescope",
					"reservation", h.Reservation, "err", err)
				l.holder = nil
			} else {
				h.Told = h.Token
			}
		}
		if l.next() == nil {
			break
		}
	}
	for i := range l.queue {
		w := &l.queue[i]
		if w.Told == l.holder.Reservation {
			continue
		}
		// A waiter that cannot be told is dropped when its grant fails.
		_ = signalReservation(ctx, w.WorkflowID, TelescopeAnswer{Token: w.Token, Holder: l.holder.Reservation})
		w.Told = l.holder.Reservation
	}
	return nil
}

func signalReservation(ctx workflow.Context, workflowID string, a any) error {
	return signalReservationAsync(ctx, workflowID, a).Get(ctx, nil)
}

// signalReservationAsync is signalReservation without waiting for the signal to arrive.
func signalReservationAsync(ctx workflow.Context, workflowID string, a any) workflow.Future {
	signal := TelescopeAnswers
	if _, ok := a.(SiteAnswer); ok {
		signal = SiteAnswers
	}
	return workflow.SignalExternalWorkflow(ctx, workflowID, "", signal, a)
}
