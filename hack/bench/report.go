// What the bench prints, and how it counts Temporal's cost per Person.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"liken.sh/runner/contract"
)

type row struct {
	name       string
	setup      setup
	single     []time.Duration
	burst      []time.Duration
	burstTotal time.Duration   // the median round's
	rounds     []time.Duration // every round's, in order
	burstStart time.Time       // the last round's
	lastBurst  []string        // the last round's Persons
	// settled: from the burst's start until every Person's own workflow ran (this project).
	settled time.Duration
	// Temporal's cost, averaged over the burst's Persons.
	events, actions float64
	rss             map[string]int64   // KiB, by process
	cpu             map[string]float64 // CPU seconds during the burst, by process
	// What users saw of the burst (this project): Persons by how many writes the watch saw,
	// those with one Initials Event posted once, by worker; and the histories' split.
	writes       map[int]int
	initialsOnce int
	initialsBy   map[string]int
	split        *split
	breakdown    string // this project: where one Person's milliseconds go
}

// label is the row's name, with its Temporal and workers when not the dev server's one.
func (x *row) label() string {
	if x.setup.postgres {
		return x.name + ", " + x.setup.String()
	}
	return x.name
}

type report struct {
	bareWritesPerSec float64
	rows             []*row
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "bare limit (6 KB status PUTs, 8 workers, no operator): %.0f writes/s\n\n", r.bareWritesPerSec)
	fmt.Fprintf(w, "%-36s %9s %9s %10s %10s %9s %9s %8s %8s %8s\n",
		"", "one p50", "one p99", "burst", "Persons/s", "per p50", "per p99", "ratio", "events", "actions")
	for _, x := range r.rows {
		perSec := float64(len(x.burst)) / x.burstTotal.Seconds()
		fmt.Fprintf(w, "%-36s %9s %9s %10s %10.0f %9s %9s %8.2f %8s %8s\n", x.label(),
			ms(percentile(x.single, 0.5)), ms(percentile(x.single, 0.99)),
			x.burstTotal.Round(10*time.Millisecond), perSec,
			ms(percentile(x.burst, 0.5)), ms(percentile(x.burst, 0.99)),
			perSec/r.bareWritesPerSec, count(x.events), count(x.actions))
	}
	fmt.Fprintln(w)
	for _, x := range r.rows {
		if len(x.rounds) > 1 {
			fmt.Fprintf(w, "%s: burst rounds", x.label())
			for _, d := range x.rounds {
				fmt.Fprintf(w, " %s (%.0f/s)", d.Round(10*time.Millisecond), float64(len(x.burst))/d.Seconds())
			}
			fmt.Fprintln(w, "; the row shows the median")
		}
	}
	for _, x := range r.rows {
		if len(x.single) > 0 {
			fmt.Fprintf(w, "%s, the singles in order: %s\n", x.label(), inOrder(x.single))
		}
	}
	for _, x := range r.rows {
		if x.breakdown != "" {
			fmt.Fprintf(w, "%s, one Person, where the milliseconds go (means over the singles):\n%s", x.label(), x.breakdown)
		}
	}
	for _, x := range r.rows {
		if x.settled > 0 {
			fmt.Fprintf(w, "%s: every Person's own workflow started %s after the burst began\n", x.label(), x.settled.Round(10*time.Millisecond))
		}
	}
	for _, x := range r.rows {
		if x.split == nil {
			continue
		}
		fmt.Fprintf(w, "%s, the last burst's %d Persons:\n", x.label(), len(x.burst))
		fmt.Fprintf(w, "  writes seen per Person: %s; one Initials Event posted once: %d (by %s)\n",
			perPerson(x.writes), x.initialsOnce, byName(x.initialsBy))
		x.split.print(w, "  ")
	}
	for _, x := range r.rows {
		fmt.Fprintf(w, "%s, CPU seconds during the burst:", x.label())
		for _, name := range []string{"etcd", "kube-apiserver", "temporal", "postgres", "watcher", "worker"} {
			if sec, ok := x.cpu[name]; ok {
				fmt.Fprintf(w, " %s %.1f", name, sec)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, x := range r.rows {
		for _, name := range slices.Sorted(maps.Keys(x.rss)) {
			fmt.Fprintf(w, "%s: %s peak RSS %.0f MiB\n", x.label(), name, float64(x.rss[name])/1024)
		}
	}
	fmt.Fprintln(w, "\nratio = Persons/s of the burst over the bare limit's writes/s, measured in this run.")
	fmt.Fprintln(w, "events = history events per Person; actions = workflow starts, signals, activities,")
	fmt.Fprintln(w, "local activities and timers per Person (what Temporal Cloud bills); both count the")
	fmt.Fprintln(w, "Person's own workflow and its share of the shards' (people/<n>).")
}

// inOrder lists latencies in whole milliseconds, in the order they were measured: a slow
// start (a shard's first signal, a cold cache) shows where it happened.
func inOrder(d []time.Duration) string {
	var b strings.Builder
	for i, x := range d {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.0f", float64(x)/float64(time.Millisecond))
	}
	return b.String()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond)) }

