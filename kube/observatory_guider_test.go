// Tests of a Guider's objects: the PHD2 profile's equipment and server, the compositor as a
// native sidecar, PHD2's port and placement, and a pod that is replaced when its profile
// changes.
package kube

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func obsTGuiderInput(pulses obsv1.GuidePulses) GuiderInput {
	g := obsTGuider("east-guide")
	g.Spec.Pulses = pulses
	return GuiderInput{Guider: g, CameraDevice: "Guide Simulator", MountDevice: "Telescope Simulator", FocalLength: 239.6}
}

func TestTheProfileNamesTheGuideCameraTheMountAndTheTelescopesServer(t *testing.T) {
	for _, tc := range []struct {
		pulses obsv1.GuidePulses
		mount  string
	}{
		{obsv1.PulsesMount, "INDI Mount [Telescope Simulator]"},
		{"", "INDI Mount [Telescope Simulator]"},
		{obsv1.PulsesCamera, "On-camera"},
	} {
		p := GuiderProfile(obsTGuiderInput(tc.pulses))
		for _, want := range []string{
			"ConfigVersion=2001\n", "currentProfile=1\n", "ServerMode=1\n",
			"[profile/1]\nname=east-guider\n",
			"[profile/1/camera]\nLastMenuChoice=INDI Camera [Guide Simulator]\n",
			"[profile/1/frame]\nfocalLength=240\n",
			"INDIhost=east-telescope.observatory.svc\n", "INDIport=7624\n",
			"INDIcam=Guide Simulator\n", "INDIcam_ccd=0\n",
			"[profile/1/scope]\nLastMenuChoice=" + tc.mount + "\n",
		} {
			if !strings.Contains(p, want) {
				t.Errorf("pulses %q: the profile lacks %q:\n%s", tc.pulses, want, p)
			}
		}
		// Global entries must come before the first group, or PHD2 reads them as the
		// profile's.
		if strings.Index(p, "[") < strings.Index(p, "ServerMode") {
			t.Errorf("a global entry follows a group:\n%s", p)
		}
	}
}

