// The promises the CRDs make, checked against a real kube-apiserver: every example object is
// accepted, and kubectl shows the columns, categories and field selectors the docs describe
// (what the schemas refuse is in crds_validation_test.go). The schema is generated from kube/,
// so these tests are what proves the markers there mean what their comments say.
package deploy_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"

	observatory "liken.sh/runner/kube/observatory/v1alpha1"
	people "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, testenv.Options{Kube: true, CRDs: true}, &env) }

// examplesNamespace is where examples/ puts the observatory.
const examplesNamespace = "observatory"

// testNamespace holds the objects the validation cases create, apart from the examples.
const testNamespace = "crd-validation"

func TestEveryExampleIsAccepted(t *testing.T) {
	ctx := timeout(t)
	applyExamples(t, ctx)
	for _, obj := range exampleObjects(t) {
		if obj.GetKind() == "Namespace" {
			continue
		}
		if _, err := resource(t, obj).Get(ctx, obj.GetName(), metav1.GetOptions{}); err != nil {
			t.Errorf("%s %s from examples/ is not on the server: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}

func TestKubectlGetAstroListsEveryObservatoryExample(t *testing.T) {
	ctx := timeout(t)
	applyExamples(t, ctx)
	out, err := env.Kubectl(ctx, "get", "astro", "-A")
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range exampleObjects(t) {
		if obj.GroupVersionKind().Group != observatory.GroupName {
			continue
		}
		want := strings.ToLower(obj.GetKind()) + "." + observatory.GroupName + "/" + obj.GetName()
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get astro does not list %s:\n%s", want, out)
		}
	}
}

func TestKubectlGetPeopleShowsThePictureColumn(t *testing.T) {
	ctx := timeout(t)
	applyExamples(t, ctx)
	out, err := env.Kubectl(ctx, "get", "people")
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(out, "\n")
	for _, col := range []string{"NAME", "DISPLAY NAME", "NICKNAME", "UID", "PICTURE", "AGE"} {
		if !strings.Contains(header, col) {
			t.Errorf("kubectl get people has no %s column:\n%s", col, out)
		}
	}
	if strings.Contains(header, "MESSAGE") {
		t.Errorf("kubectl get people shows MESSAGE, which belongs to -o wide:\n%s", out)
	}
	if !strings.Contains(out, "Ada Lovelace") {
		t.Errorf("kubectl get people does not show ada's display name:\n%s", out)
	}
	wide, err := env.Kubectl(ctx, "get", "people", "-o", "wide")
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(wide, "\n"); !strings.Contains(header, "MESSAGE") {
		t.Errorf("kubectl get people -o wide has no MESSAGE column:\n%s", wide)
	}
}

func TestKubectlShowsEachKindsColumnsInOrder(t *testing.T) {
	ctx := timeout(t)
	applyExamples(t, ctx)
	for _, c := range []struct {
		resource string
		columns  string
	}{
		{"observatories", "NAME PHASE WEATHER SKY SUN MOON DUSK DAWN AGE LATITUDE LONGITUDE TELESCOPES RESERVATIONS SERVER"},
		{"telescopes", "NAME OBSERVATORY PHASE RESERVATION HOLDER HOST PORT AGE GUIDER NODE MESSAGE"},
		{"reservations", "NAME TELESCOPE HOLDER START END CONFIRMED PHASE STEP MESSAGE AGE BOOKING NIGHT HOST PORT"},
		{"domes", "NAME OBSERVATORY PHASE AZIMUTH SHUTTER PARK AGE DRIVER DEVICE NODE MESSAGE"},
		{"mounts", "NAME TELESCOPE PHASE RA DEC STATE AGE DRIVER DEVICE NODE MESSAGE"},
		{"cameras", "NAME TRAIN PHASE TEMPERATURE COOLER EXPOSURE AGE DRIVER DEVICE NODE MESSAGE"},
	} {
		out, err := env.Kubectl(ctx, "get", c.resource, "-n", examplesNamespace, "-o", "wide")
		if err != nil {
			t.Fatal(err)
		}
		header, _, _ := strings.Cut(out, "\n")
		if got := strings.Join(strings.Fields(header), " "); got != c.columns {
			t.Errorf("kubectl get %s -o wide shows\n  %s\nwant\n  %s", c.resource, got, c.columns)
		}
	}
}

func TestParentFieldsAreSelectable(t *testing.T) {
	ctx := timeout(t)
	applyExamples(t, ctx)
	for _, c := range []struct {
		kind     observatory.Kind
		selector string
		want     []string
	}{
		{observatory.KindMount, "spec.telescope=east", []string{"east"}},
		{observatory.KindMount, "spec.telescope=west", nil},
		{observatory.KindCamera, "spec.opticalTrain=east-main", []string{"east-main"}},
		{observatory.KindDome, "spec.observatory=lab", []string{"lab"}},
		{observatory.KindTelescope, "spec.observatory=lab", []string{"east"}},
		{observatory.KindOpticalTrain, "spec.opticalTube=east", []string{"east-main"}},
		{observatory.KindReservation, "spec.telescope=east", []string{"tonight"}},
		{observatory.KindReservation, "spec.holder=ada", []string{"tonight"}},
	} {
		list, err := env.Dynamic.Resource(c.kind.GroupVersionResource()).Namespace(examplesNamespace).
			List(ctx, metav1.ListOptions{FieldSelector: c.selector})
		if err != nil {
			t.Errorf("listing %s with %s: %v", c.kind, c.selector, err)
			continue
		}
		var got []string
		for _, item := range list.Items {
			got = append(got, item.GetName())
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s with %s: got %v, want %v", c.kind, c.selector, got, c.want)
		}
	}
}

func TestEveryKindIsServedUnderTheResourceNameTheGoTypesGive(t *testing.T) {
	ctx := timeout(t)
	gvrs := []schema.GroupVersionResource{people.PersonResource}
	for _, k := range observatory.Kinds {
		gvrs = append(gvrs, k.GroupVersionResource())
	}
	for _, gvr := range gvrs {
		if _, err := env.Dynamic.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			t.Errorf("listing %s: %v", gvr, err)
		}
	}
}

// timeout bounds one test's calls.
func timeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// applyExamples applies examples/ the way a user does. Applying is idempotent, so each test
// that reads the examples applies them itself and can run alone.
func applyExamples(t *testing.T, ctx context.Context) {
	t.Helper()
	if out, err := env.Kubectl(ctx, "apply", "-k", filepath.Join(env.Root, "examples")); err != nil {
		t.Fatalf("applying examples/: %v\n%s", err, out)
	}
	// The real-hardware site, which make run leaves out, is applied by hand.
	if out, err := env.Kubectl(ctx, "apply", "-f", filepath.Join(env.Root, "examples", "hardware.yaml")); err != nil {
		t.Fatalf("applying examples/hardware.yaml: %v\n%s", err, out)
	}
}

// exampleObjects reads every object in examples/*.yaml.
func exampleObjects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(env.Root, "examples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var obj map[string]any
			if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if obj != nil {
				objs = append(objs, &unstructured.Unstructured{Object: obj})
			}
		}
	}
	if len(objs) == 0 {
		t.Fatal("examples/ holds no objects")
	}
	return objs
}

