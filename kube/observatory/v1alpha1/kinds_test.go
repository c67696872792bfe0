// The kind table in groupversion_info.go is written by hand beside the markers the CRDs are
// generated from; these tests keep the two in step, so the watcher and the RBAC never miss a
// kind or use a resource name the API server does not serve.
package v1alpha1

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

func TestTheKindTableMatchesTheGeneratedCRDs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "deploy", "crds", "observatory", GroupName+"_*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crds := map[Kind]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Names struct{ Kind, Plural string }
				Scope string
			}
		}
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if crd.Spec.Scope != "Namespaced" {
			t.Errorf("%s is %s, want Namespaced", crd.Spec.Names.Kind, crd.Spec.Scope)
		}
		crds[Kind(crd.Spec.Names.Kind)] = crd.Spec.Names.Plural
	}
	if len(crds) != len(Kinds) {
		t.Errorf("deploy/crds/observatory holds %d kinds, Kinds lists %d", len(crds), len(Kinds))
	}
	for _, k := range Kinds {
		if crds[k] != k.Resource() {
			t.Errorf("%s: the CRD's plural is %q, Resource() says %q", k, crds[k], k.Resource())
		}
	}
}

func TestExactlyTheKindsWithADeviceStatusAreDevices(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var devices []string
	for _, k := range Kinds {
		obj, err := scheme.New(k.GroupVersionKind())
		if err != nil {
			t.Fatalf("%s is not in the scheme: %v", k, err)
		}
		status := reflect.ValueOf(obj).Elem().FieldByName("Status").Type()
		if (status == reflect.TypeFor[DeviceStatus]()) != k.IsDevice() {
			t.Errorf("%s: status is %s, but IsDevice() = %v", k, status.Name(), k.IsDevice())
		}
		if k.IsDevice() {
			devices = append(devices, string(k))
		}
	}
	if len(devices) != 14 {
		sort.Strings(devices)
		t.Errorf("%d device kinds, want 14: %v", len(devices), devices)
	}
}
