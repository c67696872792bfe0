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
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/build/images"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/kube"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

const system = localstack.OperatorNamespace

func TestMain(m *testing.M) {
	if os.Getenv(doomedNodeEnv) != "" {
		os.Exit(runDoomedNode())
	}
	// A node whose parent was SIGKILLed first, so the package's own start must sweep it.
	if err := killANode(); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
	go removeOnceSwept(doomed.dir)
	testenv.Run(m, testenv.Options{Node: true}, &env)
}

// restricted is the label that makes a namespace refuse any pod the restricted Pod
// Security Standard does not allow.
var restricted = map[string]string{
	"pod-security.kubernetes.io/enforce":         "restricted",
	"pod-security.kubernetes.io/enforce-version": "latest",
}

var installed bool

// install applies deploy/ once, with the runner's image pinned to the local build and its
// namespace enforcing the restricted standard, and waits for every rollout.
func install(t *testing.T) {
	t.Helper()
	if installed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	started := time.Now()
	if err := env.Stack.Install(ctx, env.Root, testenv.NodeImageTag, restricted); err != nil {
		t.Fatalf("%v\n%s", err, describe(ctx, system))
	}
	t.Logf("deploy/ installed and every rollout done in %s", time.Since(started).Round(time.Millisecond))
	installed = true
}

// hostPathVolume makes a PersistentVolume of a folder on the node, owned by uid, bound
// to the claim ns/claim.
func hostPathVolume(t *testing.T, ctx context.Context, name, ns, claim string, gi int64, uid int) string {
	t.Helper()
	dir, err := env.Stack.Node.HostPathVolume(ctx, env.Kube, name, ns, claim, gi, uid)
	if err != nil {
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
	pulled(t, system, images.RunnerRepository+":"+testenv.NodeImageTag, images.TemporalImage)
}

// nodeServerImage is the INDI server image the node's runner names: that of the build its images
// were made from, not the test binary's.
func nodeServerImage() string { return kube.ServerImageOf(env.NodeBuild) }

// pulled checks that the kubelet pulled each image from the stack's registry, as a cluster
// pulls: its "Successfully pulled image" event in ns. An image already in containerd (loaded
// by hand, say) would get "already present on machine" instead.
func pulled(t *testing.T, ns string, imgs ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	missing := imgs
	for len(missing) > 0 {
		events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=Pulled"})
		if err != nil {
			t.Fatalf("the pull events of %s: %v (%v not seen pulled)", ns, err, missing)
		}
		missing = nil
		for _, im := range imgs {
			if !slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
				return strings.HasPrefix(e.Message, fmt.Sprintf("Successfully pulled image %q", im))
			}) {
				missing = append(missing, im)
			}
		}
		if len(missing) > 0 {
			time.Sleep(time.Second)
		}
	}
}
