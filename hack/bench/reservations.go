// The reservation bench: n telescopes of one observatory, each with a mount and a camera on
// INDI simulators (the worker's dev mode runs them as local indiservers), and one reservation
// each, all starting and ending at the same moment. It times spec.start → Ready and spec.end →
// Released, shows where the time goes (each step's activity, from the workflows' histories),
// how busy our own processes were meanwhile, and Temporal's events and actions per reservation.
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/localstack"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// Lead time before spec.start (the objects and reservations are created meanwhile), and how
// long the reservations hold once all are Ready: their end is set then, as a person changes it,
// so that a slow start on a busy machine cannot end one before it is Ready.
const (
	leadTime = 15 * time.Second
	holdTime = 20 * time.Second
)

// telescopeCounts parses -reservations.
func telescopeCounts(list string) ([]int, error) {
	var counts []int
	for _, f := range strings.Split(list, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-reservations %q: give telescope counts such as 1,20", list)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

func printReservationBench() {
	fmt.Printf("\nreservation bench: each telescope has a mount and a camera, the site a dome (unparked at\n")
	fmt.Printf("activation, parked at deactivation) and a weather station; INDI simulators run as local\n")
	fmt.Printf("indiservers (the worker's dev mode); 2 cores shared by every process\n")
}

// runReservations runs the watcher and the setup's workers, then each count of telescopes in
// turn.
func runReservations(counts []int) func(context.Context, *bench) error {
	return func(ctx context.Context, b *bench) error {
		if err := b.buildBinaries(ctx); err != nil {
			return err
		}
		if err := b.spawn(ctx, "watcher", "watcher", "--side=observatory"); err != nil {
			return err
		}
		// The workers share one dev-mode folder, as workers share the pods they create; the
		// stack's own, not the default one in the temporary folder, which every worker on this
		// machine with the default task queue shares (another's Close would stop ours).
		indiDir := filepath.Join(filepath.Dir(b.binDir), "indi")
		if err := b.spawnWorkers(ctx, "--dev-local-indi", "--dev-local-indi-dir="+indiDir); err != nil {
			return err
		}
		for _, n := range counts {
			started := time.Now()
			if err := b.reservationRun(ctx, n); err != nil {
				return fmt.Errorf("%d telescopes: %w", n, err)
			}
			fmt.Fprintf(os.Stderr, "bench: %d telescopes (%s) done in %s\n", n, b.setup, time.Since(started).Round(time.Second))
		}
		return nil
	}
}

// siteManifest is the observatory of one run, in the namespace ns, with n telescopes whose
// reservations start at start and end at end.
func siteManifest(ns string, n int, start, end time.Time) string {
	var m strings.Builder
	fmt.Fprintf(&m, `apiVersion: v1
kind: Namespace
metadata: {name: %[1]s}
---
apiVersion: observatory.liken.sh/v1alpha1
kind: Observatory
metadata: {name: site, namespace: %[1]s}
spec: {location: {latitude: 52.2, longitude: 0.1, elevation: 20}, safety: {sunAltitude: 90}}
---
apiVersion: observatory.liken.sh/v1alpha1
kind: Dome
metadata: {name: site, namespace: %[1]s}
spec:
  observatory: site
  driver: {name: indi_simulator_dome}
  activation: [{state: Unparked, timeout: 5m}]
  deactivation: [{state: Parked}]
---
apiVersion: observatory.liken.sh/v1alpha1
kind: WeatherStation
metadata: {name: site, namespace: %[1]s}
spec: {observatory: site, driver: {name: indi_simulator_weather}}
`, ns)
	for i := range n {
		fmt.Fprintf(&m, `---
apiVersion: observatory.liken.sh/v1alpha1
kind: Telescope
metadata: {name: t%[2]d, namespace: %[1]s}
spec: {observatory: site}
---
apiVersion: observatory.liken.sh/v1alpha1
kind: Mount
metadata: {name: t%[2]d, namespace: %[1]s}
spec:
  telescope: t%[2]d
  driver: {name: indi_simulator_telescope}
  deactivation: [{state: Parked}]
---
apiVersion: observatory.liken.sh/v1alpha1
kind: OpticalTube
metadata: {name: t%[2]d, namespace: %[1]s}
spec: {telescope: t%[2]d, aperture: 80, focalLength: 480}
---
apiVersion: observatory.liken.sh/v1alpha1
kind: OpticalTrain
metadata: {name: t%[2]d-main, namespace: %[1]s}
spec: {telescope: t%[2]d, opticalTube: t%[2]d}
---
apiVersion: observatory.liken.sh/v1alpha1
kind: Camera
metadata: {name: t%[2]d-main, namespace: %[1]s}
spec: {opticalTrain: t%[2]d-main, driver: {name: indi_simulator_ccd}}
---
apiVersion: observatory.liken.sh/v1alpha1
kind: Reservation
metadata: {name: r%[2]d, namespace: %[1]s}
spec: {telescope: t%[2]d, holder: bench, start: %[3]q, end: %[4]q}
`, ns, i, start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))
	}
	return m.String()
}

// reservationRun creates n telescopes and their reservations and times them.
func (b *bench) reservationRun(ctx context.Context, n int) error {
	ns := fmt.Sprintf("bench-%d", n)
	// A Reservation's times are RFC 3339 in whole seconds.
	start := time.Now().Add(leadTime).Truncate(time.Second)
	p := &progress{
		start: start, end: start.Add(time.Hour), // until all are Ready
		ready: map[string]time.Time{}, released: map[string]time.Time{},
	}
	if _, err := b.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	pods, stopPods, err := b.podsCreated(ctx, ns)
	if err != nil {
		return err
	}
	defer stopPods()
	kubectl := filepath.Join(localstack.Cache(), "kube-"+localstack.KubeVersion, "kubectl")
	apply := exec.CommandContext(ctx, kubectl, "--kubeconfig="+b.s.Kubeconfig, "apply", "--server-side", "-f", "-")
	apply.Stdin = strings.NewReader(siteManifest(ns, n, p.start, p.end))
	if out, err := apply.CombinedOutput(); err != nil {
		return fmt.Errorf("apply the site: %v: %s", err, out)
	}
	// Counted from here: what the runner does for the site and its reservations.
	before, err := b.snapshot(ctx)
	if err != nil {
		return err
	}
	if err := b.awaitReleased(ctx, ns, n, p, before); err != nil {
		return err
	}
	p.cpuReleased = b.cpu()
	after, err := b.snapshot(ctx)
	if err != nil {
		return err
	}
	b.printTimes(n, p)
	fmt.Printf("  %s\n", createdOnce(pods()))
	after.print(os.Stdout, before, n)
	return b.reservationCost(ctx, ns, n, p)
}

// progress is what a reservation run has seen: when each Reservation was first seen Ready
// and Released, and the processes' CPU seconds at spec.start, once all were Ready, at
// spec.end and once all were Released.
type progress struct {
	start, end                              time.Time
	ready, released                         map[string]time.Time
	cpuStart, cpuReady, cpuEnd, cpuReleased map[string]float64
}

// observe records the phases the Reservations have at now, and returns the first that failed.
func (p *progress) observe(items []unstructured.Unstructured, now time.Time) *unstructured.Unstructured {
	first := func(seen map[string]time.Time, name string) {
		if _, ok := seen[name]; !ok {
			seen[name] = now
		}
	}
	for i, u := range items {
		phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
		switch obsv1.ReservationPhase(phase) {
		case obsv1.ReservationReady:
			first(p.ready, u.GetName())
		case obsv1.ReservationReleased:
			first(p.ready, u.GetName())
			first(p.released, u.GetName())
		case obsv1.ReservationFailed:
			return &items[i]
		}
	}
	return nil
}

// awaitReleased polls the n Reservations of ns until all are Released: once all are Ready it
// moves their end to holdTime from now, and it fails on a Failed Reservation, printing the
// counts so far, which still say where the work went.
func (b *bench) awaitReleased(ctx context.Context, ns string, n int, p *progress, before counted) error {
	res := b.dyn.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
	for len(p.released) < n {
		now := time.Now()
		switch {
		case p.cpuStart == nil && !now.Before(p.start):
			p.cpuStart = b.cpu()
		case p.cpuEnd == nil && !now.Before(p.end):
			p.cpuEnd = b.cpu()
		}
		l, err := res.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if u := p.observe(l.Items, now); u != nil {
			if now, err := b.snapshot(ctx); err == nil {
				fmt.Printf("\n%d telescope(s), %s: FAILED (%s); counted until then:\n", n, b.setup, u.GetName())
				now.print(os.Stdout, before, n)
			}
			return fmt.Errorf("the reservation %s/%s failed: %s (its whole status: %v)", ns, u.GetName(), whyFailed(*u), u.Object["status"])
		}
		if p.cpuReady == nil && len(p.ready) == n {
			p.cpuReady = b.cpu()
			// Whole seconds, as a Reservation's times are, and never before now.
			p.end = time.Now().Add(holdTime + time.Second).Truncate(time.Second)
			if err := b.setEnd(ctx, ns, n, p.end); err != nil {
				return err
			}
		}
		if p.cpuReady == nil && time.Since(p.start) > 5*time.Minute {
			return fmt.Errorf("%d of %d reservations Ready 5 minutes after their start", len(p.ready), n)
		}
		if time.Since(p.end) > 5*time.Minute {
			return fmt.Errorf("%d of %d reservations released 5 minutes after their end", len(p.released), n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// printTimes prints how long the Reservations took from spec.start to Ready and from
// spec.end to Released, and the CPU seconds each process spent meanwhile.
func (b *bench) printTimes(n int, p *progress) {
	var toReady, toReleased []time.Duration
	for _, t := range p.ready {
		toReady = append(toReady, t.Sub(p.start))
	}
	for _, t := range p.released {
		toReleased = append(toReleased, t.Sub(p.end))
	}
	fmt.Printf("\n%d telescope(s), %s: spec.start → Ready p50 %s, last %s; spec.end → Released p50 %s, last %s\n", n, b.setup,
		percentile(toReady, 0.5).Round(10*time.Millisecond), slices.Max(toReady).Round(10*time.Millisecond),
		percentile(toReleased, 0.5).Round(10*time.Millisecond), slices.Max(toReleased).Round(10*time.Millisecond))
	busy := func(label string, from, to map[string]float64, wall time.Duration) {
		fmt.Printf("  CPU seconds, %s (%s of wall time):", label, wall.Round(10*time.Millisecond))
		for _, name := range []string{"worker", "watcher", "kube-apiserver", "etcd", "temporal", "postgres"} {
			if _, ok := to[name]; ok {
				fmt.Printf(" %s %.2f", name, to[name]-from[name])
			}
		}
		ours := (to["worker"] - from["worker"]) + (to["watcher"] - from["watcher"])
		fmt.Printf("; our code busy %.0f%% of it\n", 100*ours/wall.Seconds())
	}
	busy("start → all Ready", p.cpuStart, p.cpuReady, slices.Max(toReady))
	busy("end → all Released", p.cpuEnd, p.cpuReleased, slices.Max(toReleased))
}

// counted is what a scenario counts at one moment: the API server's requests, the bench's
// own among them, and the workers' INDI traffic.
type counted struct {
	api  apiCounts
	own  map[apiKey]float64
	indi map[string]float64
}

func (b *bench) snapshot(ctx context.Context) (counted, error) {
	own := b.own.snapshot()
	api, err := b.apiServerCounts(ctx)
	if err != nil {
		return counted{}, err
	}
	indi, err := b.indiTraffic(ctx, b.workerNames())
	return counted{api: api, own: own, indi: indi}, err
}

// print says what the runner did per reservation between before and c: API requests by verb
// and resource, the conflicts, and INDI traffic.
func (c counted) print(w io.Writer, before counted, n int) {
	d := theirs(before.api, c.api, before.own, c.own)
	printPer(w, "  ", "API requests per reservation (every client but the bench: runner, control plane, kwok; applied to Released)", d.requests, n)
	var conflicts float64
	for _, v := range d.conflicts {
		conflicts += v
	}
	fmt.Fprintf(w, "  409 conflicts per reservation: %.1f", conflicts/float64(n))
	for _, k := range slices.SortedFunc(maps.Keys(d.conflicts), func(a, b apiKey) int { return strings.Compare(a.String(), b.String()) }) {
		fmt.Fprintf(w, "; %s %.1f", k, d.conflicts[k]/float64(n))
	}
	fmt.Fprintln(w)
	per := func(k string) float64 { return (c.indi[k] - before.indi[k]) / float64(n) }
	fmt.Fprintf(w, "  INDI per reservation (workers): %.1f connections, %.1f writes, %.0f messages received\n",
		per("connections"), per("writes"), per("messages_received"))
}

// setEnd sets the end of the run's reservations r0, r1, ...
func (b *bench) setEnd(ctx context.Context, ns string, n int, end time.Time) error {
	res := b.dyn.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
	patch := []byte(`{"spec":{"end":"` + end.UTC().Format(time.RFC3339) + `"}}`)
	for i := range n {
		if _, err := res.Patch(ctx, "r"+strconv.Itoa(i), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "bench"}); err != nil {
			return fmt.Errorf("set the end of r%d: %w", i, err)
		}
	}
	return nil
}

// reservationCost prints where the steps spent their time (each step's activity, scheduled to
// closed, from the reservation workflows' histories) and Temporal's events and actions per
// reservation (its own workflow, its telescope's, and its share of the observatory's), and
// the paths to Ready of the reservation at the p50 and of the first to its Activation.
func (b *bench) reservationCost(ctx context.Context, ns string, n int, p *progress) error {
	c, err := client.DialContext(ctx, client.Options{HostPort: b.s.TemporalAddress, Logger: quiet{}})
	if err != nil {
		return err
	}
	defer c.Close()
	sp := b.newSplit()
	steps := map[string][]time.Duration{}
	var events, actions int
	paths := map[string][]span{}
	for i := range n {
		id := contract.ReservationID(ns, "r"+strconv.Itoa(i))
		scheduled := map[int64]time.Time{}
		names := map[int64]string{}
		name := "r" + strconv.Itoa(i)
		at := map[int64]int{} // a scheduled activity's place in its path
		it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				return fmt.Errorf("history of %s: %w", id, err)
			}
			sp.add(e)
			if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
				scheduled[e.GetEventId()] = e.GetEventTime().AsTime()
				names[e.GetEventId()] = a.GetActivityType().GetName()
				at[e.GetEventId()] = len(paths[name])
				paths[name] = append(paths[name], span{name: names[e.GetEventId()], scheduled: scheduled[e.GetEventId()]})
			}
			if a := e.GetActivityTaskCompletedEventAttributes(); a != nil {
				id := a.GetScheduledEventId()
				steps[names[id]] = append(steps[names[id]], e.GetEventTime().AsTime().Sub(scheduled[id]))
				paths[name][at[id]].close = e.GetEventTime().AsTime()
			}
		}
		// The reservation's own history is in sp already.
		e, a, err := historyCost(ctx, c, id, "", nil)
		if err != nil {
			return err
		}
		events, actions = events+e, actions+a
		if e, a, err = historyCost(ctx, c, contract.TelescopeLockID(ns, "t"+strconv.Itoa(i)), "", sp); err != nil {
			return err
		}
		events, actions = events+e, actions+a
	}
	for _, id := range []string{contract.SiteTurnsID(ns, "site"), contract.InventoryID(ns)} {
		e, a, err := historyCost(ctx, c, id, "", sp)
		if err != nil {
			return err
		}
		events, actions = events+e, actions+a
	}
	var tasks int
	for _, t := range sp.tasks {
		tasks += t
	}
	fmt.Printf("  Temporal per reservation: %.0f history events, %.0f actions, %.1f workflow tasks (its workflow, its telescope's, its share of the site's and the namespace inventory's last run)\n",
		float64(events)/float64(n), float64(actions)/float64(n), float64(tasks)/float64(n))
	sp.print(os.Stdout, "  ")

	names := make([]string, 0, len(steps))
	for name := range steps {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { return percentile(steps[names[i]], 0.5) > percentile(steps[names[j]], 0.5) })
	fmt.Printf("  activities, p50 / max from scheduled to completed:")
	for i, name := range names {
		if i%3 == 0 {
			fmt.Printf("\n   ")
		}
		fmt.Printf(" %s %s / %s;", name, percentile(steps[name], 0.5).Round(time.Millisecond), slices.Max(steps[name]).Round(time.Millisecond))
	}
	fmt.Println()
	median := medianReady(p.ready)
	printPath(os.Stdout, "p50 of Ready", median, p.start, p.ready[median], paths[median])
	if first := firstTo(paths, "Activation"); n > 1 && first != "" {
		printPath(os.Stdout, "first to Activation", first, p.start, p.ready[first], paths[first])
	}
	return nil
}

// whyFailed says at which step a reservation failed and what its Ready condition says.
func whyFailed(u unstructured.Unstructured) string {
	step, _, _ := unstructured.NestedString(u.Object, "status", "step")
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			return fmt.Sprintf("at its step %s: %v", step, m["message"])
		}
	}
	return "at its step " + step
}