// decode reads a case's YAML. The apiVersion defaults to the observatory group's, the name to
// a fixed one, and an observatory object goes to testNamespace.
func decode(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var obj map[string]any
	if err := yaml.NewYAMLOrJSONDecoder(strings.NewReader(doc), 4096).Decode(&obj); err != nil {
		t.Fatalf("the case's YAML: %v\n%s", err, doc)
	}
	u := &unstructured.Unstructured{Object: obj}
	if u.GetAPIVersion() == "" {
		u.SetAPIVersion(observatory.SchemeGroupVersion.String())
	}
	if u.GetName() == "" {
		u.SetName("case")
	}
	if u.GroupVersionKind().Group == observatory.GroupName {
		u.SetNamespace(testNamespace)
		ensureNamespace(t, testNamespace)
	}
	return u
}

// resource is the dynamic client for an object of one of the project's kinds, or of a core
// kind examples/ uses.
func resource(t *testing.T, obj *unstructured.Unstructured) dynamic.ResourceInterface {
	t.Helper()
	var gvr schema.GroupVersionResource
	switch gvk := obj.GroupVersionKind(); {
	case gvk.Group == people.GroupName && gvk.Kind == people.PersonKind.Kind:
		gvr = people.PersonResource
	case gvk.Group == observatory.GroupName && observatory.Kind(gvk.Kind).Resource() != "":
		gvr = observatory.Kind(gvk.Kind).GroupVersionResource()
	case gvk.Group == "" && gvk.Kind == "PersistentVolumeClaim":
		gvr = corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
	default:
		t.Fatalf("no resource for %s", gvk)
	}
	if ns := obj.GetNamespace(); ns != "" {
		return env.Dynamic.Resource(gvr).Namespace(ns)
	}
	return env.Dynamic.Resource(gvr)
}

func ensureNamespace(t *testing.T, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := env.Kube.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
}
