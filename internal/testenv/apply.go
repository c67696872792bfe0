package testenv

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// ApplyObservatory creates the observatory objects of a YAML file (relative to the
// repository root, such as examples/observatory.yaml) in ns, whatever namespace the file
// names, but none of the kinds except, and removes them, finalizers and all, when the test
// ends. It returns their UIDs by Kind/name.
func (e *Env) ApplyObservatory(t testing.TB, file, ns string, except ...obsv1.Kind) map[string]types.UID {
	t.Helper()
	f, err := os.Open(filepath.Join(e.Root, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	uids := map[string]types.UID{}
	for {
		var u unstructured.Unstructured
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return uids
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if u.Object == nil || u.GetKind() == "Namespace" || slices.Contains(except, obsv1.Kind(u.GetKind())) {
			continue
		}
		u.SetNamespace(ns)
		res := e.Dynamic.Resource(obsv1.Kind(u.GetKind()).GroupVersionResource()).Namespace(ns)
		out, err := res.Create(context.Background(), &u, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		uids[u.GetKind()+"/"+u.GetName()] = out.GetUID()
		name := u.GetName()
		t.Cleanup(func() {
			ctx := context.Background()
			_, _ = res.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			_ = res.Delete(ctx, name, metav1.DeleteOptions{})
		})
	}
}
