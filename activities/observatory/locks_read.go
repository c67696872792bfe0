// What a relay of the locks reads: each telescope's server with its mounts, and which of them
// run. A relay of the whole site reads every telescope of it in three LISTs (its Telescopes,
// the namespace's Mounts and pods) rather than a whole server read per telescope, so a relay
// costs the API server the same few requests at twenty telescopes as at one.
package observatory

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// mountServer is a telescope's server as a relay sees it: every mount of the telescope (a
// mount that does not run is silent), and the server with only the mounts that run.
type mountServer struct {
	telescope string
	mounts    []stepDevice
	on        stepServer
	runs      bool // the server pod exists
}

// readMountServer reads one telescope's mountServer.
func (a *Activities) readMountServer(ctx context.Context, ns, telescope string) (mountServer, error) {
	s, err := a.readServer(ctx, ns, obsv1.KindTelescope, telescope)
	if err != nil {
		return mountServer{}, err
	}
	s.Devices = only(s.Devices, func(d stepDevice) bool { return d.Kind == obsv1.KindMount })
	m := mountServer{telescope: telescope, mounts: s.Devices}
	if len(m.mounts) > 0 {
		m.on, m.runs, err = a.runningDevices(ctx, s)
	}
	return m, err
}

// readSiteMountServers reads the mountServer of every Telescope of the observatory, in the
// Telescopes' order.
func (a *Activities) readSiteMountServers(ctx context.Context, ns, observatory string) ([]mountServer, error) {
	tels, err := a.listTypedWhere(ctx, obsv1.KindTelescope, ns, [][2]string{{fieldObservatory, observatory}})
	if err != nil {
		return nil, err
	}
	mounts, err := a.listTyped(ctx, obsv1.KindMount, ns)
	if err != nil {
		return nil, err
	}
	pods, err := a.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list the pods of %s: %w", ns, err)
	}
	var out []mountServer
	for _, o := range tels {
		if tel := o.(*obsv1.Telescope); tel.Spec.Observatory == observatory {
			out = append(out, telescopeMountServer(tel, mounts, pods.Items))
		}
	}
	return out, nil
}

// telescopeMountServer is tel's mountServer from the namespace's mounts and pods, as
// readMountServer reads it.
func telescopeMountServer(tel *obsv1.Telescope, mounts []runtime.Object, pods []corev1.Pod) mountServer {
	s := stepServer{Owner: kube.ResourceID{Kind: obsv1.KindTelescope, Namespace: tel.Namespace, Name: tel.Name, UID: tel.UID},
		Name: kube.ServerName(obsv1.KindTelescope, tel.Name)}
	for _, o := range mounts {
		d, err := kube.DeviceRefOf(o)
		if err != nil || d.Telescope != tel.Name || o.(metav1.Object).GetDeletionTimestamp() != nil {
			continue
		}
		sd := stepDevice{DeviceRef: d, Object: o}
		if sd.Pod, err = kube.ValidObjectName(d.Kind, d.Name); err != nil {
			sd.Pod = "" // refused: it runs no driver
		}
		s.Devices = append(s.Devices, sd)
	}
	m := mountServer{telescope: tel.Name, mounts: s.Devices}
	if i := slices.IndexFunc(pods, func(p corev1.Pod) bool { return p.Name == s.Name }); i >= 0 && len(s.Devices) > 0 {
		m.on, m.runs = runningOn(s, &pods[i], pods), true
	}
	return m
}

// runningDevices is s with only the devices that run (runningOn); runs is false when the
// server pod does not run, and s is then as it was.
func (a *Activities) runningDevices(ctx context.Context, s stepServer) (_ stepServer, runs bool, _ error) {
	pods := a.Kube.CoreV1().Pods(s.Owner.Namespace)
	pod, err := pods.Get(ctx, s.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return s, false, nil
	}
	if err != nil {
		return s, false, fmt.Errorf("read the pod %s: %w", s.Name, err)
	}
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: kube.LabelServer + "=" + s.Name + "," + kube.LabelRole + "=" + string(kube.RoleDevice)})
	if err != nil {
		return s, false, fmt.Errorf("list the device pods of %s: %w", s.Name, err)
	}
	return runningOn(s, pod, list.Items), true, nil
}

// runningOn is s with only the devices that run: those the server pod links (its drivers
// annotation) whose own device pod of that server exists. One whose pod was never created
// (its step failed first) runs no driver, and nothing waits for it.
func runningOn(s stepServer, server *corev1.Pod, pods []corev1.Pod) stepServer {
	linked := kube.LinkedServices(server.Annotations[kube.AnnotationDrivers])
	s.Devices = only(s.Devices, func(d stepDevice) bool {
		return slices.Contains(linked, d.Pod) && slices.ContainsFunc(pods, func(p corev1.Pod) bool {
			return p.Name == d.Pod && p.Labels[kube.LabelServer] == s.Name && p.Labels[kube.LabelRole] == string(kube.RoleDevice)
		})
	})
	return s
}
