// The whole runner as a user installs it, checked on a real kube-apiserver: deploy/ renders,
// passes a server-side dry run and a real server-side apply; the worker runs two copies under
// a PodDisruptionBudget that selects them; one images: entry sets every container of the
// runner, the baker pods' image included; every Deployment has its probes, requests and limits
// and the restricted security context, which the API server's own PodSecurity admission
// confirms. The bundled Temporal and its PostgreSQL overlay are in temporal_test.go.
package deploy_test

import (
	"context"
	"encoding/json"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"liken.sh/runner/kube"
	"liken.sh/runner/test/testenv"
)

const (
	// operatorNamespace is where the bases put the runner and the bundled Temporal.
	operatorNamespace = "liken-system"
	// runnerImage is the name the bases give the runner's one image; a user's images: entry
	// names it to pin a release.
	runnerImage = "ghcr.io/liken-sh/people-operator"
	// defaultHealthAddress is where the binaries serve /healthz and /readyz when
	// LIKEN_HEALTH_ADDRESS is not set (internal/app).
	defaultHealthAddress = ":8081"
)

// runnerDeployments are the runner's own Deployments in deploy/.
var runnerDeployments = []string{"people-operator", "observatory-operator", "liken-worker-main"}

var (
	wholeBaseOnce sync.Once
	wholeBaseOut  string
	wholeBaseErr  error
)

// applyWholeBase applies deploy/ with a real server-side apply, once per test binary, the way
// a user does (kubectl apply --server-side -k deploy/).
func applyWholeBase(t *testing.T, ctx context.Context) string {
	t.Helper()
	wholeBaseOnce.Do(func() {
		wholeBaseOut, wholeBaseErr = env.Kubectl(ctx, "apply", "--server-side", "-k", "deploy/")
	})
	if wholeBaseErr != nil {
		t.Fatalf("kubectl apply --server-side -k deploy/: %v\n%s", wholeBaseErr, wholeBaseOut)
	}
	return wholeBaseOut
}

func TestTheWholeBaseRendersAndAppliesToARealAPIServer(t *testing.T) {
	ctx := timeout(t)
	objs := render(t, ctx, "deploy/")
	kinds := map[string]int{}
	for _, o := range objs {
		kinds[o.GetKind()]++
	}
	// The CRDs, the operator, the DRA driver and the bundled Temporal, from one base.
	if kinds["CustomResourceDefinition"] == 0 || kinds["Namespace"] != 2 || kinds["PodDisruptionBudget"] != 1 ||
		kinds["DaemonSet"] != 1 || kinds["DeviceClass"] != 1 {
		t.Errorf("deploy/ renders %v; want the CRDs, two Namespaces (the runner's and its DRA driver's), one PodDisruptionBudget, one DaemonSet and one DeviceClass", kinds)
	}
	for _, name := range append(slices.Clone(runnerDeployments), "temporal") {
		findObject(t, objs, "Deployment", name, &appsv1.Deployment{})
	}
	findObject(t, objs, "Service", "temporal", &corev1.Service{})
	findObject(t, objs, "Service", "temporal-ui", &corev1.Service{})

	// A dry run on a cluster without liken-system fails on every object meant for it (the
	// Namespace is not created by a dry run), so the namespace comes first, as a real apply
	// makes it.
	ensureNamespace(t, operatorNamespace)
	ensureNamespace(t, "liken-devices")
	out, err := env.Kubectl(ctx, "apply", "--server-side", "--dry-run=server", "-k", "deploy/")
	if err != nil {
		t.Fatalf("the server-side dry run failed: %v\n%s", err, out)
	}
	out = applyWholeBase(t, ctx)
	for _, want := range []string{
		"customresourcedefinition.apiextensions.k8s.io/people.people.liken.sh",
		"customresourcedefinition.apiextensions.k8s.io/reservations.observatory.liken.sh",
		"deployment.apps/people-operator", "deployment.apps/observatory-operator",
		"deployment.apps/liken-worker-main", "deployment.apps/temporal",
		"poddisruptionbudget.policy/liken-worker-main", "persistentvolumeclaim/temporal-data",
		"daemonset.apps/serial-devices", "deviceclass.resource.k8s.io/serial.liken.sh",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the apply did not apply %s:\n%s", want, out)
		}
	}
	for _, name := range append(slices.Clone(runnerDeployments), "temporal") {
		if _, err := env.Kube.AppsV1().Deployments(operatorNamespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("Deployment %s is not on the server after the apply: %v", name, err)
		}
	}
}

