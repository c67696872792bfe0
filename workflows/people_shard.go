// PeopleShard is one shard of the people side: a long-lived workflow (ID people/<shard>) that the
// watcher signals with every Person change, in batches. It answers each batch with one
// workflow task: a local activity paints the Persons whose pictures need neither the network
// nor a pod, and an activity hands every change on to each Person's own workflow
// (person/<name>), starting it when needed, which does the rest and keeps the Person's
// history: at once for the Persons not painted, once the shard is quiet for the others.
//
// Why shards: a workflow start costs the Temporal server about 20 ms of serialized work, so
// a burst of 500 new Persons, one start each, waited seconds before the first status write.
// A shard's workflow task answers dozens of Persons at once, so pictures appear at the API
// server's pace, and the Persons' workflows start behind them. Nothing depends on the shard
// for correctness: a Person it could not paint is painted by its own workflow, which reads
// every Person again anyway.
package workflows

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/people"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
)

// A run continues as new when Temporal suggests it, when its history passes
// peopleHistoryLimit events (about ten per batch), or after peopleBatchLimit batches (the
// count the test environment can check). Variables for tests.
var (
	peopleHistoryLimit = 2000
	peopleBatchLimit   = 200
)

// paintPeople writes statuses only; it is never retried (see people.Activities.PaintPeople).
var paintPeople = workflow.LocalActivityOptions{
	StartToCloseTimeout: time.Minute,
	RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
}

// signalPeople hands changes on to the Persons' workflows. It is retried until Temporal
// takes them (it is Temporal that runs it), and a dead worker is noticed by its heartbeat.
var signalPeople = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Minute,
	HeartbeatTimeout:    20 * time.Second,
	RetryPolicy:         backOff,
}

// A painted Person's change is handed on once the shard has been quiet for handOnQuiet, or
// handOnLatest after the oldest one waiting: its workflow has nothing urgent to do, and
// starting thousands of workflows during a burst would slow the burst's own writes. A Person
// the shard did not paint (a picture to fetch or bake, a Person gone) is handed on at once.
// 5,000 Persons created at once paint for about a minute on two cores; starting their
// workflows from the 30th second on made the paint take 76 s instead of 46. Variables for
// tests.
var (
	handOnQuiet  = time.Second
	handOnLatest = 5 * time.Minute
)

