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

// OperatorNamespace is where deploy/ puts the runner.
const OperatorNamespace = "liken-system"

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
		"images:\n  - name: %s\n    newTag: %s\n", base, images.RunnerRepository, tag)
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
	return nil
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