func TestAProfileValueIsWrittenSoPHD2ReadsItBack(t *testing.T) {
	for in, want := range map[string]string{
		"CCD Simulator":   "CCD Simulator",
		`a\b "c"`:         `a\\b \"c\"`,
		"two\nlines":      `two\nlines`,
		" padded ":        `" padded "`,
		"INDI Camera [x]": "INDI Camera [x]",
	} {
		if got := obsINIValue(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestTheGuiderConfigMapHoldsTheProfileAndWestonIni(t *testing.T) {
	in := obsTGuiderInput(obsv1.PulsesMount)
	cm, err := GuiderConfigMap(in)
	if err != nil {
		t.Fatal(err)
	}
	id := ResourceID{Kind: obsv1.KindGuider, Namespace: "observatory", Name: "east", UID: "east-uid"}
	obsTCheckOwner(t, cm.Name, cm.OwnerReferences, id)
	if cm.Name != "east-guider" || cm.Namespace != "observatory" ||
		!reflect.DeepEqual(cm.Labels, ObjectLabels("east-guider", RoleGuider, "east-telescope", id)) {
		t.Errorf("ConfigMap %s/%s with labels %v", cm.Namespace, cm.Name, cm.Labels)
	}
	if len(cm.Data) != 2 || cm.Data["PHDGuidingV2"] != GuiderProfile(in) || !strings.Contains(cm.Data["weston.ini"], "backend=headless") {
		t.Errorf("ConfigMap data %v", cm.Data)
	}
}

func TestTheGuiderPodRunsPHD2AfterItsCompositorBesideTheServer(t *testing.T) {
	in := obsTGuiderInput(obsv1.PulsesMount)
	pod, err := GuiderPod(in)
	if err != nil {
		t.Fatal(err)
	}
	id := ResourceID{Kind: obsv1.KindGuider, Namespace: "observatory", Name: "east", UID: "east-uid"}
	obsTCheckPod(t, pod)
	obsTCheckOwner(t, pod.Name, pod.OwnerReferences, id)
	obsTCheckServerAffinity(t, "the guider pod", pod.Spec.Affinity)
	labels := ObjectLabels("east-guider", RoleGuider, "east-telescope", id)
	if pod.Name != "east-guider" || !reflect.DeepEqual(pod.Labels, labels) {
		t.Errorf("pod %s with labels %v", pod.Name, pod.Labels)
	}

	if len(pod.Spec.InitContainers) != 1 {
		t.Fatalf("%d init containers", len(pod.Spec.InitContainers))
	}
	w := pod.Spec.InitContainers[0]
	if w.Name != "compositor" || w.RestartPolicy == nil || *w.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		t.Errorf("the compositor %s is not a native sidecar", w.Name)
	}
	if !strings.Contains(strings.Join(w.Command, " "), "weston") || !strings.Contains(strings.Join(w.Command, " "), "--socket=wayland-0") {
		t.Errorf("the compositor runs %v", w.Command)
	}
	if p := w.StartupProbe; p == nil || p.Exec == nil || !slices.Equal(p.Exec.Command, []string{"wayland-info"}) ||
		p.PeriodSeconds != 1 || p.FailureThreshold != 30 {
		t.Errorf("the compositor's startup probe is %+v, want wayland-info every 1 s, 30 times", p)
	}

	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if c.Name != "phd2" || c.Image != "ghcr.io/liken-sh/indi-phd2:1.9.9" {
		t.Errorf("the guider runs %s from %s", c.Name, c.Image)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "events" || c.Ports[0].ContainerPort != 4400 {
		t.Errorf("ports %+v", c.Ports)
	}
	if p := c.ReadinessProbe; p == nil || p.TCPSocket == nil || p.TCPSocket.Port.StrVal != "events" {
		t.Errorf("readiness probe %+v, want TCP on events", p)
	}
	// Both containers find the same Wayland socket.
	env := func(c corev1.Container, name string) string {
		for _, e := range c.Env {
			if e.Name == name {
				return e.Value
			}
		}
		return ""
	}
	for _, name := range []string{"XDG_RUNTIME_DIR", "WAYLAND_DISPLAY"} {
		if env(w, name) == "" || env(w, name) != env(c, name) {
			t.Errorf("%s differs: %q and %q", name, env(w, name), env(c, name))
		}
	}

	svc, err := GuiderService(in)
	if err != nil {
		t.Fatal(err)
	}
	obsTCheckService(t, svc, "east-guider", labels, "events", 4400)
	obsTCheckOwner(t, svc.Name, svc.OwnerReferences, id)
}

func TestAProfileChangeReplacesTheGuiderPodAndNothingElseDoes(t *testing.T) {
	build := func(in GuiderInput) *corev1.Pod {
		t.Helper()
		pod, err := GuiderPod(in)
		if err != nil {
			t.Fatal(err)
		}
		return pod
	}
	base := obsTGuiderInput(obsv1.PulsesMount)
	was := build(base)
	again := obsTGuiderInput(obsv1.PulsesMount)
	again.Guider.UID = "another-uid"
	again.FocalLength = 240.4 // the same whole millimetres
	if PodIsStale(build(again), was) {
		t.Error("an equal profile made the pod stale")
	}
	for name, change := range map[string]func(*GuiderInput){
		"the camera":       func(in *GuiderInput) { in.CameraDevice = "CCD Simulator" },
		"the mount":        func(in *GuiderInput) { in.MountDevice = "EQMod Mount" },
		"the focal length": func(in *GuiderInput) { in.FocalLength = 400 },
		"the pulses":       func(in *GuiderInput) { in.Guider.Spec.Pulses = obsv1.PulsesCamera },
		"the telescope":    func(in *GuiderInput) { in.Guider.Spec.Telescope = "west" },
	} {
		in := obsTGuiderInput(obsv1.PulsesMount)
		change(&in)
		if !PodIsStale(build(in), was) {
			t.Errorf("a change of %s left the pod current", name)
		}
	}
}

func TestAGuiderWithoutATelescopeOrWithTooLongANameGetsNoObjects(t *testing.T) {
	in := obsTGuiderInput(obsv1.PulsesMount)
	in.Guider.Spec.Telescope = ""
	if _, err := GuiderPod(in); err == nil {
		t.Error("a guider without a telescope got a pod")
	}
	in = obsTGuiderInput(obsv1.PulsesMount)
	in.Guider.Name = strings.Repeat("g", 57)
	for _, err := range []error{
		func() error { _, err := GuiderPod(in); return err }(),
		func() error { _, err := GuiderService(in); return err }(),
		func() error { _, err := GuiderConfigMap(in); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "shorten the name to at most 56 characters") {
			t.Errorf("got %v", err)
		}
	}
}
