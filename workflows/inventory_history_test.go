// Recording the inventory's history (see replay_test.go): a small site appears, its Mount goes
// to the shelf, and everything is deleted.
package workflows

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// recordInventory records a namespace's inventory (see recordings): a small site appears, its
// Mount goes to the shelf, and everything is deleted, each change signalled as the watcher
// signals it.
func recordInventory(ctx context.Context, r recorder) (client.WorkflowRun, error) {
	const ns = "inventory"
	if _, err := r.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(ctx,
		&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": ns}}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	res := func(k obsv1.Kind) dynamic.ResourceInterface {
		return r.dyn.Resource(k.GroupVersionResource()).Namespace(ns)
	}
	objects := []struct {
		kind obsv1.Kind
		name string
		spec map[string]any
	}{
		{obsv1.KindObservatory, "lab", map[string]any{"location": map[string]any{"latitude": 52.2, "longitude": 0.1}}},
		{obsv1.KindTelescope, "east", map[string]any{"observatory": "lab"}},
		{obsv1.KindMount, "east", map[string]any{"telescope": "east", "driver": map[string]any{"name": "indi_simulator_telescope"}}},
	}
	id := contract.InventoryID(ns)
	var run client.WorkflowRun
	signal := func(kind obsv1.Kind, name, why string) error {
		var err error
		changes := []contract.InventoryChange{{Object: string(kind) + "/" + name, Why: why}}
		if run == nil {
			run, err = r.c.SignalWithStartWorkflow(ctx, id, contract.InventoryChanged, changes,
				contract.InventoryStartOptions(r.queue, ns), contract.InventoryWorkflow, contract.InventoryInput{Namespace: ns})
			return err
		}
		return r.c.SignalWorkflow(ctx, id, "", contract.InventoryChanged, changes)
	}
	phase := func(kind obsv1.Kind, name, want string) error {
		_, err := poll(ctx, func() (string, bool) {
			u, err := res(kind).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return "", false
			}
			p, _, _ := unstructured.NestedString(u.Object, "status", "phase")
			return p, p == want
		})
		if err != nil {
			return fmt.Errorf("%s %s did not become %s: %w", kind, name, want, err)
		}
		return nil
	}
	for _, o := range objects {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": string(o.kind),
			"metadata": map[string]any{"name": o.name, "namespace": ns}, "spec": o.spec,
		}}
		if _, err := res(o.kind).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		if err := signal(o.kind, o.name, "added"); err != nil {
			return nil, err
		}
	}
	if err := phase(obsv1.KindMount, "east", string(obsv1.DeviceIdle)); err != nil {
		return nil, err
	}
	if _, err := res(obsv1.KindMount).Patch(ctx, "east", types.MergePatchType, []byte(`{"spec":{"telescope":null}}`), metav1.PatchOptions{}); err != nil {
		return nil, err
	}
	if err := signal(obsv1.KindMount, "east", "updated"); err != nil {
		return nil, err
	}
	if err := phase(obsv1.KindMount, "east", string(obsv1.DeviceInventory)); err != nil {
		return nil, err
	}
	for _, o := range objects {
		if err := res(o.kind).Delete(ctx, o.name, metav1.DeleteOptions{}); err != nil {
			return nil, err
		}
		if err := signal(o.kind, o.name, "deleted"); err != nil {
			return nil, err
		}
	}
	return run, nil
}