func TestTheWorkerRunsTwoCopiesUnderABudgetThatLetsOneGo(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	objs := render(t, ctx, "deploy/")
	var worker appsv1.Deployment
	findObject(t, objs, "Deployment", "liken-worker-main", &worker)
	if r := worker.Spec.Replicas; r == nil || *r != 2 {
		t.Errorf("liken-worker runs %s replicas, want 2", ptrString(r))
	}
	var pdb policyv1.PodDisruptionBudget
	findObject(t, objs, "PodDisruptionBudget", "liken-worker-main", &pdb)
	one := func(v *intstr.IntOrString) bool { return v != nil && v.Type == intstr.Int && v.IntVal == 1 }
	if !one(pdb.Spec.MaxUnavailable) && !one(pdb.Spec.MinAvailable) {
		t.Errorf("the budget is %+v; want maxUnavailable 1 or minAvailable 1", pdb.Spec)
	}
	if pdb.Namespace != worker.Namespace {
		t.Errorf("the budget is in %q, the worker in %q", pdb.Namespace, worker.Namespace)
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || sel.Empty() {
		t.Fatalf("the budget's selector %v: %v", pdb.Spec.Selector, err)
	}
	// It selects the worker's pods and no other Deployment's: a budget over a watcher's single
	// pod would block every drain of its node.
	for _, w := range workloads(t, objs) {
		selected := sel.Matches(labels.Set(w.template.Labels))
		if want := w.kind == "Deployment" && w.name == "liken-worker-main"; selected != want {
			t.Errorf("the budget selects the pods of %s %s: %v, want %v", w.kind, w.name, selected, want)
		}
	}

	// On the server, the disruption controller finds the two pods the budget guards.
	applyWholeBase(t, ctx)
	var got *policyv1.PodDisruptionBudget
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		got, err = env.Kube.PolicyV1().PodDisruptionBudgets(operatorNamespace).Get(ctx, "liken-worker-main", metav1.GetOptions{})
		if err == nil && got.Status.ExpectedPods == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the budget never counted the worker's two pods: %+v, %v", got, err)
		}
	}
}

func TestOneImagesEntrySetsEveryContainerOfTheRunnerAndTheBakerPods(t *testing.T) {
	ctx := timeout(t)
	const pinned = "registry.example.com/liken/runner:v9.8.7"
	dir := t.TempDir()
	base, err := filepath.Rel(dir, filepath.Join(env.Root, "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	k := "resources:\n  - " + base + "\nimages:\n  - name: " + runnerImage +
		"\n    newName: registry.example.com/liken/runner\n    newTag: v9.8.7\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	runner := map[string]bool{}
	for _, w := range workloads(t, render(t, ctx, dir)) {
		for _, c := range allContainers(w.template.Spec) {
			if isTemporal(c.Image) {
				continue
			}
			// Every other container is the runner's, whatever name its base gave the image.
			if c.Image != pinned {
				t.Errorf("%s %s container %s runs %s after the images entry, want %s", w.kind, w.name, c.Name, c.Image, pinned)
			}
			if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--baker-image") }) ||
				slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "LIKEN_BAKER_IMAGE" }) {
				t.Errorf("%s %s container %s sets the baker image itself, so the images entry would not reach the baker pods", w.kind, w.name, c.Name)
			}
			runner[w.name] = true
		}
		if w.kind == "Deployment" && w.name == "liken-worker-main" {
			// The worker gives its baker pods the image it finds in its own pod.
			own, err := kube.OwnImage(&corev1.Pod{Spec: w.template.Spec})
			if err != nil || own != pinned {
				t.Errorf("the baker pods would run %q (%v), want %s", own, err, pinned)
			}
		}
	}
	for _, name := range runnerDeployments {
		if !runner[name] {
			t.Errorf("Deployment %s runs no container of the runner's image", name)
		}
	}
}

func TestEveryDeploymentHasProbesResourcesAndTheRestrictedSecurityContext(t *testing.T) {
	ctx := timeout(t)
	for _, dir := range []string{"deploy/", "deploy/temporal/postgres"} {
		for _, w := range workloads(t, render(t, ctx, dir)) {
			id := dir + ": " + w.kind + " " + w.name
			pod := w.template.Spec
			for _, c := range allContainers(pod) {
				checkRestricted(t, id, pod, c)
				checkResources(t, id, c)
			}
			if w.kind != "Deployment" {
				continue
			}
			for _, c := range pod.Containers {
				if isTemporal(c.Image) {
					if c.LivenessProbe == nil || c.ReadinessProbe == nil {
						t.Errorf("%s container %s has no liveness or readiness probe", id, c.Name)
					}
					continue
				}
				checkHealthProbes(t, id, c)
			}
		}
	}
}

