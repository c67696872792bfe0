// One pass of a namespace's inventory (workflows/inventory.go runs one per batch of the
// watcher's signals): it reads every observatory resource of the namespace and the runner's
// pods there from the API server, composes each status with kube's inventory (kube/inventory.go
// says which fields are the inventory's), and writes only the statuses that changed, with one
// Event per condition transition. Each write starts from the object as the list returned it
// and carries its resourceVersion; one that conflicts reads the object again and composes it
// again, so the fields the reservations write meanwhile are kept as they wrote them.
package observatory

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// InventoryInput is one pass: the namespace, and what the watcher saw (for the history; the
// pass reads everything anyway).
type InventoryInput struct {
	Namespace string
	Changes   []string `json:",omitempty"`
}

// InventoryResult says what a pass found and did.
type InventoryResult struct {
	// Objects counts the observatory resources read.
	Objects int
	// Written names (Kind/name) the resources whose status changed.
	Written []string `json:",omitempty"`
	Events  int      `json:",omitempty"`
	// Empty: the namespace holds no observatory resource.
	Empty bool `json:",omitempty"`
}

// TakeInventory is one pass over a namespace.
func (a *Activities) TakeInventory(ctx context.Context, in InventoryInput) (InventoryResult, error) {
	var out InventoryResult
	ns, objs, err := a.readNamespace(ctx, in.Namespace)
	if err != nil {
		return out, err
	}
	out.Objects, out.Empty = len(objs), ns.Empty()
	inv := kube.NewInventory(ns)
	now := a.now()
	p := &inventoryPass{a: a, inv: inv, objs: objs, out: &out}
	for _, d := range ns.Devices {
		p.device(ctx, d, now)
	}
	for _, g := range ns.Guiders {
		p.write(ctx, obsv1.KindGuider, g.Name, func(u *unstructured.Unstructured) error {
			return inventoryWrite(ctx, p, obsv1.KindGuider, u, func(st obsv1.GuiderStatus, m metav1.Object) (obsv1.GuiderStatus, []string) {
				g.Status, g.Generation = st, m.GetGeneration()
				return inv.GuiderStatus(g, now), kube.GuiderConditionTypes(g)
			})
		})
	}
	for _, t := range ns.Tubes {
		p.write(ctx, obsv1.KindOpticalTube, t.Name, func(u *unstructured.Unstructured) error {
			return inventoryWrite(ctx, p, obsv1.KindOpticalTube, u, func(st obsv1.StatusBase, m metav1.Object) (obsv1.StatusBase, []string) {
				t.Status, t.Generation = st, m.GetGeneration()
				return inv.TubeStatus(t, now), []string{obsv1.ConditionParentFound}
			})
		})
	}
	for _, t := range ns.Trains {
		p.write(ctx, obsv1.KindOpticalTrain, t.Name, func(u *unstructured.Unstructured) error {
			return inventoryWrite(ctx, p, obsv1.KindOpticalTrain, u, func(st obsv1.StatusBase, m metav1.Object) (obsv1.StatusBase, []string) {
				t.Status, t.Generation = st, m.GetGeneration()
				return inv.TrainStatus(t, now), []string{obsv1.ConditionParentFound}
			})
		})
	}
	for _, t := range ns.Telescopes {
		p.write(ctx, obsv1.KindTelescope, t.Name, func(u *unstructured.Unstructured) error {
			return inventoryWrite(ctx, p, obsv1.KindTelescope, u, func(st obsv1.TelescopeStatus, m metav1.Object) (obsv1.TelescopeStatus, []string) {
				t.Status, t.Generation = st, m.GetGeneration()
				return inv.TelescopeStatus(t, now), []string{obsv1.ConditionParentFound, obsv1.ConditionReady}
			})
		})
	}
	for _, o := range ns.Observatories {
		p.write(ctx, obsv1.KindObservatory, o.Name, func(u *unstructured.Unstructured) error {
			return inventoryWrite(ctx, p, obsv1.KindObservatory, u, func(st obsv1.ObservatoryStatus, m metav1.Object) (obsv1.ObservatoryStatus, []string) {
				o.Status, o.Generation = st, m.GetGeneration()
				return inv.ObservatoryStatus(o, now), kube.SkyConditionTypes
			})
		})
	}
	if len(out.Written) > 0 {
		logFor(ctx).Info("the inventory wrote statuses", "namespace", in.Namespace, "written", out.Written, "events", out.Events)
	}
	return out, errors.Join(p.errs...)
}

// inventoryPass is one pass's writes: a failed one is logged and the pass goes on, and then
// fails at its end, so that Temporal runs it again (writing only what is still to write).
type inventoryPass struct {
	a    *Activities
	inv  *kube.Inventory
	objs map[string]*unstructured.Unstructured // by Kind/name, as listed
	out  *InventoryResult
	errs []error
}

