// Tests of stopping a server's objects: a device keeps its deactivate finalizer while another
// server still runs it, against the real API server.
package observatory

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TestADeviceKeepsItsFinalizerWhileAnotherServerStillRunsIt: a device's finalizer goes
// only once no held server runs it, so stopping one of two servers that run the same Mount
// leaves it on, and stopping the second takes it off.
func TestADeviceKeepsItsFinalizerWhileAnotherServerStillRunsIt(t *testing.T) {
	ctx := testContext(t)
	ns := observatoryNamespace(t, "stop-elsewhere")
	createLab(t, ns)
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "north", Finalizers: []string{kube.FinalizerDeactivate}},
		Spec:       obsv1.MountSpec{DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}},
	})
	mount := kube.ResourceID{Kind: obsv1.KindMount, Namespace: ns, Name: "north"}
	for _, server := range []string{"east-telescope", "west-telescope"} {
		name := "north-mount-" + server
		_, err := env.Kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: kube.ObjectLabels(name, kube.RoleDevice, server, mount)},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "driver", Image: "example.com/driver"}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	a := newActivities()

	_, err := a.stopObjects(ctx, stopSelector{Namespace: ns, Server: "east-telescope", Role: kube.RoleDevice})
	require.NoError(t, err)
	require.True(t, hasDeactivateFinalizer(t, ns, obsv1.KindMount, "north"), "west-telescope still runs the Mount")

	_, err = a.stopObjects(ctx, stopSelector{Namespace: ns, Server: "west-telescope", Role: kube.RoleDevice})
	require.NoError(t, err)
	require.False(t, hasDeactivateFinalizer(t, ns, obsv1.KindMount, "north"), "no server runs the Mount any more")
}
