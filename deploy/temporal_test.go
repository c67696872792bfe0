// deploy/temporal, the bundled Temporal, and its PostgreSQL overlay: each applies to a real API
// server in a server-side dry run and registers every search attribute the workflows set; the
// overlay's pods find every key they read, and its UI Service selects the UI alone.
package deploy_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"liken.sh/runner/contract"
)

// TestTheBundledTemporalAppliesToARealAPIServer proves deploy/temporal is valid against the
// API server's schemas, not only renderable: a server-side dry run validates every field.
func TestTheBundledTemporalAppliesToARealAPIServer(t *testing.T) {
	ctx := timeout(t)
	if out, err := env.Kubectl(ctx, "create", "namespace", "liken-system"); err != nil && !strings.Contains(out, "AlreadyExists") {
		t.Fatal(err)
	}
	out, err := env.Kubectl(ctx, "apply", "--server-side", "--dry-run=server", "-k", "deploy/temporal")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"deployment.apps/temporal", "service/temporal", "service/temporal-ui", "persistentvolumeclaim/temporal-data"} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run did not apply %s:\n%s", want, out)
		}
	}
}

// TestTheBundledTemporalRegistersEverySearchAttributeTheWorkflowsSet keeps the Deployment's
// --search-attribute flags and contract.SearchAttributes from drifting apart: a missing one
// makes every upsert of it fail in a real cluster.
func TestTheBundledTemporalRegistersEverySearchAttributeTheWorkflowsSet(t *testing.T) {
	out, err := env.Kubectl(timeout(t), "kustomize", "deploy/temporal")
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if _, flag, ok := strings.Cut(line, "- --search-attribute="); ok {
			name, typ, _ := strings.Cut(strings.TrimSpace(flag), "=")
			registered[name] = typ
		}
	}
	registersTheWorkflowsSearchAttributes(t, "deploy/temporal", registered)
}

// registersTheWorkflowsSearchAttributes wants what registers (a name: a type each) to be
// contract.SearchAttributes, no more and no fewer.
func registersTheWorkflowsSearchAttributes(t *testing.T, what string, registered map[string]string) {
	t.Helper()
	if !maps.Equal(registered, contract.SearchAttributes) {
		t.Errorf("%s registers %v; the workflows set %v", what, registered, contract.SearchAttributes)
	}
}

func TestThePostgresOverlayRendersAndPassesAServerSideDryRun(t *testing.T) {
	ctx := timeout(t)
	objs := render(t, ctx, "deploy/temporal/postgres")
	if slices.ContainsFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == "PersistentVolumeClaim" }) {
		t.Error("the overlay still claims a volume for SQLite")
	}
	var server, ui appsv1.Deployment
	findObject(t, objs, "Deployment", "temporal", &server)
	findObject(t, objs, "Deployment", "temporal-ui", &ui)
	for _, v := range server.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			t.Errorf("the server still mounts the claim %s", v.PersistentVolumeClaim.ClaimName)
		}
	}
	c := server.Spec.Template.Spec.Containers[0]
	if !strings.HasPrefix(c.Image, "temporalio/server:") || len(c.Args) != 0 || !slices.Contains(c.Command, "--env=postgres") {
		t.Errorf("the server runs %s %v %v; want the server image with the postgres configuration", c.Image, c.Command, c.Args)
	}

	// Every key the pods read from a ConfigMap is in it; the password is in the Secret the
	// user creates. What a user may add (an optional key) is in the overlay's documentation.
	doc, err := os.ReadFile(filepath.Join(env.Root, "deploy", "temporal", "postgres", "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	documented := func(key string) bool { return strings.Contains(string(doc), key) }
	configMaps := map[string]map[string]string{}
	for _, o := range objs {
		if o.GetKind() == "ConfigMap" {
			data, _, _ := unstructured.NestedStringMap(o.Object, "data")
			configMaps[o.GetName()] = data
		}
	}
	for _, w := range workloads(t, objs) {
		for _, c := range allContainers(w.template.Spec) {
			for _, e := range c.Env {
				if e.ValueFrom == nil {
					continue
				}
				if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
					if _, ok := configMaps[r.Name][r.Key]; !ok && !(ptr.Deref(r.Optional, false) && documented(r.Key)) {
						t.Errorf("%s %s reads %s from ConfigMap %s, which has no such key and does not document it as optional", w.name, c.Name, r.Key, r.Name)
					}
				}
				if r := e.ValueFrom.SecretKeyRef; r != nil && (r.Name != "temporal-postgres" || r.Key != "password") &&
					!(ptr.Deref(r.Optional, false) && documented("secret generic "+r.Name) && documented(r.Key)) {
					t.Errorf("%s %s reads Secret %s key %s; the overlay documents temporal-postgres, password, and optional others", w.name, c.Name, r.Name, r.Key)
				}
			}
		}
	}
	// The server reads <--env>.yaml from the folder the ConfigMap is mounted on.
	mounted := ""
	for _, v := range server.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil {
			mounted = v.ConfigMap.Name
		}
	}
	if _, ok := configMaps[mounted]["postgres.yaml"]; !ok {
		t.Errorf("the server's ConfigMap %q has no postgres.yaml", mounted)
	}

	// The UI's Service now selects the UI's pods, not the server's.
	var svc corev1.Service
	findObject(t, objs, "Service", "temporal-ui", &svc)
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	if !sel.Matches(labels.Set(ui.Spec.Template.Labels)) || sel.Matches(labels.Set(server.Spec.Template.Labels)) {
		t.Errorf("svc/temporal-ui selects %v; want the UI's pods only", svc.Spec.Selector)
	}

	ensureNamespace(t, operatorNamespace)
	out, err := env.Kubectl(ctx, "apply", "--server-side", "--dry-run=server", "-k", "deploy/temporal/postgres")
	if err != nil {
		t.Fatalf("the server-side dry run failed: %v\n%s", err, out)
	}
	for _, want := range []string{
		"deployment.apps/temporal ", "deployment.apps/temporal-ui", "job.batch/temporal-setup",
		"service/temporal ", "service/temporal-ui", "configmap/temporal-postgres-", "configmap/temporal-server-",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run did not apply %s:\n%s", strings.TrimSpace(want), out)
		}
	}
}

// TestThePostgresOverlayRegistersEverySearchAttributeTheWorkflowsSet keeps the setup Job's
// arguments and contract.SearchAttributes from drifting apart, as the base's test does for
// its --search-attribute flags.
func TestThePostgresOverlayRegistersEverySearchAttributeTheWorkflowsSet(t *testing.T) {
	var job batchv1.Job
	findObject(t, render(t, timeout(t), "deploy/temporal/postgres"), "Job", "temporal-setup", &job)
	registered := map[string]string{}
	for _, a := range job.Spec.Template.Spec.Containers[0].Args {
		name, typ, _ := strings.Cut(a, "=")
		registered[name] = typ
	}
	registersTheWorkflowsSearchAttributes(t, "the setup Job", registered)
}