// PeopleShard runs one shard until it continues as new; it never ends on its own.
func PeopleShard(ctx workflow.Context, in contract.PeopleInput) error {
	sh := &shard{
		ctx: ctx, in: in, signals: workflow.GetSignalChannel(ctx, contract.PeopleChanged),
		pending: in.Pending, waiting: in.Waiting,
	}
	if len(sh.waiting) > 0 {
		// The run before was not quiet yet: this one waits for quiet as it would have.
		sh.lastChange, sh.firstWaiting = workflow.Now(ctx), in.WaitingSince
	}
	sh.sel = workflow.NewSelector(ctx)
	sh.sel.AddReceive(sh.signals, func(c workflow.ReceiveChannel, _ bool) {
		var batch []contract.PersonChange
		c.Receive(ctx, &batch)
		sh.pending = append(sh.pending, batch...)
	})
	// A shard cancelled by hand ends; the watcher's next signal starts it again.
	sh.sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
	for {
		sh.pending = receiveAll(sh.signals, sh.pending)
		sh.paintNextSlice()
		sh.handOnIfQuiet()
		sh.startNextHandOn()
		sh.armTimers()
		if sh.long() {
			next := contract.PeopleInput{Shard: in.Shard, Pending: receiveAll(sh.signals, sh.pending),
				Waiting: sh.waiting, WaitingSince: sh.firstWaiting}
			return workflow.NewContinueAsNewError(ctx, PeopleShard, next)
		}
		sh.sel.Select(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// shard is one run of a shard: the changes it holds, on their way from the watcher's
// signals to the Persons' workflows.
type shard struct {
	ctx     workflow.Context
	in      contract.PeopleInput
	signals workflow.ReceiveChannel
	sel     workflow.Selector

	// pending are the changes not painted yet; waiting those painted, to hand on once the
	// shard is quiet (since lastChange) or the first of them waited long (firstWaiting).
	pending, waiting         []contract.PersonChange
	lastChange, firstWaiting time.Time
	// queued are the painted Persons' hand-ons not started yet, in chunks (see
	// handOnChunk); handing counts the SignalWorkflows activities not yet done.
	queued  [][]activities.WorkflowSignal
	handing int
	// quiet checks for quiet (quietFired once it fired); between ends a workflow task
	// between two slices.
	quiet, between workflow.Future
	quietFired     bool
	batches        int
}

// paintNextSlice paints the next slice of the pending changes, hands on at once those it
// could not paint, and keeps the painted waiting.
func (sh *shard) paintNextSlice() {
	if len(sh.pending) == 0 {
		return
	}
	var batch []contract.PersonChange
	batch, sh.pending = nextSlice(lastPerPerson(sh.pending))
	sh.batches++
	painted, left := paintBatch(sh.ctx, batch)
	if len(left) > 0 {
		sh.handOn(personSignals(left))
	}
	if len(painted) > 0 && len(sh.waiting) == 0 {
		sh.firstWaiting = workflow.Now(sh.ctx)
	}
	sh.waiting = append(sh.waiting, painted...)
	sh.lastChange = workflow.Now(sh.ctx)
}

// handOnIfQuiet queues the waiting changes' hand-ons once the quiet timer fired and the
// shard was quiet for handOnQuiet, or the first waited handOnLatest.
func (sh *shard) handOnIfQuiet() {
	if !sh.quietFired {
		return
	}
	sh.quietFired = false
	now := workflow.Now(sh.ctx)
	if now.Sub(sh.lastChange) >= handOnQuiet || now.Sub(sh.firstWaiting) >= handOnLatest {
		sh.queued = append(sh.queued, slices.Collect(slices.Chunk(paintedSignals(sh.waiting), handOnChunk))...)
		sh.waiting = nil
	}
}

// startNextHandOn starts the next queued chunk once the one before is done.
func (sh *shard) startNextHandOn() {
	if len(sh.queued) > 0 && sh.handing == 0 {
		sh.handOn(sh.queued[0])
		sh.queued = sh.queued[1:]
	}
}

// handOn starts a SignalWorkflows activity that hands signals on to the Persons' workflows.
func (sh *shard) handOn(signals []activities.WorkflowSignal) {
	sh.handing++
	opts := signalPeople
	opts.Summary = "hand " + fewNames(signalledNames(signals)) + " on to their own workflows"
	actx := workflow.WithActivityOptions(sh.ctx, opts)
	sh.sel.AddFuture(workflow.ExecuteActivity(actx, peopleActs.SignalWorkflows, signals), func(f workflow.Future) {
		sh.handing--
		if err := f.Get(sh.ctx, nil); err != nil {
			workflow.GetLogger(sh.ctx).Error("could not signal the Persons' workflows", "shard", sh.in.Shard, "err", err)
		}
	})
}

// armTimers arms what wakes the shard besides a signal or a hand-on's end: the end of this
// workflow task when more is left to paint, and the check for quiet while changes wait.
func (sh *shard) armTimers() {
	if len(sh.pending) > 0 && sh.between == nil {
		// A slice is painted and more is left: this workflow task ends before the next.
		sh.between = workflow.NewTimerWithOptions(sh.ctx, time.Millisecond,
			workflow.TimerOptions{Summary: "paint the next " + strconv.Itoa(min(len(sh.pending), paintSliceLimit)) + " Persons"})
		sh.sel.AddFuture(sh.between, func(workflow.Future) { sh.between = nil })
	}
	if len(sh.waiting) > 0 && sh.quiet == nil {
		sh.quiet = workflow.NewTimerWithOptions(sh.ctx, max(sh.lastChange.Add(handOnQuiet).Sub(workflow.Now(sh.ctx)), time.Millisecond),
			workflow.TimerOptions{Summary: "hand the painted Persons on once the shard is quiet for " + kube.ShortDuration(handOnQuiet)})
		sh.sel.AddFuture(sh.quiet, func(workflow.Future) { sh.quiet, sh.quietFired = nil, true })
	}
}

// long says whether the run continues as new now: no hand-on in flight or queued, and
// Temporal suggests it, or the history or the batches passed their limits.
func (sh *shard) long() bool {
	info := workflow.GetInfo(sh.ctx)
	return sh.handing == 0 && len(sh.queued) == 0 && (info.GetContinueAsNewSuggested() ||
		info.GetCurrentHistoryLength() > peopleHistoryLimit || sh.batches >= peopleBatchLimit)
}

// handOnChunk is how many Persons one SignalWorkflows hands on at most; the chunks of a
// shard go one after another. A hand-on's signals are its activity's input, about 600 bytes
// each: 10,000 Persons at once made inputs of 750 KB per shard, and past 2 MB Temporal would
// refuse the activity, and so the shard's workflow task, every time.
const handOnChunk = 200

// paintSliceLimit is how many Persons one workflow task paints at most. The local activity
// holds the workflow task open while it paints, and Temporal buffers the signals that arrive
// meanwhile; past 100 buffered it fails the task (FORCE_CLOSE_COMMAND), its paint is lost and
// the shard replays. Under a burst of thousands a batch of a few hundred took 5-8 s to paint,
// the watcher's signals kept coming, and every shard failed tasks again and again; a long
// task also looked like a quiet shard (workflow time stands still during a task), which then
// handed hundreds of Persons on in the middle of the burst.
const paintSliceLimit = 64

// nextSlice splits the changes into the slice to paint now and the rest.
func nextSlice(changes []contract.PersonChange) (now, rest []contract.PersonChange) {
	if len(changes) <= paintSliceLimit {
		return changes, nil
	}
	return changes[:paintSliceLimit], changes[paintSliceLimit:]
}

// paintBatch paints a batch and splits it: the changes of Persons painted (or already
// current), and those left to their own workflows at once. A paint that fails leaves all.
func paintBatch(ctx workflow.Context, batch []contract.PersonChange) (painted, left []contract.PersonChange) {
	persons := changedNames(batch)
	var out people.PaintOutcome
	opts := paintPeople
	opts.Summary = "paint " + fewNames(persons) + ", unless their pictures need the network or a pod"
	lctx := workflow.WithLocalActivityOptions(ctx, opts)
	if err := workflow.ExecuteLocalActivity(lctx, peopleActs.PaintPeople, persons).Get(ctx, &out); err != nil {
		workflow.GetLogger(ctx).Warn("could not paint a batch; each Person's workflow will", "err", err)
		return nil, batch
	}
	isLeft := map[string]bool{}
	for _, n := range out.Left {
		isLeft[n] = true
	}
	for _, c := range batch {
		if isLeft[c.Name] {
			left = append(left, c)
		} else {
			painted = append(painted, c)
		}
	}
	return painted, left
}

// changedNames are the Persons of changes, in order.
func changedNames(changes []contract.PersonChange) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Name
	}
	return out
}

// receiveAll appends every batch of changes already received on signals to pending (a
// shard's and an inventory's signals each carry a batch).
func receiveAll[C any](signals workflow.ReceiveChannel, pending []C) []C {
	for {
		var batch []C
		if !signals.ReceiveAsync(&batch) {
			return pending
		}
		pending = append(pending, batch...)
	}
}

// lastPerPerson keeps the last change of each Person, in the order of first appearance: a
// Person's workflow reads the Person itself, so one signal answers them all.
func lastPerPerson(changes []contract.PersonChange) []contract.PersonChange {
	at := map[string]int{}
	var out []contract.PersonChange
	for _, c := range changes {
		if i, ok := at[c.Name]; ok {
			out[i] = c
			continue
		}
		at[c.Name] = len(out)
		out = append(out, c)
	}
	return out
}

// paintedSignals hands on the painted changes, the last of each Person: a start only for the
// Persons whose every change was a resync, a signal for the others. A restarted watcher
// resyncs every Person: as signals, each running Person's workflow took an event and a
// workflow task, and read its Person again, to find nothing to do (10,000 Persons kept
// Temporal busy for minutes); as starts that find the workflow running, Temporal writes
// nothing.
func paintedSignals(waiting []contract.PersonChange) []activities.WorkflowSignal {
	changed := map[string]bool{} // a Person with a change that was not a resync
	for _, c := range waiting {
		if c.Why != contract.WhyResync || c.Deleted {
			changed[c.Name] = true
		}
	}
	last := lastPerPerson(waiting)
	signals := personSignals(last)
	for i, c := range last {
		signals[i].StartOnly = !changed[c.Name]
	}
	return signals
}

// signalledNames are the Persons of hand-on signals, in order.
func signalledNames(signals []activities.WorkflowSignal) []string {
	out := make([]string, len(signals))
	for i, s := range signals {
		out[i] = strings.TrimPrefix(s.WorkflowID, contract.PersonID(""))
	}
	return out
}

// personSignals are the signals that hand changes on to the Persons' workflows.
func personSignals(changes []contract.PersonChange) []activities.WorkflowSignal {
	out := make([]activities.WorkflowSignal, len(changes))
	for i, c := range changes {
		w := PersonWords(c.Name)
		out[i] = activities.WorkflowSignal{
			WorkflowID: contract.PersonID(c.Name), WorkflowType: contract.PersonWorkflow,
			Signal: contract.PersonChanged, Message: c, Input: contract.PersonInput{Name: c.Name},
			Summary: w.Summary, Details: w.Details,
			// A deleted Person needs no workflow: one still running hears of it and ends.
			OnlyIfRunning: c.Deleted,
		}
	}
	return out
}
