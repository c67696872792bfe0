// What a reservation reads and writes, and how it waits: the Reservation read through a
// local activity at every change signal (a signal only means "look again"), the status
// composed by kube/reservation_status.go and written only when it changes, with its Events,
// the search attributes, the finalizers, the signals to the locks, and continue-as-new for a
// long-held reservation, whose next run resumes from the status it wrote.
package workflows

import (
	"strconv"
	"time"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
)

// bookkeeping is for the quick API calls around the steps (read, finalizer, status, retry
// annotation, coordinator signals): local activities, because each takes milliseconds. Ten
// minutes of retries ride over a restarting API server; after that the run fails, and the
// watcher's next signal starts a new run that resumes from the status.
var bookkeeping = workflow.LocalActivityOptions{
	ScheduleToCloseTimeout: 10 * time.Minute,
	StartToCloseTimeout:    30 * time.Second,
	RetryPolicy:            backOff,
}

// A long-held reservation continues as new when Temporal suggests it, when its history passes
// reservationHistoryLimit events, or after reservationReadLimit reads (a signal answered is
// about six events, and the count is what the test environment can check). Variables for
// tests.
var (
	reservationHistoryLimit = 5000
	reservationReadLimit    = 600
)

// await blocks until a change signal (then reads the Reservation again), spec.end, or one of
// the cases add puts on the selector.
func (r *reservation) await(add func(workflow.Selector)) error {
	sel := workflow.NewSelector(r.ctx)
	changed, onlyConditions, onlyOwn := false, true, true
	note := func(ch contract.ReservationChange) {
		changed = true
		onlyConditions = onlyConditions && ch.Why == contract.WhyCondition
		onlyOwn = onlyOwn && (ch.Why == contract.WhyAdded || ch.Why == contract.WhyUpdated)
	}
	sel.AddReceive(r.changes, func(c workflow.ReceiveChannel, _ bool) {
		var ch contract.ReservationChange
		c.Receive(r.ctx, &ch)
		note(ch)
	})
	if r.end.timer != nil {
		sel.AddFuture(r.end.timer, func(workflow.Future) { r.end.timer = nil })
	}
	if add != nil {
		add(sel)
	}
	sel.Select(r.ctx)
	// A burst of changes is answered by one read.
	var ch contract.ReservationChange
	for changed && r.changes.ReceiveAsync(&ch) {
		note(ch)
	}
	r.lastAwait.changed, r.lastAwait.onlyConditions, r.lastAwait.onlyOwn = changed, changed && onlyConditions, changed && onlyOwn
	if !changed || r.lastAwait.onlyConditions {
		// A condition of a device is the triggers' business; the Reservation did not change.
		return nil
	}
	return r.read()
}

// read reads the Reservation and what it needs, and arms the end timer for spec.end.
func (r *reservation) read() error {
	var st observatory.ReservationState
	if err := r.local(localSummary("read", obsv1.KindReservation, r.in.Name), observatoryActs.ReadReservation, r.ref, &st); err != nil {
		return err
	}
	r.reads++
	if st.Gone {
		// Keep what is known of it; Gone ends it.
		r.state.Gone = true
		return nil
	}
	r.state = st
	r.telescope, r.holder = st.Spec.Telescope, st.Spec.Holder
	if st.Spec.End != nil && r.end.why == "" {
		end := st.Spec.End.UTC()
		if !end.Equal(r.end.armed) {
			r.end.armed = end
			r.end.timer = nil
			if d := end.Sub(r.now()); d > 0 {
				r.end.timer, _ = timer(r.ctx, d, "end at "+contract.At(end))
			}
		}
	}
	return nil
}

// write composes the status and writes it, with its Events, when it changed; and keeps the
// search attributes up to date.
func (r *reservation) write() error {
	f := kube.ReservationFacts{Telescope: r.telescope, Holder: r.holder, Generation: r.state.Generation, Endpoint: r.endpoint, Booking: r.state.Booking}
	if r.state.Night != nil {
		f.Night = r.state.Night.Window
	}
	if f.Endpoint == nil && r.telescope != "" {
		f.Endpoint = telescopeEndpoint(r.in.Namespace, r.telescope)
	}
	r.status = kube.ComposeReservation(r.status, f, r.now())
	r.upsertSearch()
	workflow.SetCurrentDetails(r.ctx, ReservationDetails(r.status))
	if kube.SameReservationStatus(&r.status, &r.written) || r.state.Gone {
		return nil
	}
	w := observatory.ReservationStatusWrite{
		Ref: r.ref, UID: r.state.UID, Status: r.status,
		Events: kube.ReservationEvents(&r.written, &r.status, r.telescope),
	}
	var out observatory.StatusWritten
	if err := r.local(statusSummary(r.status), observatoryActs.WriteReservationStatus, w, &out); err != nil {
		return err
	}
	r.written = *r.status.DeepCopy()
	if out.Gone {
		r.state.Gone = true
	}
	return nil
}

