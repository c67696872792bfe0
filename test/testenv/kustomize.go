// The objects deploy/ renders to, for the tests that read the manifests (RBAC, images,
// Deployments) and prove what they say, rendered by the same kubectl the stack installs.
package testenv

import (
	"context"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/internal/localstack"
)

// Kustomize renders dir (relative to the repository root, or absolute) with the cache's
// kubectl and returns its objects.
func (e *Env) Kustomize(t testing.TB, ctx context.Context, dir string) []*unstructured.Unstructured {
	t.Helper()
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(e.Root, dir)
	}
	objs, err := localstack.Kustomize(ctx, localstack.Cache(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return objs
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