func (p *inventoryPass) write(ctx context.Context, kind obsv1.Kind, name string, write func(*unstructured.Unstructured) error) {
	stepHeartbeat(ctx, "the status of "+string(kind)+" "+name)
	if err := write(p.objs[string(kind)+"/"+name]); err != nil {
		logFor(ctx).Warn("the inventory could not write a status; the pass will run again", "kind", kind, "name", name, "err", err)
		p.errs = append(p.errs, err)
	}
}

func (p *inventoryPass) device(ctx context.Context, d kube.Device, now time.Time) {
	p.write(ctx, d.Kind, d.Name, func(u *unstructured.Unstructured) error {
		return inventoryWrite(ctx, p, d.Kind, u, func(st obsv1.DeviceStatus, m metav1.Object) (obsv1.DeviceStatus, []string) {
			d.Status, d.Generation, d.Finalizers = st, m.GetGeneration(), m.GetFinalizers()
			return p.inv.DeviceStatus(d, now), kube.DeviceConditionTypes(d)
		})
	})
}

// inventoryWrite writes one object's status as compose makes it from the object as read, and
// posts the Events of the conditions compose says are the inventory's.
func inventoryWrite[T any](ctx context.Context, p *inventoryPass, kind obsv1.Kind, u *unstructured.Unstructured,
	compose func(T, metav1.Object) (T, []string)) error {
	var types []string
	w, err := writeStatus(ctx, p.a, kube.ResourceIDOf(kind, u), u, func(st T, m metav1.Object) T {
		var next T
		next, types = compose(st, m)
		return next
	})
	if err != nil || !w.wrote {
		return err
	}
	p.out.Written = append(p.out.Written, string(kind)+"/"+u.GetName())
	for _, e := range kube.ConditionEvents(conditionsOf(w.before), conditionsOf(w.after), types...) {
		p.a.postObsEvent(ctx, w.id, e)
		p.out.Events++
	}
	return nil
}

// conditionsOf are the conditions of any of the statuses the inventory writes.
func conditionsOf(st any) []obsv1.Condition {
	switch s := st.(type) {
	case obsv1.DeviceStatus:
		return s.Conditions
	case obsv1.TelescopeStatus:
		return s.Conditions
	case obsv1.ObservatoryStatus:
		return s.Conditions
	case obsv1.GuiderStatus:
		return s.Conditions
	case obsv1.StatusBase:
		return s.Conditions
	}
	return nil
}

// readNamespace reads every observatory resource of ns, typed for the inventory and as listed
// (by Kind/name), and the runner's pods there.
func (a *Activities) readNamespace(ctx context.Context, ns string) (*kube.Namespace, map[string]*unstructured.Unstructured, error) {
	n := &kube.Namespace{Name: ns}
	objs := map[string]*unstructured.Unstructured{}
	for _, kind := range obsv1.Kinds {
		list, err := a.resource(kind, ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("list the %s objects in %s: %w", kind, ns, err)
		}
		for i := range list.Items {
			u := &list.Items[i]
			obj, err := stepScheme.New(kind.GroupVersionKind())
			if err != nil {
				return nil, nil, err
			}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
				logFor(ctx).Warn("an object does not fit its Go type; the inventory passes it over", "kind", kind,
					"namespace", ns, "name", u.GetName(), "err", err)
				continue
			}
			objs[string(kind)+"/"+u.GetName()] = u
			addToNamespace(n, obj, u)
		}
	}
	pods, err := a.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=" + kube.ObservatoryComponent})
	if err != nil {
		return nil, nil, fmt.Errorf("list the pods of %s: %w", ns, err)
	}
	n.Pods = pods.Items
	return n, objs, nil
}

// addToNamespace puts a typed observatory object (u as listed) in its place.
func addToNamespace(n *kube.Namespace, obj runtime.Object, u *unstructured.Unstructured) {
	switch o := obj.(type) {
	case *obsv1.Observatory:
		n.Observatories = append(n.Observatories, *o)
	case *obsv1.Telescope:
		n.Telescopes = append(n.Telescopes, *o)
	case *obsv1.OpticalTube:
		n.Tubes = append(n.Tubes, *o)
	case *obsv1.OpticalTrain:
		n.Trains = append(n.Trains, *o)
	case *obsv1.Guider:
		n.Guiders = append(n.Guiders, *o)
	case *obsv1.Reservation:
		n.Reservations = append(n.Reservations, *o)
	default:
		ref, err := kube.DeviceRefOf(obj)
		if err != nil {
			return
		}
		var st obsv1.DeviceStatus
		if m, ok := u.Object["status"].(map[string]any); ok {
			_ = runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st) // it fit its Go type whole
		}
		n.Devices = append(n.Devices, kube.Device{DeviceRef: ref, Generation: u.GetGeneration(),
			Finalizers: u.GetFinalizers(), Deleting: u.GetDeletionTimestamp() != nil, Status: st})
	}
}