func count(f float64) string {
	if f == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", f)
}

// temporalCost waits until every burst Person's own workflow has started (the shards start
// them after painting), records when, and counts Temporal's work per Person: the events and
// actions of each Person's history, plus the shards' (every run of every shard, spread over
// every Person this run created, singles included).
func (b *bench) temporalCost(ctx context.Context, r *row, persons []string, all int) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{HostPort: b.s.TemporalAddress, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer c.Close()
	r.split = b.newSplit()
	for _, p := range persons {
		if err := waitForWorkflow(ctx, c, contract.PersonID(p)); err != nil {
			return err
		}
	}
	r.settled = time.Since(r.burstStart)

	var events, actions int
	for _, p := range persons {
		e, a, err := historyCost(ctx, c, contract.PersonID(p), "", r.split)
		if err != nil {
			return err
		}
		events, actions = events+e, actions+a
	}
	r.events = float64(events) / float64(len(persons))
	r.actions = float64(actions) / float64(len(persons))

	events, actions = 0, 0
	runs := workflowservice.ListWorkflowExecutionsRequest{Query: "WorkflowType = '" + contract.PeopleShardWorkflow + "'"}
	for {
		page, err := c.ListWorkflow(ctx, &runs)
		if err != nil {
			return fmt.Errorf("list the shards' runs: %w", err)
		}
		for _, run := range page.GetExecutions() {
			e, a, err := historyCost(ctx, c, run.GetExecution().GetWorkflowId(), run.GetExecution().GetRunId(), r.split)
			if err != nil {
				return err
			}
			events, actions = events+e, actions+a
		}
		if runs.NextPageToken = page.GetNextPageToken(); len(runs.NextPageToken) == 0 {
			break
		}
	}
	r.events += float64(events) / float64(all)
	r.actions += float64(actions) / float64(all)
	return nil
}

// waitForWorkflow waits until the workflow id exists.
func waitForWorkflow(ctx context.Context, c client.Client, id string) error {
	for {
		_, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err == nil {
			return nil
		}
		var missing *serviceerror.NotFound
		if !errors.As(err, &missing) {
			return fmt.Errorf("describe %s: %w", id, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the workflow %s did not start: %w", id, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// historyCost counts the events of one run and the actions among them (Temporal Cloud's
// billing: starts, signals, activities, local activities (markers) and timers), and adds the
// run's work to sp.
func historyCost(ctx context.Context, c client.Client, id, run string, sp *split) (events, actions int, err error) {
	it := c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return 0, 0, fmt.Errorf("history of %s: %w", id, err)
		}
		sp.add(e)
		events++
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
			enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, enumspb.EVENT_TYPE_MARKER_RECORDED,
			enumspb.EVENT_TYPE_TIMER_STARTED:
			actions++
		}
	}
	return events, actions, nil
}

type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
