// Bringing a server and its devices up: the server's pod (a site's StatefulSet) and Service,
// then each device's claim, config claim, Service and pod, built by kube's pure builders and
// created or adopted (shared.go), then every pod Ready. What a server runs is
// reservation_objects.go's; stopping is reservation_stop.go's.
package observatory

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// startServer creates or adopts the server's pod (a site's, its StatefulSet) and Service, its
// drivers annotation listing every device's Service.
func (a *Activities) startServer(ctx context.Context, s stepServer) error {
	pod, err := kube.ServerPod(s.Owner, s.services())
	if err != nil {
		return stepFailed("%v", err)
	}
	pod = kube.InRegistry(pod, a.ImageRegistry)
	svc, err := kube.ServerService(s.Owner)
	if err != nil {
		return stepFailed("%v", err)
	}
	if err := a.ensureService(ctx, svc); err != nil {
		return err
	}
	if s.Owner.Kind == obsv1.KindObservatory {
		return a.ensureSiteServer(ctx, pod)
	}
	return a.ensurePod(ctx, pod)
}

// startDevicePods adds each device's finalizer, then creates or adopts its claim, Service and
// pod; a device deleted meanwhile is left out.
func (a *Activities) startDevicePods(ctx context.Context, s stepServer, devices []stepDevice) ([]stepDevice, error) {
	objs, err := buildDevices(s, devices, a.ImageRegistry)
	if err != nil {
		return nil, err
	}
	var started []stepDevice
	for i, d := range devices {
		pod, svc, claim := objs[i].pod, objs[i].svc, objs[i].claim
		fin, err := a.patchFinalizers(ctx, FinalizerRef{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, UID: string(d.UID)}, true)
		if err != nil {
			return started, err
		}
		if fin.Gone || fin.Deleting {
			continue
		}
		if claim != nil {
			if err := a.ensureClaim(ctx, claim); err != nil {
				return started, err
			}
		}
		if cfg := objs[i].config; cfg != nil {
			if err := a.ensureConfigClaim(ctx, cfg); err != nil {
				return started, err
			}
		}
		if err := a.ensureService(ctx, svc); err != nil {
			return started, err
		}
		if err := a.ensurePod(ctx, pod); err != nil {
			return started, err
		}
		if err := a.markStarting(ctx, d, deviceRun(d, pod)); err != nil {
			return started, err
		}
		started = append(started, d)
	}
	return started, nil
}

// deviceObjects are what a device runs as.
type deviceObjects struct {
	pod   *corev1.Pod
	svc   *corev1.Service
	claim *resourcev1.ResourceClaim
	// config keeps the driver's saved configuration (spec.config), from pod to pod.
	config *corev1.PersistentVolumeClaim
}

// deviceRun is where the device's pod runs the driver, as its status shows it.
func deviceRun(d stepDevice, pod *corev1.Pod) kube.DeviceRun {
	run := kube.DeviceRun{Pod: pod.Name, Node: pod.Spec.NodeName, Driver: d.Spec.Driver.Name}
	if len(pod.Spec.Containers) > 0 {
		run.Image = pod.Spec.Containers[0].Image
	}
	return run
}

// buildDevices builds every device's objects; checkServer has refused what they cannot be
// built from, so a failure here is a check this forgot. The pods pull the runner's images
// from registry (kube.InRegistry).
func buildDevices(s stepServer, devices []stepDevice, registry string) ([]deviceObjects, error) {
	out := make([]deviceObjects, len(devices))
	for i, d := range devices {
		var err error
		if out[i].pod, err = kube.DevicePod(d.DeviceRef, s.Name, s.Guider); err != nil {
			return nil, stepFailed("%v", err)
		}
		out[i].pod = kube.InRegistry(out[i].pod, registry)
		if out[i].svc, err = kube.DeviceService(d.DeviceRef, s.Name); err != nil {
			return nil, stepFailed("%v", err)
		}
		if out[i].claim, err = kube.DeviceResourceClaim(d.DeviceRef, s.Name); err != nil {
			return nil, stepFailed("%v", err)
		}
		if out[i].config, err = kube.DeviceConfigClaim(d.DeviceRef, s.Name); err != nil {
			return nil, stepFailed("%v", err)
		}
	}
	return out, nil
}

// waitPodsReady waits until every named pod is Ready; a wait that ends first says where the
// pod stood (kube.PodReady).
func (a *Activities) waitPodsReady(ctx context.Context, ns string, names []string) error {
	for _, name := range names {
		stands := "not created"
		err := waitUntil(ctx, "pod "+name+" Ready", func(ctx context.Context) (bool, error) {
			p, err := a.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			if err != nil {
				return false, fmt.Errorf("read the pod %s/%s: %w", ns, name, err)
			}
			var ready bool
			ready, stands = kube.PodReady(p)
			return ready, nil
		})
		if err != nil {
			return fmt.Errorf("%w (the pod: %s)", err, stands)
		}
	}
	return nil
}

func resourceLabels(rs []kube.ResourceID) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = string(r.Kind) + " " + r.Name
	}
	return strings.Join(names, ", ")
}

// bringUp is the object part of StartSite, PowerOn and StartDevices: the server, then the
// chosen devices, then both Ready.
func (a *Activities) bringUp(ctx context.Context, s stepServer, devices []stepDevice) ([]stepDevice, error) {
	if err := a.checkServer(ctx, s, devices); err != nil {
		return nil, err
	}
	if err := a.startServer(ctx, s); err != nil {
		return nil, err
	}
	started, err := a.startDevicePods(ctx, s, devices)
	if err != nil {
		return started, err
	}
	names := []string{kube.ServerPodName(s.Name)}
	for _, d := range started {
		names = append(names, d.Pod)
	}
	if err := a.waitPodsReady(ctx, s.Owner.Namespace, names); err != nil {
		return started, err
	}
	// Each device's status names the node its pod runs on.
	for _, d := range started {
		pod, err := a.Kube.CoreV1().Pods(d.Namespace).Get(ctx, d.Pod, metav1.GetOptions{})
		if err != nil {
			return started, fmt.Errorf("read the pod %s/%s: %w", d.Namespace, d.Pod, err)
		}
		if err := a.markStarting(ctx, d, deviceRun(d, pod)); err != nil {
			return started, err
		}
	}
	return started, nil
}
