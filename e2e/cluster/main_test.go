// Package cluster installs deploy/ on a real node, as a user installs it on a small
// cluster, and drives the whole system through the Kubernetes API: the watchers, the worker
// and the bundled Temporal run as pods of the images built here, the runner's baker, INDI
// server, device and Job pods run as real containers, and every pod the runner creates is
// admitted in namespaces that enforce the restricted Pod Security Standard.
//
// The package installs once (TestMain) and its tests share the install, in order: each
// leaves nothing of its own behind.
package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"liken.sh/runner/internal/images"
	"liken.sh/runner/internal/testenv"
)

var env *testenv.Env

const system = "liken-system"

func TestMain(m *testing.M) {
	if os.Getenv(doomedNodeEnv) != "" {
		os.Exit(runDoomedNode())
	}
	// A node whose parent was SIGKILLed first, so the package's own start must sweep it.
	if err := killANode(); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
	testenv.Run(m, testenv.Options{Node: true}, &env)
}

// restricted is the label that makes a namespace refuse any pod the restricted Pod
// Security Standard does not allow.
var restricted = map[string]string{
	"pod-security.kubernetes.io/enforce":         "restricted",
	"pod-security.kubernetes.io/enforce-version": "latest",
}

var installed bool

// install applies deploy/ once, with the runner's image pinned to the local build, and
// waits for every rollout. The bundled Temporal's claim is bound to a folder on the node.
func install(t *testing.T) {
	t.Helper()
	if installed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	started := time.Now()

	// The Namespace first, with the label, so the operator's pods are admitted under it.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: system, Labels: restricted}}
	if _, err := env.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	hostPathVolume(t, ctx, "temporal-data", system, "temporal-data", 2, 1000)

	dir := t.TempDir()
	// kustomize takes a base by a relative path only.
	base, err := filepath.Rel(dir, filepath.Join(env.Root, "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	kustomization := fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - %s
images:
  - name: %s
    newTag: %s
`, base, images.RunnerRepository, testenv.NodeImageTag)
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := env.Kubectl(ctx, "apply", "--server-side", "-k", dir); err != nil {
		t.Fatalf("apply deploy/: %v\n%s", err, out)
	}
	for _, d := range []string{"temporal", "liken-worker", "people-operator", "observatory-operator"} {
		if out, err := env.Kubectl(ctx, "-n", system, "rollout", "status", "deployment/"+d, "--timeout=180s"); err != nil {
			t.Fatalf("the rollout of %s: %v\n%s\n%s", d, err, out, describe(ctx, system))
		}
	}
	t.Logf("deploy/ installed and every rollout done in %s", time.Since(started).Round(time.Millisecond))
	installed = true
}

// hostPathVolume makes a PersistentVolume of a folder on the node, owned by uid, bound
// to the claim ns/claim.
func hostPathVolume(t *testing.T, ctx context.Context, name, ns, claim string, gi int64, uid int) string {
	t.Helper()
	dir := filepath.Join(env.Stack.Node.Dir, "volumes", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, uid, uid); err != nil {
		t.Fatal(err)
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:    corev1.ResourceList{corev1.ResourceStorage: *resource.NewQuantity(gi<<30, resource.BinarySI)},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadOnlyMany},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: dir, Type: ptr.To(corev1.HostPathDirectory),
			}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: ns, Name: claim},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
		},
	}
	if _, err := env.Kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// describe is what a person would look at when a rollout hangs.
func describe(ctx context.Context, ns string) string {
	var b strings.Builder
	for _, args := range [][]string{
		{"get", "pods", "-o", "wide", "-A"},
		{"-n", ns, "describe", "pods"},
		{"get", "events", "-A", "--sort-by=.lastTimestamp"},
	} {
		out, _ := env.Kubectl(ctx, args...)
		b.WriteString("$ kubectl " + strings.Join(args, " ") + "\n" + out + "\n")
	}
	return b.String()
}

func TestTheRunnerInstallsAndEveryRolloutCompletes(t *testing.T) {
	install(t)
	out, err := env.Kubectl(context.Background(), "get", "pods", "-o", "wide", "-A")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("kubectl get pods -o wide -A\n%s", out)
}
