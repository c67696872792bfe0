// deploy/people as kustomize renders it: the install guide's layout of the watcher's
// Deployment, the worker's, the namespaces each object lands in, labels that never reach a
// selector, and one images: entry in a user's kustomization that pins every container.
package watch_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/internal/rollout"
	"liken.sh/runner/test/testenv"
)

func render(t *testing.T, ctx context.Context, dir string) []*unstructured.Unstructured {
	return env.Kustomize(t, ctx, dir)
}

func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string, into any) {
	t.Helper()
	testenv.Find(t, objs, kind, name, into)
}

// renderedDeployment renders deploy/<base>, finds the Deployment name in it and wants it in
// liken-system, with replicas copies under the ServiceAccount sa.
func renderedDeployment(t *testing.T, ctx context.Context, base, name string, replicas int32, sa string) appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	find(t, render(t, ctx, filepath.Join(env.Root, "deploy", base)), "Deployment", name, &d)
	if d.Namespace != leaseNamespace || *d.Spec.Replicas != replicas || d.Spec.Template.Spec.ServiceAccountName != sa {
		t.Errorf("%s: namespace %s, %d replicas, ServiceAccount %s", name, d.Namespace, *d.Spec.Replicas, d.Spec.Template.Spec.ServiceAccountName)
	}
	return d
}

func TestTheWatcherDeploymentHasTheInstallGuidesLayout(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	d := renderedDeployment(t, ctx, "people", "people-operator", 1, watcherSA)
	// A rollout starts the new pod beside the old one; the Lease keeps one acting.
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || d.Spec.Strategy.RollingUpdate.MaxUnavailable.IntValue() != 0 {
		t.Errorf("people-operator's strategy %+v, want a rolling update that starts the new pod first", d.Spec.Strategy)
	}
	cs := d.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "operator" || cs[0].Image != "ghcr.io/liken-sh/people-operator:latest" {
		t.Fatalf("people-operator's containers: %+v", cs)
	}
	c := cs[0]
	fields := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			fields[e.Name] = e.ValueFrom.FieldRef.FieldPath
		}
	}
	if fields["POD_NAME"] != "metadata.name" || fields["POD_NAMESPACE"] != "metadata.namespace" {
		t.Errorf("POD_NAME and POD_NAMESPACE do not come from the downward API: %v", fields)
	}
	checkHardened(t, "people-operator", d.Spec.Template.Spec, c)
}

func TestTheWorkerDeploymentRunsTwoCopiesOfTheSameImage(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	d := renderedDeployment(t, ctx, "people", "liken-worker-main", 2, workerSA)
	cs := d.Spec.Template.Spec.Containers
	// The baker pods run the image of the container named worker (kube.OwnImage).
	if len(cs) != 1 || cs[0].Name != "worker" || cs[0].Image != "ghcr.io/liken-sh/people-operator:latest" {
		t.Fatalf("liken-worker's containers: %+v", cs)
	}
	checkHardened(t, "liken-worker-main", d.Spec.Template.Spec, cs[0])
	// One Deployment per build, whose selector no other build's pods match; the worker polls
	// as the build its label names (internal/rollout).
	if sel, _ := labels.Parse(rollout.WorkerSelector); !sel.Matches(labels.Set(d.Labels)) {
		t.Errorf("the watcher cannot find liken-worker-main: its labels %v do not match %s", d.Labels, rollout.WorkerSelector)
	}
	if b := d.Spec.Selector.MatchLabels["liken.sh/build"]; b != "main" {
		t.Errorf("liken-worker-main selects build %q, want main", b)
	}
	fromLabel := func(e corev1.EnvVar) bool {
		return e.Name == "LIKEN_BUILD_ID" && e.ValueFrom != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.labels['liken.sh/build']"
	}
	if !slices.ContainsFunc(cs[0].Env, fromLabel) {
		t.Errorf("LIKEN_BUILD_ID is not its pod's build label: %+v", cs[0].Env)
	}
}

func checkHardened(t *testing.T, name string, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	sc, psc := c.SecurityContext, pod.SecurityContext
	if psc == nil || psc.RunAsUser == nil || *psc.RunAsUser != 65534 {
		t.Errorf("%s does not run as uid 65534: %+v", name, psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0 {
		t.Errorf("%s's container is not locked down: %+v", name, sc)
	}
	r := c.Resources
	if r.Requests.Cpu().String() != "10m" || r.Requests.Memory().String() != "32Mi" || r.Limits.Memory().String() != "384Mi" {
		t.Errorf("%s's resources: %+v", name, r)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" ||
		c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("%s's probes: %+v %+v", name, c.LivenessProbe, c.ReadinessProbe)
		return
	}
	port := c.LivenessProbe.HTTPGet.Port.String()
	if len(c.Ports) != 1 || c.Ports[0].Name != port || c.ReadinessProbe.HTTPGet.Port.String() != port {
		t.Errorf("%s's probes are not on its health port: %v %+v", name, port, c.Ports)
	}
}

func TestEveryObjectLandsInItsNamespaceAndNoLabelReachesASelector(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	objs := render(t, ctx, filepath.Join(env.Root, "deploy", "people"))
	inDefault := map[string]bool{"Role/liken-worker-people-events": true, "RoleBinding/liken-worker-people-events": true}
	for _, o := range objs {
		id := o.GetKind() + "/" + o.GetName()
		switch o.GetKind() {
		case "Namespace", "ClusterRole", "ClusterRoleBinding":
			if o.GetNamespace() != "" {
				t.Errorf("%s is cluster-scoped but has the namespace %s", id, o.GetNamespace())
			}
		default:
			want := leaseNamespace
			if inDefault[id] {
				want = "default"
			}
			if o.GetNamespace() != want {
				t.Errorf("%s is in %q, want %s", id, o.GetNamespace(), want)
			}
		}
		l := o.GetLabels()
		if l["app.kubernetes.io/name"] != "people-operator" || l["app.kubernetes.io/part-of"] != "liken" {
			t.Errorf("%s lacks the base's labels: %v", id, l)
		}
		if o.GetKind() == "RoleBinding" || o.GetKind() == "ClusterRoleBinding" {
			var b rbacv1.RoleBinding
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b); err != nil {
				t.Fatal(err)
			}
			for _, s := range b.Subjects {
				if s.Namespace != leaseNamespace {
					t.Errorf("%s binds %s in %q, want %s", id, s.Name, s.Namespace, leaseNamespace)
				}
			}
		}
		if o.GetKind() == "Deployment" {
			sel, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector", "matchLabels")
			if _, has := sel["app.kubernetes.io/name"]; has || sel["app.kubernetes.io/part-of"] != "" {
				t.Errorf("%s's selector carries the base's labels: %v", id, sel)
			}
		}
	}
}

func TestOneImagesEntryPinsTheWatcherAndTheWorker(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	dir := t.TempDir()
	base, err := filepath.Rel(dir, filepath.Join(env.Root, "deploy", "people"))
	if err != nil {
		t.Fatal(err)
	}
	k := "resources:\n  - " + base + "\nimages:\n  - name: ghcr.io/liken-sh/people-operator\n    newTag: v1.2.3\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := render(t, ctx, dir)
	for _, name := range []string{"people-operator", "liken-worker-main"} {
		var d appsv1.Deployment
		find(t, objs, "Deployment", name, &d)
		if img := d.Spec.Template.Spec.Containers[0].Image; img != "ghcr.io/liken-sh/people-operator:v1.2.3" {
			t.Errorf("%s runs %s after the images entry, want ghcr.io/liken-sh/people-operator:v1.2.3", name, img)
		}
	}
}
