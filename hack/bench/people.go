// The three people workloads. Each starts from no Person at all, creates its Persons the same
// way, and times the same thing: from the create call's return to the moment a watch sees the
// Person's status.thumbnail filled.
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/client-go/util/workqueue"

	people "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures"
	"liken.sh/runner/pictures/avatar"
)

func person(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(people.SchemeGroupVersion.String())
	u.SetKind("Person")
	u.SetName(name)
	unstructured.SetNestedField(u.Object, "Bench Person "+name, "spec", "displayName")
	return u
}

// tracker watches every Person and records when each first shows a thumbnail, and how many
// times each was written. Its watch resumes where it was if the API server ends it (as it ends
// a watcher that falls behind on a busy machine), so it misses no write.
type tracker struct {
	mu      sync.Mutex
	created map[string]time.Time
	done    map[string]time.Time
	writes  map[string]int
	changed chan struct{}
}

func (b *bench) track(ctx context.Context) (*tracker, func(), error) {
	t := &tracker{created: map[string]time.Time{}, done: map[string]time.Time{}, writes: map[string]int{}, changed: make(chan struct{}, 1)}
	persons := b.dyn.Resource(people.PersonResource)
	l, err := persons.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, nil, err
	}
	w, err := watchtools.NewRetryWatcherWithContext(ctx, l.GetResourceVersion(), &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return persons.Watch(ctx, o) },
	})
	if err != nil {
		return nil, nil, err
	}
	go func() {
		for ev := range w.ResultChan() {
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			if ev.Type == watch.Modified {
				t.mu.Lock()
				t.writes[u.GetName()]++
				t.mu.Unlock()
			}
			thumb, _, _ := unstructured.NestedString(u.Object, "status", "thumbnail")
			if thumb == "" {
				continue
			}
			now := time.Now()
			t.mu.Lock()
			if _, seen := t.done[u.GetName()]; !seen {
				t.done[u.GetName()] = now
			}
			t.mu.Unlock()
			select {
			case t.changed <- struct{}{}:
			default:
			}
		}
		// Ended: stopped, or its resource version is gone. wait says so rather than waiting.
		close(t.changed)
	}()
	return t, w.Stop, nil
}

func (t *tracker) markCreated(name string) {
	t.mu.Lock()
	t.created[name] = time.Now()
	t.mu.Unlock()
}

// wait returns the per-Person latencies once every name has its thumbnail.
func (t *tracker) wait(ctx context.Context, limit time.Duration, names []string) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		t.mu.Lock()
		var lat []time.Duration
		for _, n := range names {
			if d, ok := t.done[n]; ok {
				lat = append(lat, d.Sub(t.created[n]))
			}
		}
		t.mu.Unlock()
		if len(lat) == len(names) {
			return lat, nil
		}
		select {
		case _, open := <-t.changed:
			if !open {
				return nil, fmt.Errorf("the watch of Persons ended (%d of %d had a thumbnail); see the API server's log", len(lat), len(names))
			}
		case <-time.After(time.Second):
		case <-ctx.Done():
			return nil, fmt.Errorf("%d of %d Persons got a thumbnail before the deadline", len(lat), len(names))
		}
	}
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%04d", prefix, i)
	}
	return out
}

