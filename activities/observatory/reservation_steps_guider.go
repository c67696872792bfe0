// The guider's steps: StartGuider runs PHD2 for the telescope's Guider (its ConfigMap with
// the profile, its pod beside the telescope's server, its Service), and StopGuider removes
// them. PHD2 is told which camera and mount to use by its profile, and then, through its
// event server, to connect them (set_connected): the guider is ready only once both are.
package observatory

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// guiderConnected is what the summary says once PHD2 has its camera and mount connected.
const guiderConnected = "PHD2 connected its camera and mount"

func (a *Activities) startGuider(ctx context.Context, in StepInput) (StepResult, error) {
	s, err := a.readServer(ctx, in.Namespace, obsv1.KindTelescope, in.Telescope)
	if err != nil {
		return StepResult{}, err
	}
	if s.Guider == nil {
		return StepResult{Skipped: true, Summary: "no Guider for Telescope " + in.Telescope}, nil
	}
	gin, err := a.guiderInput(ctx, s)
	if err != nil {
		return StepResult{}, err
	}
	cm, err := kube.GuiderConfigMap(gin)
	if err != nil {
		return StepResult{}, stepFailed("%v", err)
	}
	svc, err := kube.GuiderService(gin)
	if err != nil {
		return StepResult{}, stepFailed("%v", err)
	}
	pod, err := kube.GuiderPod(gin)
	if err != nil {
		return StepResult{}, stepFailed("%v", err)
	}
	pod = kube.InRegistry(pod, a.ImageRegistry)
	if err := a.ensureConfigMap(ctx, cm); err != nil {
		return StepResult{}, err
	}
	if err := a.ensureService(ctx, svc); err != nil {
		return StepResult{}, err
	}
	// The pod carries a digest of its profile: a changed profile makes it stale, and
	// ensurePod replaces it.
	if err := a.ensurePod(ctx, pod); err != nil {
		return StepResult{}, err
	}
	id := kube.ResourceIDOf(obsv1.KindGuider, s.Guider)
	ep := obsv1.Endpoint{Service: svc.Name, Host: kube.ServerHost(svc.Name, in.Namespace), Port: kube.GuiderPort}
	if err := a.markGuider(ctx, id, pod.Name, ep, false); err != nil {
		return StepResult{}, err
	}
	if err := a.waitPodsReady(ctx, in.Namespace, []string{pod.Name}); err != nil {
		return StepResult{}, err
	}
	if err := a.connectGuider(ctx, s.Guider.Name, GuiderServer{Namespace: in.Namespace, Name: svc.Name}); err != nil {
		return StepResult{}, err
	}
	if err := a.markGuider(ctx, id, pod.Name, ep, true); err != nil {
		return StepResult{}, err
	}
	return StepResult{Summary: fmt.Sprintf("Started Guider %s (pod %s, camera %s, mount %s); %s",
		s.Guider.Name, pod.Name, gin.CameraDevice, guiderMount(gin), guiderConnected)}, nil
}

func guiderMount(in kube.GuiderInput) string {
	if in.Guider.Spec.Pulses == obsv1.PulsesCamera {
		return kube.PHD2OnCamera
	}
	return in.MountDevice
}

// guiderInput finds the Guider's camera (the Camera of its train) and the telescope's
// mount, by the INDI names Connect recorded, and the guide tube's focal length.
func (a *Activities) guiderInput(ctx context.Context, s stepServer) (kube.GuiderInput, error) {
	g := s.Guider
	in := kube.GuiderInput{Guider: g}
	var camera, mount *stepDevice
	for i, d := range s.Devices {
		switch {
		case d.Kind == obsv1.KindCamera && d.OpticalTrain == g.Spec.OpticalTrain && camera == nil:
			camera = &s.Devices[i]
		case d.Kind == obsv1.KindMount && mount == nil:
			mount = &s.Devices[i]
		}
	}
	if msg := kube.GuiderRefusal(g, camera != nil, mount != nil); msg != "" {
		return in, stepFailed("%s", msg)
	}
	need := []*stepDevice{camera}
	if mount != nil {
		need = append(need, mount)
	}
	names := map[*stepDevice]string{}
	for _, d := range need {
		if st := deviceStatusINDI(d.Object); st != "" {
			names[d] = st
		}
	}
	if len(names) < len(need) {
		// Not recorded (yet): ask the server, about what runs there.
		on, _, err := a.runningDevices(ctx, s)
		if err != nil {
			return in, err
		}
		c, err := a.dialServer(ctx, on)
		if err != nil {
			return in, err
		}
		defer c.Close()
		for _, d := range need {
			if names[d] != "" {
				continue
			}
			n, err := indiDevice(ctx, c, s, *d)
			if err != nil {
				return in, indiStepError(*d, err)
			}
			names[d] = n
		}
	}
	in.CameraDevice = names[camera]
	if mount != nil {
		in.MountDevice = names[mount]
	}
	if t := s.Trains[g.Spec.OpticalTrain]; t != nil && t.Spec.OpticalTube != "" {
		obj, err := a.getTyped(ctx, obsv1.KindOpticalTube, s.Owner.Namespace, t.Spec.OpticalTube)
		if err != nil {
			return in, err
		}
		if tube, ok := obj.(*obsv1.OpticalTube); ok && tube != nil {
			in.FocalLength = tube.Spec.FocalLength
		}
	}
	return in, nil
}

