package testenv

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// Kustomize runs kubectl kustomize on dir (relative to the repository root, or absolute) and
// returns the objects it renders.
func (e *Env) Kustomize(t testing.TB, ctx context.Context, dir string) []*unstructured.Unstructured {
	t.Helper()
	out, err := e.Kubectl(ctx, "kustomize", dir)
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, out)
	}
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(out), 4096)
	var objs []*unstructured.Unstructured
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return objs
		} else if err != nil {
			t.Fatal(err)
		}
		if len(u.Object) > 0 {
			objs = append(objs, &u)
		}
	}
}

// Find converts the object of kind and name in objs into into, or fails the test.
func Find(t testing.TB, objs []*unstructured.Unstructured, kind, name string, into any) {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
				t.Fatalf("%s %s: %v", kind, name, err)
			}
			return
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
}
