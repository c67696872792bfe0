// A worker killed while its baker pod runs: the next worker adopts the pod instead of starting
// another, and the Person gets its baked picture with no pod left.
package faults

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/internal/localstack/bakerkubelet"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures/avatar"
)

// TestAWorkerKilledWhileItsBakerPodRunsIsFollowedByOneThatAdoptsIt kills the worker while
// its baker pod for a claim:// picture runs (the test kubelet holds the container until
// then). Once the activity's heartbeat lapses, the other worker takes the bake over and
// adopts the pod instead of starting another: the Person gets the baked picture, one baker
// pod was ever created, and none is left.
func TestAWorkerKilledWhileItsBakerPodRunsIsFollowedByOneThatAdoptsIt(t *testing.T) {
	ctx := timeout(t, 4*time.Minute)
	deletePeopleAtEnd(t)
	s := newSystem(t)
	k, err := bakerkubelet.Start(bakerkubelet.Options{
		Kube: env.Kube, Port: env.Stack.KubeletPort, Node: localstack.NodeName, Volumes: t.TempDir(), Worker: s.worker,
		// The pod's container waits until the first worker is dead, so the kill lands mid-bake.
		Held: true,
	})
	require.NoError(t, err)
	t.Cleanup(k.Stop)
	ns := "bake-" + strings.TrimPrefix(s.queue, "faults-")
	env.BoundClaim(t, ns, "pictures")
	img := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	file := filepath.Join(k.ClaimDir(ns, "pictures"), "people", "ada.png")
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))

	s.startWatcher("people").WaitReady()
	bakerImage := "LIKEN_BAKER_IMAGE=example.com/liken/worker:test"
	doomed := s.startWorker(bakerImage)
	name := "baked-" + strings.TrimPrefix(s.queue, "faults-")
	u := person(name, "Ada Lovelace")
	u.Object["spec"].(map[string]any)["avatar"] = "claim://" + ns + "/pictures/people/ada.png"
	_, err = env.Dynamic.Resource(peoplev1.PersonResource).Create(ctx, u, metav1.CreateOptions{})
	require.NoError(t, err)

	// Every baker pod of the Person that ever exists, by UID.
	seen := map[types.UID]bool{}
	look := func() int {
		pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelBaker + "=" + kube.BakerLabelValue})
		if err == nil {
			for _, p := range pods.Items {
				seen[p.UID] = true
			}
			return len(pods.Items)
		}
		return 0
	}
	eventually(t, 2*time.Minute, "the worker created its baker pod", func() (bool, string) { return look() > 0, "no pod yet" })
	doomed.Kill()
	s.startWorker(bakerImage)
	k.Release()

	eventually(t, 2*time.Minute, "the Person got its baked picture", func() (bool, string) {
		look()
		p, err := getPerson(ctx, name)
		if err != nil {
			return false, err.Error()
		}
		for _, c := range p.Status.Conditions {
			if c.Type == peoplev1.ConditionAvatarReady {
				return c.Reason == avatar.ReasonBaked && !avatar.IsInitials(p.Status.Thumbnail), c.Reason + ": " + c.Message
			}
		}
		return false, "no AvatarReady condition"
	})
	eventually(t, time.Minute, "no baker pod is left", func() (bool, string) {
		n := look()
		return n == 0, fmt.Sprintf("%d left", n)
	})
	require.Len(t, seen, 1, "one baker pod was ever created: the second worker adopted it")
}
