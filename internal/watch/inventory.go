// This file is the inventory's part of the observatory side: every change that may change
// what a status says becomes a signal to the namespace's inventory workflow
// (inventory/<namespace>, workflows/inventory.go), keyed by namespace, so a burst of changes
// in one namespace is one signal, and one pass. What counts: an observatory resource created
// or deleted, its spec changed (its generation), its delete begun, its finalizers changed (a
// device a reservation runs holds one), or what other statuses show of it changed (its
// summary: phase, a Guider's state, the status and reason of its conditions); and one of the
// runner's pods created, deleted or placed on a node; and, every few minutes, each
// Observatory, whose status shows the sky (kube/sky.go). A status update that changes nothing
// of that (readings, properties, procedure records, messages) is ignored, and so are the
// inventory's own writes once they change nothing more: a pass that converges writes nothing.
package watch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// whyStatus: what another status shows of a resource changed.
const whyStatus = "status"

// inventoryWorkers is how many inventory signals are in flight at once: a namespace has one at
// a time, and namespaces are few.
const inventoryWorkers = 4

// inventoryHandler queues a look at the namespace of what changed, for the informer of kind.
func (r *observatoryRun) inventoryHandler(kind string) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			why := whyAdded
			if initial {
				why = whyResync
			}
			r.inventory(obj, kind, why)
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, n, ok := updatedObjects[*unstructured.Unstructured](oldObj, newObj)
			if !ok {
				return
			}
			if why := inventoryUpdate(kind, o, n); why != "" {
				r.inventory(n, kind, why)
			}
		},
		DeleteFunc: func(obj any) {
			if u, ok := deletedObject[*unstructured.Unstructured](obj); ok {
				r.inventory(u, kind, whyDeleted)
			}
		},
	}
}

// whySky: the time moved the sky over an Observatory, which its status shows.
const whySky = "sky"

// skyMoves tells each Observatory's inventory that the sky moved, just after each SkyEvery
// begins, until ctx ends: no informer sees the time pass.
func (r *observatoryRun) skyMoves(ctx context.Context) {
	every := r.cfg.SkyEvery
	for {
		now := time.Now()
		select {
		case <-ctx.Done():
			return
		case <-time.After(now.Truncate(every).Add(every).Sub(now) + time.Second):
		}
		for _, obj := range r.observatories.GetStore().List() {
			r.inventory(obj, string(obsv1.KindObservatory), whySky)
		}
	}
}

// inventory queues a look at the namespace of obj, saying what changed and why.
func (r *observatoryRun) inventory(obj any, kind, why string) {
	if u, ok := obj.(*unstructured.Unstructured); ok && u.GetNamespace() != "" {
		r.inv.add(u.GetNamespace(), kind+"/"+u.GetName()+" "+why)
	}
}

// inventoryUpdate says why an update matters to the inventory, or "". A resync (the same
// object again) is a look too: it is the safety net under the events.
func inventoryUpdate(kind string, o, n *unstructured.Unstructured) string {
	switch {
	case o.GetResourceVersion() == n.GetResourceVersion():
		return whyResync
	case o.GetUID() != n.GetUID(), o.GetGeneration() != n.GetGeneration(),
		(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil),
		strings.Join(o.GetFinalizers(), ",") != strings.Join(n.GetFinalizers(), ","):
		return whyUpdated
	case kind == "pod":
		if node(o) != node(n) {
			return whyUpdated
		}
	case summary(o) != summary(n):
		return whyStatus
	}
	return ""
}

func node(pod *unstructured.Unstructured) string {
	s, _, _ := unstructured.NestedString(pod.Object, "spec", "nodeName")
	return s
}

// summary is what other statuses show of a resource: its phase, a Guider's state, and the
// status and reason of each condition.
func summary(u *unstructured.Unstructured) string {
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	state, _, _ := unstructured.NestedString(u.Object, "status", "state")
	b := strings.Builder{}
	b.WriteString(phase + "/" + state)
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		fmt.Fprintf(&b, ";%v=%v/%v", m["type"], m["status"], m["reason"])
	}
	return b.String()
}

// trimToSummary keeps what the observatory side reads of a resource: its metadata (no managed
// fields), its spec, and the summary of its status. It keeps the INDI properties and readings
// the worker writes out of memory.
func trimToSummary(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	u.SetManagedFields(nil)
	st, _ := u.Object["status"].(map[string]any)
	if st == nil {
		return obj, nil
	}
	kept := map[string]any{}
	for _, f := range []string{"phase", "state"} {
		if v, ok := st[f]; ok {
			kept[f] = v
		}
	}
	if conds, ok := st["conditions"].([]any); ok {
		var short []any
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok {
				short = append(short, map[string]any{"type": m["type"], "status": m["status"], "reason": m["reason"]})
			}
		}
		kept["conditions"] = short
	}
	u.Object["status"] = kept
	return obj, nil
}

// trimPodToPlace keeps a pod's metadata and the node it is on.
func trimPodToPlace(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	n := node(u)
	if _, err := trimToMetadata(obj); err != nil {
		return obj, err
	}
	if n != "" {
		u.Object["spec"] = map[string]any{"nodeName": n}
	}
	return obj, nil
}

// signalInventory sends one namespace's inventory its signal, starting it when it does not
// run. why is "Kind/name word", as inventory queued it.
func (r *observatoryRun) signalInventory(call context.Context, ns, why string) error {
	object, word, _ := strings.Cut(why, " ")
	_, err := r.cfg.Temporal.SignalWithStartWorkflow(call, contract.InventoryID(ns), contract.InventoryChanged,
		[]contract.InventoryChange{{Object: object, Why: word}},
		contract.InventoryStartOptions(r.cfg.TaskQueue, ns), contract.InventoryWorkflow, contract.InventoryInput{Namespace: ns})
	if err == nil {
		r.cfg.Log.Debug("signalled a namespace's inventory", "namespace", ns, "object", object, "why", word)
	}
	return err
}

// inventoryKinds are the kinds the inventory reads that the reservations' side does not watch.
var inventoryKinds = []obsv1.Kind{obsv1.KindOpticalTube, obsv1.KindOpticalTrain, obsv1.KindGuider}