// deviceStatusINDI is a device's status.indiDevice.
func deviceStatusINDI(obj runtime.Object) string {
	switch o := obj.(type) {
	case *obsv1.Camera:
		return o.Status.IndiDevice
	case *obsv1.Mount:
		return o.Status.IndiDevice
	}
	return ""
}

// ensureConfigMap creates or adopts the ConfigMap, and brings the one there to the data
// wanted.
func (a *Activities) ensureConfigMap(ctx context.Context, want *corev1.ConfigMap) error {
	cms := a.Kube.CoreV1().ConfigMaps(want.Namespace)
	return ensureObject(ctx, cms, "ConfigMap", want, func(ctx context.Context, cur *corev1.ConfigMap) (adoption, error) {
		if maps.Equal(cur.Data, want.Data) {
			return adopted, nil
		}
		up := cur.DeepCopy()
		up.Data, up.Labels = want.Data, want.Labels
		_, err := cms.Update(ctx, up, metav1.UpdateOptions{FieldManager: observatoryFieldManager})
		if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return adopted, err
		}
		return lookAgain, nil
	})
}

func (a *Activities) stopGuider(ctx context.Context, in StepInput) (StepResult, error) {
	server := kube.ServerName(obsv1.KindTelescope, in.Telescope)
	st, err := a.stopObjects(ctx, stopSelector{Namespace: in.Namespace, Server: server, Role: kube.RoleGuider})
	if err != nil {
		return StepResult{}, err
	}
	if len(st.Resources) == 0 {
		return StepResult{Skipped: true, Summary: "no guider of Telescope " + in.Telescope + " runs"}, nil
	}
	for _, r := range st.Resources {
		err := a.writeGuider(ctx, r, func(st obsv1.GuiderStatus, gen int64) obsv1.GuiderStatus {
			return kube.StoppedGuiderStatus(st, gen, a.now())
		})
		if err != nil {
			return StepResult{}, err
		}
	}
	return StepResult{Summary: "Stopped " + resourceLabels(st.Resources)}, nil
}

// markGuider writes where the Guider's PHD2 runs, and whether it has connected its camera
// and mount, with the Event of its Ready condition's transition.
func (a *Activities) markGuider(ctx context.Context, id kube.ResourceID, pod string, ep obsv1.Endpoint, connected bool) error {
	p, err := a.Kube.CoreV1().Pods(id.Namespace).Get(ctx, pod, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("read the pod %s/%s: %w", id.Namespace, pod, err)
	}
	node := ""
	if err == nil {
		node = p.Spec.NodeName
	}
	return a.writeGuider(ctx, id, func(st obsv1.GuiderStatus, gen int64) obsv1.GuiderStatus {
		return kube.StartedGuiderStatus(st, pod, node, ep, connected, gen, a.now())
	})
}

// writeGuider writes a Guider's status as change makes it, and posts the Event of its Ready
// condition's transition.
func (a *Activities) writeGuider(ctx context.Context, id kube.ResourceID, change func(obsv1.GuiderStatus, int64) obsv1.GuiderStatus) error {
	w, err := writeStatus(ctx, a, id, nil, func(st obsv1.GuiderStatus, m metav1.Object) obsv1.GuiderStatus {
		return change(st, m.GetGeneration())
	})
	if err == nil && w.wrote {
		for _, e := range kube.ConditionEvents(w.before.Conditions, w.after.Conditions, obsv1.ConditionReady) {
			a.postObsEvent(ctx, w.id, e)
		}
	}
	return err
}
