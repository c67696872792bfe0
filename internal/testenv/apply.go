package testenv

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// ApplyObservatory creates every observatory object of a YAML file (relative to the
// repository root, such as examples/observatory.yaml) in ns, whatever namespace the file
// names, and removes them, finalizers and all, when the test ends.
func (e *Env) ApplyObservatory(t testing.TB, file, ns string) {
	t.Helper()
	f, err := os.Open(filepath.Join(e.Root, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var u unstructured.Unstructured
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if u.Object == nil || u.GetKind() == "Namespace" {
			continue
		}
		u.SetNamespace(ns)
		res := e.Dynamic.Resource(obsv1.Kind(u.GetKind()).GroupVersionResource()).Namespace(ns)
		if _, err := res.Create(context.Background(), &u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		name := u.GetName()
		t.Cleanup(func() {
			ctx := context.Background()
			_, _ = res.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			_ = res.Delete(ctx, name, metav1.DeleteOptions{})
		})
	}
}