// checkRestricted checks the fields the restricted Pod Security Standard asks for, and a
// read-only root filesystem, for one container.
func checkRestricted(t *testing.T, id string, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	psc, sc := pod.SecurityContext, c.SecurityContext
	if sc == nil {
		t.Errorf("%s container %s has no security context", id, c.Name)
		return
	}
	// A container's own setting wins over the pod's.
	nonRoot := psc != nil && psc.RunAsNonRoot != nil && *psc.RunAsNonRoot
	if sc.RunAsNonRoot != nil {
		nonRoot = *sc.RunAsNonRoot
	}
	seccomp := sc.SeccompProfile
	if seccomp == nil && psc != nil {
		seccomp = psc.SeccompProfile
	}
	switch {
	case !nonRoot:
		t.Errorf("%s container %s may run as root", id, c.Name)
	case seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("%s container %s has seccomp %+v, want RuntimeDefault", id, c.Name, seccomp)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("%s container %s allows privilege escalation", id, c.Name)
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("%s container %s keeps capabilities: %+v", id, c.Name, sc.Capabilities)
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("%s container %s may write its root filesystem", id, c.Name)
	case sc.Privileged != nil && *sc.Privileged:
		t.Errorf("%s container %s is privileged", id, c.Name)
	}
}

// checkResources wants CPU and memory requests (what the scheduler reserves) and a memory
// limit (what bounds a leak). No CPU limit is asked for: it would throttle a burst on a node
// with CPU to spare.
func checkResources(t *testing.T, id string, c corev1.Container) {
	t.Helper()
	r := c.Resources
	if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Memory().IsZero() {
		t.Errorf("%s container %s has requests %v and limits %v; want CPU and memory requests and a memory limit", id, c.Name, r.Requests, r.Limits)
	}
	if r.Limits.Memory().Cmp(*r.Requests.Memory()) < 0 {
		t.Errorf("%s container %s requests more memory than its limit", id, c.Name)
	}
}

// checkHealthProbes wants /healthz as the liveness probe and /readyz as the readiness probe,
// both on the port the binary serves them on (LIKEN_HEALTH_ADDRESS, else :8081).
func checkHealthProbes(t *testing.T, id string, c corev1.Container) {
	t.Helper()
	addr := defaultHealthAddress
	for _, e := range c.Env {
		if e.Name == "LIKEN_HEALTH_ADDRESS" {
			addr = e.Value
		}
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Errorf("%s container %s: LIKEN_HEALTH_ADDRESS %q: %v", id, c.Name, addr, err)
		return
	}
	for _, p := range []struct {
		probe *corev1.Probe
		path  string
	}{{c.LivenessProbe, "/healthz"}, {c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil || p.probe.HTTPGet.Path != p.path {
			t.Errorf("%s container %s has no HTTP probe on %s: %+v", id, c.Name, p.path, p.probe)
			continue
		}
		target := p.probe.HTTPGet.Port
		probed := strconv.Itoa(target.IntValue())
		if target.Type == intstr.String {
			probed = ""
			for _, cp := range c.Ports {
				if cp.Name == target.StrVal {
					probed = strconv.Itoa(int(cp.ContainerPort))
				}
			}
		}
		if probed != port {
			t.Errorf("%s container %s probes %s on port %s, which is not the container port of %s", id, c.Name, p.path, target.String(), addr)
		}
	}
}

// TestThePodSecurityAdmissionFindsNothingRestrictedWouldRefuse hands every pod template of
// deploy/ and of the PostgreSQL overlay to the API server's own PodSecurity admission, in a
// namespace that warns at the restricted level, and wants no warning. A template without
// any hardening proves the check is not silent.
func TestThePodSecurityAdmissionFindsNothingRestrictedWouldRefuse(t *testing.T) {
	ctx := timeout(t)
	const ns = "pod-security-restricted"
	_, err := env.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   ns,
		Labels: map[string]string{"pod-security.kubernetes.io/warn": "restricted", "pod-security.kubernetes.io/warn-version": "latest"},
	}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	var items []any
	for _, dir := range []string{"deploy/", "deploy/temporal/postgres"} {
		for _, w := range workloads(t, render(t, ctx, dir)) {
			items = append(items, podHolder(t, ns, strings.ReplaceAll(strings.Trim(dir, "/"), "/", "-")+"-"+w.name, w.template))
		}
	}
	dryRun := func(t *testing.T, items []any) string {
		t.Helper()
		b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), "pods.json")
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := env.Kubectl(ctx, "apply", "--server-side", "--dry-run=server", "-f", f)
		if err != nil {
			t.Fatalf("the dry run failed: %v\n%s", err, out)
		}
		return out
	}
	if out := dryRun(t, items); strings.Contains(out, "would violate PodSecurity") {
		t.Errorf("the restricted level warns:\n%s", out)
	}
	bare := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "bare"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "bare", Image: "busybox"}}},
	}
	if out := dryRun(t, []any{podHolder(t, ns, "bare", bare)}); !strings.Contains(out, "would violate PodSecurity") {
		t.Errorf("a pod without any hardening drew no warning, so the check above proves nothing:\n%s", out)
	}
}