// create makes the Persons with 16 parallel clients, as a `kubectl apply` of many would.
func (b *bench) create(ctx context.Context, t *tracker, ns []string) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(ns))
	next := atomic.Int64{}
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(ns); i = int(next.Add(1) - 1) {
				if _, err := b.dyn.Resource(people.PersonResource).Create(ctx, person(ns[i]), metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
				if t != nil {
					t.markCreated(ns[i])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func (b *bench) deleteAll(ctx context.Context) error {
	if err := b.dyn.Resource(people.PersonResource).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	for {
		l, err := b.dyn.Resource(people.PersonResource).List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return err
		}
		if len(l.Items) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// latencyRun creates `singles` Persons one at a time, then a burst, and records both.
func (b *bench) latencyRun(ctx context.Context, prefix string, r *row) error {
	t, stop, err := b.track(ctx)
	if err != nil {
		return err
	}
	defer stop()
	var before map[string]map[string]float64
	if _, ours := b.health["watcher"]; ours {
		if before, err = b.processMetrics(ctx); err != nil {
			return err
		}
	}
	for _, n := range names(prefix+"-one", b.singles) {
		if err := b.create(ctx, t, []string{n}); err != nil {
			return err
		}
		lat, err := t.wait(ctx, time.Minute, []string{n})
		if err != nil {
			return err
		}
		r.single = append(r.single, lat...)
	}
	if before != nil {
		after, err := b.processMetrics(ctx)
		if err != nil {
			return err
		}
		r.breakdown = breakdownOf(before, after, b.singles)
	}
	// The burst runs burstRounds times, each on new Persons; the row shows the median round.
	type round struct {
		names []string
		total time.Duration
		lat   []time.Duration
		cpu   map[string]float64
		start time.Time
	}
	var rounds []round
	for k := range burstRounds {
		burst := names(prefix+"-burst", b.burst)
		if k > 0 {
			burst = names(fmt.Sprintf("%s-burst%d", prefix, k+1), b.burst)
		}
		cpu0 := b.cpu()
		start := time.Now()
		if err := b.create(ctx, t, burst); err != nil {
			return err
		}
		lat, err := t.wait(ctx, 10*time.Minute, burst)
		if err != nil {
			return err
		}
		rd := round{names: burst, total: time.Since(start), lat: lat, cpu: map[string]float64{}, start: start}
		for name, sec := range b.cpu() {
			rd.cpu[name] = sec - cpu0[name]
		}
		rounds = append(rounds, rd)
		r.rounds = append(r.rounds, rd.total)
	}
	med := slices.Clone(rounds)
	slices.SortFunc(med, func(a, b round) int { return int(a.total - b.total) })
	m := med[len(med)/2]
	r.burstTotal, r.burst, r.cpu = m.total, m.lat, m.cpu
	// What is counted per Person (writes, Events, histories) is the last round's.
	last := rounds[len(rounds)-1]
	r.burstStart, r.lastBurst = last.start, last.names
	r.writes = map[int]int{}
	t.mu.Lock()
	for _, n := range last.names {
		r.writes[t.writes[n]]++
	}
	t.mu.Unlock()
	return nil
}

// burstRounds is how many times the burst runs; the row shows the median round's figures.
const burstRounds = 3

// bareLimit is the API server alone: 8 workers PUT a 6 KB status on the burst's Persons, twice
// each, with no operator, no Event and no decoding.
func (b *bench) bareLimit(ctx context.Context) error {
	ns := names("bare", b.burst)
	if err := b.create(ctx, nil, ns); err != nil {
		return err
	}
	raw := make([]byte, 4500)
	rand.Read(raw)
	thumb := "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(raw) // ~6 KB
	var writes atomic.Int64
	next := atomic.Int64{}
	start := time.Now()
	var wg sync.WaitGroup
	var firstErr atomic.Value
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < 2*len(ns); i = int(next.Add(1) - 1) {
				name := ns[i%len(ns)]
				u, err := b.dyn.Resource(people.PersonResource).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				unstructured.SetNestedField(u.Object, thumb+strconv.Itoa(i), "status", "thumbnail")
				if _, err := b.dyn.Resource(people.PersonResource).UpdateStatus(ctx, u, metav1.UpdateOptions{}); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return err
	}
	b.out.bareWritesPerSec = float64(writes.Load()) / time.Since(start).Seconds()
	return b.deleteAll(ctx)
}

// plainReconciler is what one would write without Temporal: an informer, a workqueue, one
// worker, and for each Person one status PUT (initials) and one Event.
func (b *bench) plainReconciler(ctx context.Context) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := dynamicinformer.NewDynamicSharedInformerFactory(b.dyn, 0)
	inf := f.ForResource(people.PersonResource).Informer()
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { q.Add(o.(*unstructured.Unstructured).GetName()) },
		UpdateFunc: func(_, o any) { q.Add(o.(*unstructured.Unstructured).GetName()) },
	})
	f.Start(rctx.Done())
	f.WaitForCacheSync(rctx.Done())
	go func() { <-rctx.Done(); q.ShutDown() }()
	go func() {
		for {
			name, quit := q.Get()
			if quit {
				return
			}
			if err := b.reconcileOne(rctx, inf, name); err != nil && rctx.Err() == nil {
				q.AddRateLimited(name)
			} else {
				q.Forget(name)
			}
			q.Done(name)
		}
	}()
	r := &row{name: "plain reconciler"}
	if err := b.latencyRun(ctx, "plain", r); err != nil {
		return err
	}
	b.out.rows = append(b.out.rows, r)
	cancel()
	return b.deleteAll(ctx)
}

func (b *bench) reconcileOne(ctx context.Context, inf cache.SharedIndexInformer, name string) error {
	o, ok, err := inf.GetStore().GetByKey(name)
	if err != nil || !ok {
		return err
	}
	u := o.(*unstructured.Unstructured).DeepCopy()
	var p people.Person
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p); err != nil {
		return err
	}
	if p.Status.Thumbnail != "" {
		return nil
	}
	colour := avatar.Colour(p.Name)
	p.Status.Thumbnail = avatar.DataURI(pictures.DrawInitials(pictures.Initials(p.Spec.DisplayName, p.Spec.Nickname), colour))
	p.Status.Conditions = []people.Condition{{
		Type: people.ConditionAvatarReady, Status: metav1.ConditionTrue, Reason: avatar.ReasonInitials,
		ObservedGeneration: p.Generation, LastTransitionTime: metav1.Now(),
	}}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&p)
	if err != nil {
		return err
	}
	if _, err := b.dyn.Resource(people.PersonResource).UpdateStatus(ctx, &unstructured.Unstructured{Object: obj}, metav1.UpdateOptions{}); err != nil {
		return err
	}
	now := metav1.Now()
	_, err = b.kube.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: p.Name + "."},
		InvolvedObject: corev1.ObjectReference{APIVersion: people.SchemeGroupVersion.String(), Kind: "Person", Name: p.Name, UID: p.UID},
		Reason:         avatar.ReasonInitials, Type: corev1.EventTypeNormal, Source: corev1.EventSource{Component: "plain-reconciler"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		err = nil
	}
	return err
}

