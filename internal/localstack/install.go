// Installing deploy/ on the real node, as a user installs it on a cluster: the runner's
// image pinned by a kustomization's images: entry, the bundled Temporal's claim bound to a
// folder on the node (the node has no storage provisioner), and every rollout waited for.
// The tests of e2e/cluster and `make run` with the real node install it this way.
package localstack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"liken.sh/runner/build/images"
)

// OperatorNamespace is where deploy/ puts the runner, and DevicesNamespace its DRA driver.
const (
	OperatorNamespace = "liken-system"
	DevicesNamespace  = "liken-devices"
)

// Deployments are deploy/'s, in the order they are waited for.
var Deployments = []string{"temporal", "liken-worker-main", "people-operator", "observatory-operator"}

// Install applies deploy/ of the checkout at root with the runner's image tagged tag (the
// images must be in the registry already), after making its namespace with labels (such as the
// Pod Security Standard to enforce), and waits for every rollout.
func (s *Stack) Install(ctx context.Context, root, tag string, labels map[string]string) error {
	kube, err := s.Client()
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: OperatorNamespace, Labels: labels}}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if _, err := s.Node.HostPathVolume(ctx, kube, "temporal-data", OperatorNamespace, "temporal-data", 2, 1000); err != nil {
		return err
	}
	dir, err := mkdir(s.opts.Dir, "install")
	if err != nil {
		return err
	}
	// kustomize takes a base by a relative path only.
	base, err := filepath.Rel(dir, filepath.Join(root, "deploy"))
	if err != nil {
		return err
	}
	k := fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - %s\n"+
		"images:\n  - name: %s\n    newTag: %s\n  - name: %s\n    newTag: %s\n", base, images.RunnerRepository, tag, images.DevicesRepository, tag)
	k += devicesPatch(s.Node.Dir)
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		return err
	}
	if out, err := s.Kubectl(ctx, "apply", "--server-side", "-k", dir); err != nil {
		return fmt.Errorf("apply deploy/: %w\n%s", err, out)
	}
	for _, d := range Deployments {
		if out, err := s.Kubectl(ctx, "-n", OperatorNamespace, "rollout", "status", "deployment/"+d, "--timeout=180s"); err != nil {
			return fmt.Errorf("the rollout of %s: %w\n%s", d, err, out)
		}
	}
	if out, err := s.Kubectl(ctx, "-n", DevicesNamespace, "rollout", "status", "daemonset/serial-devices", "--timeout=180s"); err != nil {
		return fmt.Errorf("the rollout of the DRA driver: %w\n%s", err, out)
	}
	return nil
}

// devicesPatch points deploy/devices' driver at the node's folders: the kubelet's plugin
// folders under its root, the CDI folder containerd reads, and the test world's serial links
// and /sys in place of the machine's. The test ops make a reordered DaemonSet fail here
// instead of mounting the wrong folder.
func devicesPatch(r string) string {
	const spec = "/spec/template/spec"
	var ops []string
	op := func(kind, path, value string) {
		ops = append(ops, fmt.Sprintf("      - {op: %s, path: %s, value: %q}", kind, path, value))
	}
	for i, v := range []struct{ name, path string }{
		{"plugins-registry", filepath.Join(kubeletRoot(r), "plugins_registry")},
		{"plugins", filepath.Join(kubeletRoot(r), "plugins")},
		{"cdi", cdiDir(r)},
	} {
		op("test", fmt.Sprintf("%s/volumes/%d/name", spec, i+1), v.name)
		op("replace", fmt.Sprintf("%s/volumes/%d/hostPath/path", spec, i+1), v.path)
		op("test", fmt.Sprintf("%s/containers/0/volumeMounts/%d/name", spec, i+1), v.name)
		op("replace", fmt.Sprintf("%s/containers/0/volumeMounts/%d/mountPath", spec, i+1), v.path)
	}
	devices := filepath.Dir(serialByID(r))
	ops = append(ops,
		fmt.Sprintf("      - {op: add, path: %s/volumes/-, value: {name: test-devices, hostPath: {path: %q, type: Directory}}}", spec, devices),
		fmt.Sprintf("      - {op: add, path: %s/containers/0/volumeMounts/-, value: {name: test-devices, mountPath: %q, readOnly: true}}", spec, devices),
		fmt.Sprintf("      - {op: replace, path: %s/containers/0/args, value: [%q, %q, %q, %q]}", spec,
			"--kubelet-dir="+kubeletRoot(r), "--cdi-dir="+cdiDir(r), "--by-id="+serialByID(r), "--sys="+devicesSys(r)))
	return "patches:\n  - target: {kind: DaemonSet, name: serial-devices}\n    patch: |-\n" + strings.Join(ops, "\n") + "\n"
}

// Kubectl runs the cache's kubectl against the stack.
func (s *Stack) Kubectl(ctx context.Context, args ...string) (string, error) {
	kubectl := filepath.Join(s.opts.Cache, "kube-"+KubeVersion, "kubectl")
	out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig=" + s.Kubeconfig}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// Client is the admin's client of the stack's API server.
func (s *Stack) Client() (kubernetes.Interface, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// HostPathVolume makes a PersistentVolume of a new folder on the node, owned by uid and
// bound to the claim ns/claim, and returns the folder. It goes with the node.
func (n *Node) HostPathVolume(ctx context.Context, kube kubernetes.Interface, name, ns, claim string, gi int64, uid int) (string, error) {
	dir := filepath.Join(n.Dir, "volumes", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Chown(dir, uid, uid); err != nil {
		return "", err
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
	_, err := kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	return dir, err
}
