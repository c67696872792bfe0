// deploy/devices: the nodes' DRA driver holds only what it serves. It is the one workload
// outside the restricted level (its namespace is privileged): the node's /dev read-only, the
// kubelet's plugin folders and the CDI folder, as root without privilege or capabilities; and
// it answers probes and is pinned like the runner's image.
package deploy_test

import (
	"path/filepath"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

const devicesDriver = "serial-devices"

func TestTheDRADriverHoldsOnlyWhatItServes(t *testing.T) {
	ctx := timeout(t)
	objs := render(t, ctx, "deploy/")
	var ds appsv1.DaemonSet
	findObject(t, objs, "DaemonSet", devicesDriver, &ds)
	var ns corev1.Namespace
	findObject(t, objs, "Namespace", ds.Namespace, &ns)
	if ds.Namespace == operatorNamespace || ns.Labels["pod-security.kubernetes.io/enforce"] != "privileged" {
		t.Errorf("the driver runs in %s (labels %v); want a namespace of its own at the privileged level", ds.Namespace, ns.Labels)
	}
	pod := ds.Spec.Template.Spec
	hostPaths := map[string]bool{}
	for _, v := range pod.Volumes {
		if v.HostPath == nil {
			t.Errorf("volume %s is not a folder of the node", v.Name)
			continue
		}
		hostPaths[v.HostPath.Path] = true
	}
	want := []string{"/dev", "/var/lib/kubelet/plugins_registry", "/var/lib/kubelet/plugins", "/var/run/cdi"}
	if len(hostPaths) != len(want) {
		t.Errorf("the driver mounts %v of the node; want only %v", hostPaths, want)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	for _, m := range c.VolumeMounts {
		v := pod.Volumes[slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })]
		if !slices.Contains(want, v.HostPath.Path) {
			t.Errorf("mount %s is of %s", m.Name, v.HostPath.Path)
		}
		// The kubelet dials the socket the driver names, and the runtime reads the node's paths.
		if m.MountPath != v.HostPath.Path {
			t.Errorf("mount %s is at %s, not at the node's path %s", m.Name, m.MountPath, v.HostPath.Path)
		}
		if v.HostPath.Path == "/dev" && !m.ReadOnly {
			t.Error("the node's /dev is mounted writable")
		}
	}
	sc := c.SecurityContext
	if sc == nil || sc.Privileged != nil && *sc.Privileged || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("the driver's security context %+v; want no privilege, escalation or capability, and a read-only root", sc)
	}
	if filepath.Dir(c.TerminationMessagePath) == "/dev" {
		t.Errorf("the termination message is under the node's /dev: %s", c.TerminationMessagePath)
	}
	checkResources(t, "DaemonSet "+devicesDriver, c)
	checkHealthProbes(t, "DaemonSet "+devicesDriver, c)
}
