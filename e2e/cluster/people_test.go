// The people side on the installed runner: the worker pod paints initials, and a claim://
// picture is baked by a real baker pod in a namespace that enforces the restricted standard.
package cluster

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// TestAPersonGetsInitialsAndAClaimPictureIsBakedByARealBakerPod: the worker pod paints
// initials; a claim:// picture on a volume of the node is read by a baker pod of the
// runner's image, in a namespace that enforces the restricted standard.
func TestAPersonGetsInitialsAndAClaimPictureIsBakedByARealBakerPod(t *testing.T) {
	install(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const ns, claim = "pictures", "photos"
	_, err := env.Kube.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: restricted}}, metav1.CreateOptions{})
	require.NoError(t, err)
	dir := hostPathVolume(t, ctx, "pictures-photos", ns, claim, 1, 0)
	var b bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	img.Set(1, 1, color.Black)
	require.NoError(t, png.Encode(&b, img))
	// Readable by others: the baker runs as nobody.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "grace.png"), b.Bytes(), 0o644))
	_, err = env.Kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claim},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadOnlyMany},
			StorageClassName: ptr.To(""),
			VolumeName:       "pictures-photos",
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	people := env.Dynamic.Resource(peoplev1.SchemeGroupVersion.WithResource("people"))
	for name, avatar := range map[string]string{"ada": "", "grace": "claim://" + ns + "/" + claim + "/grace.png"} {
		p := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": peoplev1.SchemeGroupVersion.String(), "kind": "Person",
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"displayName": name + " Example", "avatar": avatar},
		}}
		if avatar == "" {
			delete(p.Object["spec"].(map[string]any), "avatar")
		}
		_, err := people.Create(ctx, p, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { people.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	for name, reason := range map[string]string{"ada": "Initials", "grace": "Baked"} {
		var got string
		require.Eventually(t, func() bool {
			u, err := people.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false
			}
			var p peoplev1.Person
			if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p) != nil {
				return false
			}
			for _, c := range p.Status.Conditions {
				if c.Type == "AvatarReady" {
					got = string(c.Status) + "/" + c.Reason + ": " + c.Message
					return c.Status == "True" && c.Reason == reason && p.Status.Thumbnail != ""
				}
			}
			return false
		}, 2*time.Minute, 200*time.Millisecond, "Person %s: AvatarReady True/%s (last: %s)", name, reason, got)
	}
	// The baker pod ran for real: its container exited 0 on the node, and it is gone after.
	require.Eventually(t, func() bool {
		pods, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "people.liken.sh/baker"})
		return err == nil && len(pods.Items) == 0
	}, time.Minute, 200*time.Millisecond, "the baker pod is deleted after use")
	events, err := env.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=avatar-grace"})
	require.NoError(t, err)
	started := false
	for _, e := range events.Items {
		started = started || e.Reason == "Started"
	}
	require.True(t, started, "the kubelet started the baker's container (events: %v)", events.Items)
}
