// The holder's way in to a Ready reservation on the real node: `kubectl port-forward`, as the
// user the holder's Person names, opens the telescope's and the site's INDI servers on the
// holder's machine, where INDI's own indi_getprop reads them; another observer is refused by
// the API server until the holder's Person names them too. The Role that allows it goes when
// the reservation ends.
package cluster

import (
	"bufio"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// holder is the Person the adapter's reservation is held by, and the user it names.
const (
	holder     = "lovelace"
	holderUser = "lovelace@example.org"
)

// createHolder creates the Person, naming its user; it goes with the test.
func createHolder(t *testing.T, ctx context.Context) {
	people := env.Dynamic.Resource(peoplev1.PersonResource)
	_, err := people.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": peoplev1.SchemeGroupVersion.String(), "kind": "Person",
		"metadata": map[string]any{"name": holder},
		"spec":     map[string]any{"displayName": "Ada Lovelace", "users": []any{holderUser}},
	}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { people.Delete(context.Background(), holder, metav1.DeleteOptions{}) })
}

// theHolderReachesTheServers port-forwards each server pod as the holder and reads a property
// ("device.PROPERTY") of it with indi_getprop; another observer's port-forward is refused,
// until the holder's Person names them too.
func theHolderReachesTheServers(t *testing.T, ctx context.Context, ns string, servers map[string]string) {
	for pod, property := range servers {
		require.Eventually(t, func() bool { return mayPortForward(t, ctx, holderUser, ns, pod) },
			30*time.Second, 250*time.Millisecond, "the way in is written as the reservation becomes Ready")
		port := portForward(t, ctx, holderUser, ns, pod)
		out, err := exec.CommandContext(ctx, "indi_getprop", "-h", "127.0.0.1", "-p", port, "-t", "3", property+".*").CombinedOutput()
		require.NoError(t, err, "indi_getprop through the port-forward of %s: %s", pod, out)
		require.Contains(t, string(out), property+".", "pod %s", pod)
		t.Logf("%s through `kubectl --as %s port-forward pod/%s`: %s", holder, holderUser, pod, strings.TrimSpace(string(out)))

		out, err = exec.CommandContext(ctx, env.KubectlPath(), "--kubeconfig="+env.Kubeconfig, "--as=bob@example.org",
			"-n", ns, "port-forward", "pod/"+pod, ":7624").CombinedOutput()
		require.Error(t, err, "another observer's port-forward of %s", pod)
		require.Contains(t, string(out), "forbidden", "another observer is refused: %s", out)
	}
	// The Person names bob too: the watcher tells the Ready reservation, whose way in follows.
	patch := `{"spec":{"users":["` + holderUser + `","bob@example.org"]}}`
	_, err := env.Dynamic.Resource(peoplev1.PersonResource).Patch(ctx, holder, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	require.NoError(t, err)
	named := time.Now()
	for pod := range servers {
		require.Eventually(t, func() bool { return mayPortForward(t, ctx, "bob@example.org", ns, pod) },
			time.Minute, 250*time.Millisecond, "bob may port-forward %s once the Person names him", pod)
	}
	t.Logf("bob may port-forward both servers %.1f s after the Person named him", time.Since(named).Seconds())
}

// mayPortForward asks the API server's authorizer whether user may port-forward the pod.
func mayPortForward(t *testing.T, ctx context.Context, user, ns, pod string) bool {
	r, err := env.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: ns, Verb: "create", Resource: "pods", Subresource: "portforward", Name: pod}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	return r.Status.Allowed
}

// portForward runs `kubectl --as user port-forward` of the pod's INDI port until the test
// ends, and returns the local port.
func portForward(t *testing.T, ctx context.Context, user, ns, pod string) string {
	ctx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(ctx, env.KubectlPath(), "--kubeconfig="+env.Kubeconfig, "--as="+user,
		"-n", ns, "port-forward", "pod/"+pod, ":7624")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	forwarding := regexp.MustCompile(`^Forwarding from 127\.0\.0\.1:(\d+) -> 7624`)
	for lines.Scan() {
		if m := forwarding.FindStringSubmatch(lines.Text()); m != nil {
			go func() {
				for lines.Scan() {
				}
			}()
			return m[1]
		}
	}
	t.Fatalf("kubectl --as %s port-forward pod/%s said no port: %s", user, pod, stderr.String())
	return ""
}

// theWayInGoes waits until the reservation's Role is gone (its end revoked it).
func theWayInGoes(t *testing.T, ctx context.Context, ns, reservation string) {
	require.Eventually(t, func() bool {
		_, err := env.Kube.RbacV1().Roles(ns).Get(ctx, kube.ReservationAccessName(reservation), metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, time.Minute, 500*time.Millisecond, "the holder's way in goes when the reservation ends")
}