func (r *reservation) upsertSearch() {
	want := [4]string{r.telescope, r.holder, string(r.status.Phase), r.status.Step}
	if r.search.once && want == r.search.last {
		return
	}
	keys := [4]temporal.SearchAttributeKeyKeyword{contract.SearchTelescope, contract.SearchHolder, contract.SearchPhase, contract.SearchStep}
	var updates []temporal.SearchAttributeUpdate
	for i, k := range keys {
		if r.search.once && want[i] == r.search.last[i] {
			continue
		}
		if want[i] == "" {
			updates = append(updates, k.ValueUnset())
		} else {
			updates = append(updates, k.ValueSet(want[i]))
		}
	}
	if err := workflow.UpsertTypedSearchAttributes(r.ctx, updates...); err != nil {
		workflow.GetLogger(r.ctx).Warn("the search attributes could not be upserted", "err", err)
		return
	}
	r.search.last, r.search.once = want, true
}

// continueAsNewIfLong continues a long-held reservation as new; the next run resumes from the
// status, and the locks recognise it by its name.
func (r *reservation) continueAsNewIfLong() error {
	info := workflow.GetInfo(r.ctx)
	if !info.GetContinueAsNewSuggested() && info.GetCurrentHistoryLength() <= reservationHistoryLimit && r.reads < reservationReadLimit {
		return nil
	}
	for r.changes.ReceiveAsync(nil) {
	}
	return workflow.NewContinueAsNewError(r.ctx, Reservation, r.in)
}

func (r *reservation) signalTelescope(op string) error {
	start := r.state.Created
	if r.state.Spec.Start != nil {
		start = r.state.Spec.Start.UTC()
	}
	var priority int32
	if b := r.state.Booking; b != nil {
		priority = b.Priority
	}
	msg := TelescopeRequest{Op: op, Ticket: TelescopeTicket{
		Reservation: r.in.Name, WorkflowID: workflow.GetInfo(r.ctx).WorkflowExecution.ID,
		Token: r.locks.telescope, Start: start, Created: r.state.Created, Priority: priority,
	}}
	tel := r.state.Telescope.Name
	return r.coordinate(activities.WorkflowSignal{
		WorkflowID: contract.TelescopeLockID(r.in.Namespace, tel), WorkflowType: contract.TelescopeLockWorkflow, Signal: TelescopeRequests,
		Message: msg, Input: TelescopeLockInput{Namespace: r.in.Namespace, Name: tel},
		Keywords: map[string]string{contract.SearchTelescope.GetName(): tel},
	}, TelescopeLockWords(r.in.Namespace, tel), coordinatorSummary(obsv1.KindTelescope, tel, op))
}

// coordinate signals a lock, starting it with its words when it does not run.
func (r *reservation) coordinate(sig activities.WorkflowSignal, words contract.Words, summary string) error {
	sig.Summary, sig.Details = words.Summary, words.Details
	return r.local(summary, observatoryActs.SignalCoordinator, sig, nil)
}

func (r *reservation) addFinalizer(kind obsv1.Kind, name, uid string) (observatory.FinalizerResult, error) {
	return r.finalizer(observatoryActs.AddDeactivateFinalizer, localSummary("hold", kind, name), kind, name, uid)
}

func (r *reservation) removeFinalizer(kind obsv1.Kind, name, uid string) error {
	_, err := r.finalizer(observatoryActs.RemoveDeactivateFinalizer, localSummary("let go of", kind, name), kind, name, uid)
	return err
}

func (r *reservation) finalizer(fn any, summary string, kind obsv1.Kind, name, uid string) (observatory.FinalizerResult, error) {
	var res observatory.FinalizerResult
	err := r.local(summary, fn, observatory.FinalizerRef{Kind: kind, Namespace: r.in.Namespace, Name: name, UID: uid}, &res)
	return res, err
}

// quickBookkeeping is a local activity that gives up within half a minute: what must never
// hold up the night (the holder's way in).
var quickBookkeeping = workflow.LocalActivityOptions{
	ScheduleToCloseTimeout: 30 * time.Second,
	StartToCloseTimeout:    10 * time.Second,
	RetryPolicy:            backOff,
}

// quick runs a local activity that gives up within half a minute.
func (r *reservation) quick(summary string, fn, in, out any) error {
	return r.localWith(quickBookkeeping, summary, fn, in, out)
}

// local runs a bookkeeping local activity; summary is what the Temporal UI says of it.
func (r *reservation) local(summary string, fn, in, out any) error {
	return r.localWith(bookkeeping, summary, fn, in, out)
}

func (r *reservation) localWith(opts workflow.LocalActivityOptions, summary string, fn, in, out any) error {
	opts.Summary = summary
	return workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(r.ctx, opts), fn, in).Get(r.ctx, out)
}

// token is unique per request this run makes of a lock: the run's ID and a count.
func (r *reservation) token() string {
	r.locks.seq++
	return workflow.GetInfo(r.ctx).WorkflowExecution.RunID + "/" + strconv.Itoa(r.locks.seq)
}

func (r *reservation) now() time.Time { return workflow.Now(r.ctx) }

// servers names the telescope and its observatory, for summaries.
func (r *reservation) servers() string {
	if r.observatory == "" {
		return "Telescope " + r.telescope
	}
	return "Telescope " + r.telescope + " and Observatory " + r.observatory
}

// telescopeEndpoint is the telescope's INDI server, where the holder connects: the address
// PowerOn reports, known before it does because the Service's name is fixed.
func telescopeEndpoint(namespace, telescope string) *obsv1.Endpoint {
	svc := kube.ServerName(obsv1.KindTelescope, telescope)
	return &obsv1.Endpoint{Service: svc, Host: svc + "." + namespace + ".svc", Port: kube.ServerPort}
}
