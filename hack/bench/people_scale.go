// Ten thousand Persons (-scale, `make bench-scale`; not part of `make bench` nor of the tests):
// one stack, one watcher and the workers, and Persons created in steps up to each size in turn
// (1,000, then 4,000 more to 5,000, then 5,000 more to 10,000). For each size it prints the time
// until the step's Persons are all painted and their rate, the peak RSS of the watcher, the
// workers and Temporal, the size of Temporal's database, the running workflows, and what a
// restarted watcher costs with nothing to do: how long it takes to signal every Person again,
// and the API writes that caused (none is right: a Person that did not change is not painted
// again; the watcher's own Lease renewals are counted apart).
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"liken.sh/runner/contract"
)

// scaleSizes parses -scale.
func scaleSizes(list string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(list, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || (len(sizes) > 0 && n <= sizes[len(sizes)-1]) {
			return nil, fmt.Errorf("-scale %q: give growing Person counts such as 1000,5000,10000", list)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// peopleScale runs the scale scenario on b's stack.
func peopleScale(sizes []int) func(context.Context, *bench) error {
	return func(ctx context.Context, b *bench) error {
		if err := b.buildBinaries(ctx); err != nil {
			return err
		}
		var pprof []string
		if b.profiles != "" {
			if err := os.MkdirAll(b.profiles, 0o755); err != nil {
				return err
			}
			pprof = []string{"--pprof"}
		}
		if err := b.spawn(ctx, "watcher", "watcher", append([]string{"--side=people"}, pprof...)...); err != nil {
			return err
		}
		if err := b.spawnWorkers(ctx, pprof...); err != nil {
			return err
		}
		c, err := client.DialContext(ctx, client.Options{HostPort: b.s.TemporalAddress, Logger: quiet{}})
		if err != nil {
			return err
		}
		defer c.Close()
		t, stop, err := b.track(ctx)
		if err != nil {
			return err
		}
		defer stop()
		fmt.Printf("people at scale: Persons created in steps (16 clients), one watcher, %d worker(s), %s; 2 cores shared by every process\n\n", b.workers, b.setup)
		fmt.Printf("%8s %10s %10s %10s %9s %9s %9s %9s %10s %11s %11s %10s\n", "Persons", "painted", "Persons/s", "workflows",
			"watcher", "worker", "temporal", "DB", "running", "re-signal", "re-watcher", "API writes")
		all := names("scale", sizes[len(sizes)-1])
		var notes []string
		for i, size := range sizes {
			have := 0
			if i > 0 {
				have = sizes[i-1]
			}
			note, err := b.scaleStep(ctx, c, t, all[have:size], size)
			if err != nil {
				return err
			}
			notes = append(notes, note)
		}
		fmt.Println("\npainted: from the step's first create to its last Person's thumbnail; Persons/s: the step's")
		fmt.Println("Persons over that time; workflows: then until every Person's own workflow runs (the figures")
		fmt.Println("after it are taken then); watcher, worker (the largest), temporal: peak RSS since the start;")
		fmt.Println("DB: Temporal's SQLite files (or nothing on PostgreSQL); re-signal: a restarted watcher's")
		fmt.Println("start to its last signal of every Person; re-watcher: that restarted watcher's peak RSS, its")
		fmt.Println("first list of every Person included; API writes: what the restart caused, Leases and the")
		fmt.Println("control plane's own timers (ClusterTrustBundles) apart.")
		fmt.Println("\nCPU seconds of each step, from its first create to its last thumbnail, with the workflows")
		fmt.Println("running when it began, and of its watcher restart, to 10 s after the last signal:")
		for _, n := range notes {
			fmt.Println(n)
		}
		return nil
	}
}

// scaleStep creates the step's Persons, waits until all are painted, restarts the watcher,
// and prints the step's row; it returns the step's note (CPU and workflows).
func (b *bench) scaleStep(ctx context.Context, c client.Client, t *tracker, step []string, size int) (string, error) {
	runningBefore, err := countRunning(ctx, c)
	if err != nil {
		return "", err
	}
	cpu0 := b.cpu()
	started := time.Now()
	if err := b.create(ctx, t, step); err != nil {
		return "", fmt.Errorf("create Persons %d to %d: %w", size-len(step), size, err)
	}
	if _, err := t.wait(ctx, 60*time.Minute, step); err != nil {
		return "", fmt.Errorf("%d Persons: %w", size, err)
	}
	took := time.Since(started)
	cpu := b.cpu()
	// The Persons' own workflows start behind the paint; the figures below are taken once all
	// run, so the worker holds them all and the restart finds nothing to do.
	running, behind, err := b.allRunning(ctx, c, size)
	if err != nil {
		return "", err
	}
	var workerRSS int64
	for _, name := range b.workerNames() {
		workerRSS = max(workerRSS, peakRSS(b.s.Pid(name)))
	}
	row := fmt.Sprintf("%8d %10s %10.0f %10s %9s %9s %9s %9s %10d", size, took.Round(100*time.Millisecond),
		float64(len(step))/took.Seconds(), behind.Round(100*time.Millisecond), mib(peakRSS(b.s.Pid("watcher"))), mib(workerRSS),
		mib(peakRSS(b.s.Pid("temporal"))), mib(b.temporalDBSize()/1024), running)
	b.heapProfiles(ctx, size, "")
	cpuRestart := b.cpu()
	resignal, writes, leases, plane, err := b.restartWatcher(ctx, size)
	if err != nil {
		return "", fmt.Errorf("%d Persons: restart the watcher: %w", size, err)
	}
	cpuRestarted := b.cpu()
	b.heapProfiles(ctx, size, "restarted")
	fmt.Printf("%s %11s %11s %10.0f   (apart: Lease writes %.0f, the control plane's own %.0f)%s\n", row,
		resignal.Round(100*time.Millisecond), mib(peakRSS(b.s.Pid("watcher"))), sum(writes), leases, plane, whichWrites(writes))
	return fmt.Sprintf("%8d  step: %s; %d workflows running at its start\n          restart: %s", size,
		cpuSpent(cpu0, cpu), runningBefore, cpuSpent(cpuRestart, cpuRestarted)), nil
}

// cpuSpent prints the CPU seconds each process used between two readings of bench.cpu.
func cpuSpent(before, after map[string]float64) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(after)) {
		spent := after[name] - before[name]
		if spent < 0 { // a new process of that name (the restarted watcher): all of its own
			spent = after[name]
		}
		parts = append(parts, fmt.Sprintf("%s %.1f", name, spent))
	}
	return strings.Join(parts, ", ")
}

// allRunning waits until the workflows of all n Persons run beside the shards, and returns
// the count and how long that took.
func (b *bench) allRunning(ctx context.Context, c client.Client, n int) (running int64, took time.Duration, err error) {
	started := time.Now()
	for {
		if running, err = countRunning(ctx, c); err != nil || running >= int64(n+contract.PeopleShards) {
			return running, time.Since(started), err
		}
		if time.Since(started) > 30*time.Minute {
			return running, 0, fmt.Errorf("%d of %d Persons' workflows run after 30 minutes", running-contract.PeopleShards, n)
		}
		select {
		case <-ctx.Done():
			return running, 0, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// countRunning counts the running workflows (the shards and the Persons' own).
func countRunning(ctx context.Context, c client.Client) (int64, error) {
	r, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: "ExecutionStatus = 'Running'"})
	if err != nil {
		return 0, fmt.Errorf("count the running workflows: %w", err)
	}
	return r.GetCount(), nil
}

// heapProfiles writes the watcher's and the workers' heap profiles (after a GC: what they
// hold) into -profiles as <process>-<size>[-<when>].heap; without -profiles it does nothing. A
// profile that cannot be read is said on stderr: the figures still print.
func (b *bench) heapProfiles(ctx context.Context, size int, when string) {
	if b.profiles == "" {
		return
	}
	procs := []string{"watcher"}
	if when == "" {
		procs = append(procs, b.workerNames()...)
	}
	for _, name := range procs {
		file := fmt.Sprintf("%s-%d", name, size)
		if when != "" {
			file += "-" + when
		}
		if err := b.writeProfile(ctx, name, "heap?gc=1", filepath.Join(b.profiles, file+".heap")); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
		}
	}
}

// writeProfile saves one of a process's /debug/pprof/ profiles to path.
func (b *bench) writeProfile(ctx context.Context, name, profile, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+b.health[name]+"/debug/pprof/"+profile, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the %s profile of %s: %w", profile, name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the %s profile of %s: %s", profile, name, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func mib(kib int64) string { return fmt.Sprintf("%.0fMiB", float64(kib)/1024) }

// temporalDBSize is the bytes of the dev server's SQLite files (database, WAL, shared memory).
func (b *bench) temporalDBSize() int64 {
	var n int64
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(b.binDir), "temporal.db*"))
	for _, f := range matches {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// restartWatcher stops the watcher and starts it again, waits until it has signalled all n
// Persons (its people queue took n keys and is empty, nothing in flight), lets the workers act
// on those signals, and returns how long the signalling took and the API writes meanwhile
// (the Lease's apart), by verb and resource.
func (b *bench) restartWatcher(ctx context.Context, n int) (took time.Duration, writes map[string]float64, leases, plane float64, err error) {
	before, err := b.apiServerCounts(ctx)
	if err != nil {
		return 0, nil, 0, 0, err
	}
	own0 := b.own.snapshot()
	restart, err := b.s.StopProcess("watcher")
	if err != nil {
		return 0, nil, 0, 0, err
	}
	started := time.Now()
	if err := restart(ctx); err != nil {
		return 0, nil, 0, 0, err
	}
	for {
		m, err := b.metrics(ctx, "watcher")
		if err != nil {
			return 0, nil, 0, 0, err
		}
		if m[`workqueue_adds_total{name="people"}`] >= float64(n) && m[`workqueue_depth{name="people"}`] == 0 &&
			m[`liken_watcher_signals_in_flight{side="people"}`] == 0 {
			break
		}
		if time.Since(started) > 30*time.Minute {
			return 0, nil, 0, 0, fmt.Errorf("the watcher queued %.0f of %d Persons in 30 minutes", m[`workqueue_adds_total{name="people"}`], n)
		}
		select {
		case <-ctx.Done():
			return 0, nil, 0, 0, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	took = time.Since(started)
	// The workers act on the last signals within seconds; a repaint would show by then.
	time.Sleep(10 * time.Second)
	after, err := b.apiServerCounts(ctx)
	if err != nil {
		return 0, nil, 0, 0, err
	}
	writes = map[string]float64{}
	for k, v := range theirs(before, after, own0, b.own.snapshot()).requests {
		switch {
		case !isWrite(k.verb):
		case k.resource == "leases":
			leases += v
		case controlPlaneOnly[k.resource]:
			// Written by the control plane on its own clock, never by the runner (its RBAC
			// cannot): counted apart, so the row says what the restart caused.
			plane += v
		default:
			writes[k.verb+" "+k.resource] += v
		}
	}
	return took, writes, leases, plane, nil
}

// controlPlaneOnly are resources only the control plane writes, on timers of its own
// (kube-controller-manager publishes its signers' ClusterTrustBundles).
var controlPlaneOnly = map[string]bool{"clustertrustbundles": true}

// whichWrites names the writes a restart caused, so a row that is not 0 says what to look at.
func whichWrites(writes map[string]float64) string {
	if len(writes) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(writes)) {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, writes[k]))
	}
	return "; writes: " + strings.Join(parts, ", ")
}

// sum adds up the counts of a map.
func sum(m map[string]float64) (n float64) {
	for _, v := range m {
		n += v
	}
	return n
}
