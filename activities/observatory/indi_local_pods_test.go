// The dev-mode stand-ins follow their pods on the real API server: a deleted server pod
// stops its local indiserver, and the next one of that name listens where the first did.
package observatory

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi/indiserver"
	"liken.sh/runner/kube"
)

// serverPod creates the pod of an INDI server, labelled as its (kwok runs nothing of it); a
// site's is named as its StatefulSet's.
func serverPod(t *testing.T, ns, server string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: kube.ServerPodName(server), Namespace: ns,
			Labels: map[string]string{kube.LabelRole: string(kube.RoleServer), kube.LabelServer: server}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "indiserver", Image: "ghcr.io/liken-sh/indi"}}},
	}
	_, err := env.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	require.NoError(t, err)
}

func deleteServerPod(t *testing.T, ns, server string) {
	t.Helper()
	require.NoError(t, env.Kube.CoreV1().Pods(ns).Delete(context.Background(), kube.ServerPodName(server), *metav1.NewDeleteOptions(0)))
}

func TestALocalServerStopsWhenItsPodIsDeletedAndComesBackWhereItWas(t *testing.T) {
	const ns = "dev-follow"
	env.EnsureNamespace(t, ns)
	ctx := testContext(t)
	dir := t.TempDir()
	tel := INDIServer{Namespace: ns, Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}}
	site := INDIServer{Namespace: ns, Name: "lab-observatory", Drivers: []string{"indi_simulator_dome"}}

	// A worker that dies leaves the site's server running; its pod goes while no worker runs.
	first := &LocalINDI{Dir: dir}
	serverPod(t, ns, site.Name)
	siteAddr, err := first.Address(ctx, site)
	require.NoError(t, err)
	deleteServerPod(t, ns, site.Name)

	l := &LocalINDI{Dir: dir}
	t.Cleanup(func() { l.Close() })
	fctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	require.NoError(t, l.FollowPods(fctx, env.Kube, slog.Default()))
	assert.True(t, localRefused(siteAddr), "the stand-in of a pod deleted while no worker ran stopped when the next one started")

	serverPod(t, ns, tel.Name)
	addr, err := l.Address(ctx, tel)
	require.NoError(t, err)
	got, ok := l.Lookup(ns, tel.Name)
	require.True(t, ok)
	assert.Equal(t, addr, got)
	pid := l.servers[ns+"/"+tel.Name].srv.Pid

	deleteServerPod(t, ns, tel.Name)
	require.Eventually(t, func() bool { return localRefused(addr) }, 20*time.Second, 50*time.Millisecond,
		"the stand-in stops when its pod is deleted")
	_, ok = l.Lookup(ns, tel.Name)
	assert.False(t, ok)
	srv, err := indiserver.Attach(addr, "", pid)
	assert.Error(t, err, "indiserver %d is gone, not just silent: %v", pid, srv)

	// The pod comes back (a heal): its stand-in listens where the person was told.
	require.Eventually(t, func() bool {
		_, err := env.Kube.CoreV1().Pods(ns).Get(ctx, tel.Name, metav1.GetOptions{})
		return err != nil
	}, 20*time.Second, 50*time.Millisecond)
	serverPod(t, ns, tel.Name)
	again, err := l.Address(ctx, tel)
	require.NoError(t, err)
	assert.Equal(t, addr, again, "the server started again on its port")
	devicesAt(t, again, "Telescope Simulator")
}
