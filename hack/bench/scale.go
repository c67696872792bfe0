// Scale out: what each worker process did, and proof that two of them did nothing twice. The
// histories say which worker ran each workflow task and started each activity (its identity,
// pid@host); the API server says what users see: one Initials Event per Person, posted once
// (the Event's count) and by whom (reportingInstance, the worker's POD_NAME), how many writes
// each Person took, and each pod created once.
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	historypb "go.temporal.io/api/history/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"liken.sh/runner/pictures/avatar"
)

// split counts the work of each worker process from the histories.
type split struct {
	names      map[string]string // pid to the worker's process name
	tasks      map[string]int    // workflow tasks completed, by worker
	activities map[string]int    // activity attempts started, by worker
	again      int               // activity attempts after an activity's first
}

func (b *bench) newSplit() *split {
	sp := &split{names: map[string]string{}, tasks: map[string]int{}, activities: map[string]int{}}
	for _, name := range b.workerNames() {
		sp.names[strconv.Itoa(b.s.Pid(name))] = name
	}
	return sp
}

// add counts one history event; the SDK's identity of a worker is pid@host@.
func (sp *split) add(e *historypb.HistoryEvent) {
	if sp == nil {
		return
	}
	whose := func(identity string) string {
		pid, _, _ := strings.Cut(identity, "@")
		if name, ok := sp.names[pid]; ok {
			return name
		}
		return identity
	}
	if a := e.GetWorkflowTaskCompletedEventAttributes(); a != nil {
		sp.tasks[whose(a.GetIdentity())]++
	}
	if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
		sp.activities[whose(a.GetIdentity())]++
		if a.GetAttempt() > 1 {
			sp.again++
		}
	}
}

func (sp *split) print(w io.Writer, indent string) {
	fmt.Fprintf(w, "%sby worker (histories): workflow tasks %s; activities started %s; activity attempts after the first: %d\n",
		indent, byName(sp.tasks), byName(sp.activities), sp.again)
}

// byName prints counts by name, in the order of the names.
func byName(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// initials counts the Initials Events of the Persons named: how many have exactly one, posted
// once, and by which worker. A Person painted twice would show a count of 2, or two Events.
func (b *bench) initials(ctx context.Context, persons []string) (once int, by map[string]int, err error) {
	l, err := b.kube.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Person"})
	if err != nil {
		return 0, nil, err
	}
	of := map[string][]corev1.Event{}
	for _, e := range l.Items {
		if e.Reason == avatar.ReasonInitials {
			of[e.InvolvedObject.Name] = append(of[e.InvolvedObject.Name], e)
		}
	}
	by = map[string]int{}
	for _, p := range persons {
		if evs := of[p]; len(evs) == 1 && evs[0].Count == 1 {
			once++
			by[evs[0].ReportingInstance]++
		}
	}
	return once, by, nil
}

// podsCreated watches the pods of ns and counts how often each name was created.
func (b *bench) podsCreated(ctx context.Context, ns string) (counts func() map[string]int, stop func(), err error) {
	w, err := b.kube.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	n := map[string]int{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Added {
				mu.Lock()
				n[p.Name]++
				mu.Unlock()
			}
		}
	}()
	counts = func() map[string]int { mu.Lock(); defer mu.Unlock(); return maps.Clone(n) }
	return counts, func() { w.Stop(); <-done }, nil
}

// createdOnce says how many pods there were, and names those created more than once.
func createdOnce(counts map[string]int) string {
	var twice []string
	for name, n := range counts {
		if n > 1 {
			twice = append(twice, fmt.Sprintf("%s %d times", name, n))
		}
	}
	if len(twice) == 0 {
		return fmt.Sprintf("%d pods, each created once", len(counts))
	}
	slices.Sort(twice)
	return fmt.Sprintf("%d pods; created more than once: %s", len(counts), strings.Join(twice, ", "))
}

// perPerson prints how many Persons took how many writes.
func perPerson(writes map[int]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(writes)) {
		parts = append(parts, fmt.Sprintf("%d Persons %d", writes[k], k))
	}
	return strings.Join(parts, ", ")
}