// project runs the watcher and the setup's workers (one, as `make run` does, or more).
func (b *bench) project(ctx context.Context) error {
	if err := b.buildBinaries(ctx); err != nil {
		return err
	}
	if err := b.spawn(ctx, "watcher", "watcher"); err != nil {
		return err
	}
	if err := b.spawnWorkers(ctx); err != nil {
		return err
	}
	r := &row{name: "this project", setup: b.setup}
	if err := b.latencyRun(ctx, "ours", r); err != nil {
		return err
	}
	r.rss = map[string]int64{}
	for _, name := range append([]string{"watcher"}, b.workerNames()...) {
		r.rss[name] = peakRSS(b.s.Pid(name))
	}
	burst := r.lastBurst
	if err := b.temporalCost(ctx, r, burst, burstRounds*b.burst+b.singles); err != nil {
		return err
	}
	var err error
	if r.initialsOnce, r.initialsBy, err = b.initials(ctx, burst); err != nil {
		return err
	}
	b.out.rows = append(b.out.rows, r)
	return nil
}

// cpu reads the CPU seconds (user + system) each process of the stack has used so far, with
// the children in its process group; PostgreSQL's backends lead groups of their own (they call
// setsid), so they count as its children. The workers count as one.
func (b *bench) cpu() map[string]float64 {
	named := map[int]string{}
	for _, name := range append([]string{"etcd", "kube-apiserver", "temporal", "postgres", "watcher"}, b.workerNames()...) {
		if pid := b.s.Pid(name); pid != 0 {
			named[pid] = strings.TrimRight(strings.TrimRight(name, "0123456789"), "-")
		}
	}
	out := map[string]float64{}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		st, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the parenthesised command name: state, ppid, pgrp, ..., utime and stime (14, 15).
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+2:]))
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		name, ok := named[pgid]
		if !ok && named[ppid] == "postgres" {
			name, ok = "postgres", true
		}
		if !ok {
			continue
		}
		ut, _ := strconv.ParseFloat(f[11], 64)
		stime, _ := strconv.ParseFloat(f[12], 64)
		out[name] += (ut + stime) / 100 // clock ticks
	}
	return out
}

// peakRSS reads a process's peak resident set (VmHWM) in KiB.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	var kib int64
	for _, line := range strings.Split(string(b), "\n") {
		if n, _ := fmt.Sscanf(line, "VmHWM: %d kB", &kib); n == 1 {
			return kib
		}
	}
	return 0
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}
