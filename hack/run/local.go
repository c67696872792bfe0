// What makes the local stack a local observatory a person can use, beside the control plane
// and Temporal. kwok's pods run nothing, so: the worker runs in dev mode (each INDI server pod
// is stood in for by a local indiserver on 127.0.0.1, recorded in <dir>/indi, stopped with its
// pod); a kubelet for baker pods (internal/localstack/bakerkubelet) bakes claim:// pictures from folders
// of this machine, and the example claim is backed by such a folder with a picture in it; and
// the worker's LocalEndpoint Events are printed, so a person learns where a Ready
// reservation's INDI server answers.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	obsacts "liken.sh/runner/activities/observatory"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/internal/localstack/bakerkubelet"
)

// bakerImage names the baker pods' image; kwok pulls nothing, and the kubelet below runs the
// worker binary itself.
const bakerImage = "ghcr.io/liken-sh/people-operator:dev"

// The example claim (examples/pictures.yaml) and the picture on it.
const (
	claimNamespace = "people"
	claimName      = "portraits"
	pictureFile    = "grace.png"
)

// observatory is make run's local side, all under dir.
type observatory struct{ dir string }

func (o observatory) indiDir() string { return filepath.Join(o.dir, "indi") }
func (o observatory) volumes() string { return filepath.Join(o.dir, "volumes") }

// workerEnv runs the worker in dev mode (the stack points it at loopback.so, so its
// indiservers listen on 127.0.0.1 only).
func (o observatory) workerEnv() []string {
	return []string{
		"LIKEN_DEV_LOCAL_INDI=true",
		"LIKEN_DEV_LOCAL_INDI_DIR=" + o.indiDir(),
		"LIKEN_BAKER_IMAGE=" + bakerImage,
	}
}

// stopIndiservers stops the local indiservers recorded in dir: after the worker stopped (it
// stops its own, but not when it was killed), and before a new run wipes a folder that a
// killed run left.
func stopIndiservers(dir string) error {
	return (&obsacts.LocalINDI{Dir: observatory{dir}.indiDir()}).Close()
}

// backClaim makes the example claim a folder of this machine: a PersistentVolume bound to
// it ahead (its hostPath is the folder, which the kubelet below maps the claim to), and the
// example picture in the folder.
func (o observatory) backClaim(ctx context.Context, kube kubernetes.Interface) error {
	folder := filepath.Join(o.volumes(), claimNamespace, claimName)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return err
	}
	img, err := portrait(512)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(folder, pictureFile), img, 0o644); err != nil {
		return err
	}
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: claimNamespace + "-" + claimName},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("16Mi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: folder}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: claimNamespace, Name: claimName},
		},
	}
	_, err = kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// kubelet runs the baker pods of the fake node with the worker binary.
func (o observatory) kubelet(kube kubernetes.Interface, port int, worker string) (*bakerkubelet.Kubelet, error) {
	return bakerkubelet.Start(bakerkubelet.Options{Kube: kube, Port: port, Node: localstack.NodeName, Volumes: o.volumes(), Worker: worker})
}

// announce prints each LocalEndpoint Event the worker posts (a reservation turned Ready:
// where its INDI server answers on this machine) until ctx ends.
func announce(ctx context.Context, kube kubernetes.Interface, out io.Writer) {
	told := map[string]bool{}
	sel := fields.OneTermEqualSelector("reason", obsacts.ReasonLocalEndpoint).String()
	for ctx.Err() == nil {
		w, err := kube.CoreV1().Events(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for e := range w.ResultChan() {
			ev, ok := e.Object.(*corev1.Event)
			if !ok || e.Type == watch.Deleted {
				continue
			}
			key := ev.Namespace + "/" + ev.Name + "/" + ev.LastTimestamp.String()
			if told[key] {
				continue
			}
			told[key] = true
			fmt.Fprintf(out, "\n%s %s/%s is Ready. %s\n", ev.InvolvedObject.Kind, ev.Namespace, ev.InvolvedObject.Name, ev.Message)
		}
		w.Stop()
	}
}