// podHolder is a Deployment around template, in namespace ns, for the PodSecurity check (it
// checks the templates of Deployments and Jobs alike).
func podHolder(t *testing.T, ns, name string, template corev1.PodTemplateSpec) map[string]any {
	t.Helper()
	d := appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: template.Labels},
			Template: template,
		},
	}
	d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&d)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A workload is an object that runs pods: its kind, name and pod template.
type workload struct {
	kind, name string
	template   corev1.PodTemplateSpec
}

// workloads are the Deployments and Jobs among objs.
func workloads(t *testing.T, objs []*unstructured.Unstructured) []workload {
	t.Helper()
	var ws []workload
	for _, o := range objs {
		var template corev1.PodTemplateSpec
		switch o.GetKind() {
		case "Deployment":
			var d appsv1.Deployment
			convert(t, o, &d)
			template = d.Spec.Template
		case "Job":
			var j batchv1.Job
			convert(t, o, &j)
			template = j.Spec.Template
		case "DaemonSet":
			if o.GetName() == devicesDriver {
				continue // the nodes' DRA driver, at the privileged level: TestTheDRADriverHoldsOnlyWhatItServes
			}
			t.Fatalf("DaemonSet %s: the checks here read only Deployments and Jobs", o.GetName())
		case "StatefulSet", "ReplicaSet", "Pod", "CronJob":
			t.Fatalf("%s %s: the checks here read only Deployments and Jobs", o.GetKind(), o.GetName())
		default:
			continue
		}
		ws = append(ws, workload{o.GetKind(), o.GetName(), template})
	}
	if len(ws) == 0 {
		t.Fatal("no Deployment and no Job rendered")
	}
	return ws
}

func allContainers(pod corev1.PodSpec) []corev1.Container {
	return append(slices.Clone(pod.InitContainers), pod.Containers...)
}

// isTemporal tells the bundled Temporal's images (server, UI, CLI, admin tools) from the
// runner's.
func isTemporal(image string) bool { return strings.HasPrefix(image, "temporalio/") }

func render(t *testing.T, ctx context.Context, dir string) []*unstructured.Unstructured {
	return env.Kustomize(t, ctx, dir)
}

func findObject(t *testing.T, objs []*unstructured.Unstructured, kind, name string, into any) {
	t.Helper()
	testenv.Find(t, objs, kind, name, into)
}

func convert(t *testing.T, o *unstructured.Unstructured, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, into); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
}

func ptrString(p *int32) string {
	if p == nil {
		return "the default number of"
	}
	return strconv.Itoa(int(*p))
}

// TestTheMTLSComponentGivesEveryRunnerDeploymentTheClientSecret renders deploy/ with
// components/temporal-mtls, as its comment tells a user to: each of the runner's Deployments
// mounts the Secret temporal-client and points Temporal's own variables at its files, and the
// bundled Temporal is left as it is.
func TestTheMTLSComponentGivesEveryRunnerDeploymentTheClientSecret(t *testing.T) {
	ctx := timeout(t)
	dir := t.TempDir()
	rel, err := filepath.Rel(dir, env.Root)
	if err != nil {
		t.Fatal(err)
	}
	k := "resources:\n  - " + rel + "/deploy\ncomponents:\n  - " + rel + "/deploy/components/temporal-mtls\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH": "/etc/temporal-client/ca.crt",
		"TEMPORAL_TLS_CLIENT_CERT_PATH":    "/etc/temporal-client/tls.crt",
		"TEMPORAL_TLS_CLIENT_KEY_PATH":     "/etc/temporal-client/tls.key",
	}
	secured := map[string]bool{}
	for _, w := range workloads(t, render(t, ctx, dir)) {
		if w.kind != "Deployment" {
			continue
		}
		mounts := slices.ContainsFunc(w.template.Spec.Volumes, func(v corev1.Volume) bool {
			return v.Secret != nil && v.Secret.SecretName == "temporal-client"
		})
		c := w.template.Spec.Containers[0]
		got := map[string]string{}
		for _, e := range c.Env {
			if _, ok := want[e.Name]; ok {
				got[e.Name] = e.Value
			}
		}
		secured[w.name] = mounts && len(c.VolumeMounts) == 1 && c.VolumeMounts[0].MountPath == "/etc/temporal-client" &&
			maps.Equal(got, want)
		if isTemporal(c.Image) && (mounts || len(got) > 0) {
			t.Errorf("the component changed the bundled Temporal's Deployment %s", w.name)
		}
	}
	for _, name := range runnerDeployments {
		if !secured[name] {
			t.Errorf("Deployment %s does not mount temporal-client nor name its files for Temporal's variables", name)
		}
	}
}
