// Observatory objects for a test, from the project's YAML (a file such as
// examples/observatory.yaml, or a text written in the test), created in the test's own
// namespace and removed, finalizers and all, when the test ends, so that no test leaves an
// object that holds the next one's telescope.
package testenv

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

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
		uids[u.GetKind()+"/"+u.GetName()] = e.createObservatory(t, &u)
	}
}

// CreateObservatoryYAML creates the observatory objects of a YAML text (documents apart by
// "---"; apiVersion may be left out) in ns, and removes them, finalizers and all, when the
// test ends.
func (e *Env) CreateObservatoryYAML(t testing.TB, ns, text string) {
	t.Helper()
	for _, doc := range strings.Split(text, "\n---\n") {
		var u unstructured.Unstructured
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		u.SetNamespace(ns)
		if u.GetAPIVersion() == "" {
			u.SetAPIVersion(obsv1.SchemeGroupVersion.String())
		}
		e.createObservatory(t, &u)
	}
}

// createObservatory creates u in its namespace and lets it go when the test ends.
func (e *Env) createObservatory(t testing.TB, u *unstructured.Unstructured) types.UID {
	t.Helper()
	res := e.Dynamic.Resource(obsv1.Kind(u.GetKind()).GroupVersionResource()).Namespace(u.GetNamespace())
	out, err := res.Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	name := u.GetName()
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = res.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		_ = res.Delete(ctx, name, metav1.DeleteOptions{})
	})
	return out.GetUID()
}
