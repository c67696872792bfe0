// A bound PersistentVolumeClaim for the tests that read a picture or a file from a claim
// (claim:// sources, baker pods): the real control plane has no storage provisioner, so the
// volume is made by hand and bound to the claim at once.
package testenv

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// BoundClaim makes the claim ns/name (and its namespace), bound to a volume whose source is
// never mounted: the test kubelet (internal/localstack/bakerkubelet) stands a folder in for it. It
// returns once the claim is bound and the namespace has the default ServiceAccount a pod
// needs (the controller manager makes it, later than usual after a paused API server).
func (e *Env) BoundClaim(t testing.TB, ns, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e.EnsureNamespace(t, ns)
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeSource: corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs.invalid", Path: "/" + name}},
			ClaimRef:               &corev1.ObjectReference{Namespace: ns, Name: name},
		},
	}
	if _, err := e.Kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create the volume %s: %v", pv.Name, err)
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: ptr.To(""),
			VolumeName:       pv.Name,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := e.Kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create the claim %s/%s: %v", ns, name, err)
	}
	for {
		c, err := e.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		_, saErr := e.Kube.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if err == nil && c.Status.Phase == corev1.ClaimBound && saErr == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the claim %s/%s was not bound, or its namespace had no default ServiceAccount, within a minute: %v, %v", ns, name, err, saErr)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
