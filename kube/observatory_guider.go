// The objects of a Guider: PHD2 in a pod (<guider>-guider) with its Service and a ConfigMap
// of the same name. PHD2 is a GUI program; a headless weston, run as a native sidecar so it
// is up before PHD2 starts and outlives it, gives it a Wayland display nobody sees. PHD2
// reads its equipment from the profile in the ConfigMap and talks to the telescope's INDI
// server for the camera and the mount; the runner drives it through the event server on 4400.
//
// PHD2 keeps its settings in a wxFileConfig file, ~/.PHDGuidingV2 on Linux: INI groups named
// after the config paths PHD2 reads (/profile/<id>/indi/INDIhost and so on). The ConfigMap key
// PHDGuidingV2 is that file, with one profile; the pod copies it into PHD2's writable home
// at start, because PHD2 writes its settings back. A profile that changes replaces the pod:
// its digest is in the pod's spec, so the spec digest changes with it.
package kube

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const (
	// GuiderImage holds PHD2, weston and wayland-info.
	GuiderImage = ImageRegistry + "indi-phd2:" + INDIImageTag
	// GuiderContainer runs PHD2; CompositorContainer is the weston sidecar.
	GuiderContainer     = "phd2"
	CompositorContainer = "compositor"
	// ProfileKey and WestonKey are the ConfigMap's keys.
	ProfileKey = "PHDGuidingV2"
	WestonKey  = "weston.ini"

	// PHD2's names for the equipment it does not reach through INDI. On-camera sends guide
	// pulses through the camera's ST-4 port.
	PHD2OnCamera = "On-camera"

	// phd2ConfigVersion is PHD2's CURRENT_CONFIG_VERSION. A file without it is a new install
	// to PHD2, which then opens its first-run wizard: a modal dialog nobody can close here.
	phd2ConfigVersion = 2001

	obsWaylandSocket  = "wayland-0"
	obsWaylandDir     = "/run/wayland"
	obsXDGRuntimeDir  = obsWaylandDir + "/xdg"
	obsConfigVolume   = "config"
	obsConfigMount    = "/etc/phd2"
	obsHomeVolume     = "home"
	obsHome           = "/home/phd2"
	obsWaylandVolume  = "wayland"
	obsProfileEnvName = "LIKEN_PROFILE"
)

// GuiderInput is what a Guider's objects are made from. The INDI device names are what the
// drivers call their devices (their status.indiDevice), which PHD2 selects them by.
type GuiderInput struct {
	Guider *obsv1.Guider
	// CameraDevice is the guide camera's INDI device, such as "Guide Simulator".
	CameraDevice string
	// MountDevice is the mount's INDI device; unused when pulses go through the camera.
	MountDevice string
	// FocalLength is the guide tube's focal length in millimetres: the OpticalTube of the
	// Guider's train.
	FocalLength float64
}

func (in GuiderInput) id() ResourceID { return ResourceIDOf(obsv1.KindGuider, in.Guider) }

func (in GuiderInput) server() string {
	return ServerName(obsv1.KindTelescope, in.Guider.Spec.Telescope)
}

// GuiderProfile is the PHD2 config file with one profile, named after the guider's pod: the
// INDI server of the Guider's telescope, the guide camera, the mount (or On-camera for
// pulses: Camera), and the guide tube's focal length in whole millimetres, which PHD2 reads
// as an integer. The event server is on, because it is how the runner drives PHD2.
func GuiderProfile(in GuiderInput) string {
	g := in.Guider
	camera := "INDI Camera [" + in.CameraDevice + "]"
	mount := PHD2OnCamera
	if g.Spec.Pulses != obsv1.PulsesCamera {
		mount = "INDI Mount [" + in.MountDevice + "]"
	}
	focal := int64(math.Round(in.FocalLength))

	var b strings.Builder
	// Global entries come before the first group in a wxFileConfig file.
	fmt.Fprintf(&b, "ConfigVersion=%d\n", phd2ConfigVersion)
	b.WriteString("currentProfile=1\n")
	b.WriteString("ServerMode=1\n")
	section := func(name string, entries ...string) {
		b.WriteString("[profile/1" + name + "]\n")
		for i := 0; i+1 < len(entries); i += 2 {
			b.WriteString(entries[i] + "=" + obsINIValue(entries[i+1]) + "\n")
		}
	}
	section("", "name", ObjectName(obsv1.KindGuider, g.Name))
	section("/camera", "LastMenuChoice", camera)
	section("/frame", "focalLength", strconv.FormatInt(focal, 10))
	section("/indi",
		"INDIhost", ServerHost(in.server(), g.Namespace),
		"INDIport", strconv.Itoa(int(ServerPort)),
		"INDIcam", in.CameraDevice,
		// The camera's main chip: a guide camera guides with its only sensor.
		"INDIcam_ccd", "0",
		"INDImount", in.MountDevice,
	)
	section("/scope", "LastMenuChoice", mount)
	return b.String()
}

// obsINIValue writes a value as wxFileConfig reads it back: backslashes, quotes and line
// ends escaped, and a value with spaces at either end quoted so they are kept.
func obsINIValue(v string) string {
	v = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(v)
	if strings.TrimSpace(v) != v {
		v = `"` + v + `"`
	}
	return v
}

// WestonConfig is weston.ini for the compositor: the headless backend, one output big enough
// for PHD2's window, and nothing that locks, sleeps or waits for input devices.
const WestonConfig = `[core]
backend=headless-backend.so
idle-time=0
require-input=false

[shell]
locking=false
panel-position=none

[output]
name=headless
mode=1600x1200
`

// GuiderConfigMap holds the PHD2 profile and weston.ini.
func GuiderConfigMap(in GuiderInput) (*corev1.ConfigMap, error) {
	name, err := obsGuiderName(in)
	if err != nil {
		return nil, err
	}
	id := in.id()
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       id.Namespace,
			Labels:          ObjectLabels(name, RoleGuider, in.server(), id),
			OwnerReferences: id.OwnerReferences(),
		},
		Data: map[string]string{
			ProfileKey: GuiderProfile(in),
			WestonKey:  WestonConfig,
		},
	}, nil
}

func obsGuiderName(in GuiderInput) (string, error) {
	if in.Guider == nil || in.Guider.Spec.Telescope == "" {
		return "", fmt.Errorf("a guider needs a telescope")
	}
	return ValidObjectName(obsv1.KindGuider, in.Guider.Name)
}

// GuiderPod is PHD2 beside the telescope's INDI server, with the compositor as a native
// sidecar: an init container that keeps running, started and probed before PHD2 starts.
func GuiderPod(in GuiderInput) (*corev1.Pod, error) {
	name, err := obsGuiderName(in)
	if err != nil {
		return nil, err
	}
	wayland := []corev1.EnvVar{
		{Name: "XDG_RUNTIME_DIR", Value: obsXDGRuntimeDir},
		{Name: "WAYLAND_DISPLAY", Value: obsWaylandSocket},
	}
	config := corev1.VolumeMount{Name: obsConfigVolume, MountPath: obsConfigMount, ReadOnly: true}
	waylandMount := corev1.VolumeMount{Name: obsWaylandVolume, MountPath: obsWaylandDir}
	tmp := corev1.VolumeMount{Name: obsTmpVolume, MountPath: "/tmp"}

	pod := obsPod(name, RoleGuider, in.server(), in.id())
	pod.Spec.Affinity = ServerAffinity(in.Guider.Spec.Telescope)
	pod.Spec.InitContainers = []corev1.Container{{
		Name:  CompositorContainer,
		Image: GuiderImage,
		// weston refuses a runtime dir others can read, and an emptyDir is world-writable, so
		// the compositor makes its own 0700 dir inside it.
		Command: []string{"/bin/sh", "-c",
			`mkdir -p -m 0700 "$XDG_RUNTIME_DIR" && exec weston --config=` + obsConfigMount + "/" + WestonKey + ` --socket=` + obsWaylandSocket},
		Env:           wayland,
		RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
		StartupProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"wayland-info"}}},
			PeriodSeconds:    1,
			FailureThreshold: 30,
		},
		VolumeMounts:    []corev1.VolumeMount{config, waylandMount, tmp},
		SecurityContext: obsContainerSecurity(),
	}}
	pod.Spec.Containers = []corev1.Container{{
		Name:  GuiderContainer,
		Image: GuiderImage,
		// PHD2 writes its settings back, so it gets a copy of the profile in a writable home.
		Command: []string{"/bin/sh", "-c",
			`cp ` + obsConfigMount + "/" + ProfileKey + ` "$HOME/.` + ProfileKey + `" && exec phd2`},
		Env: slices.Concat(wayland, []corev1.EnvVar{
			{Name: "HOME", Value: obsHome},
			{Name: "GDK_BACKEND", Value: "wayland"},
			// The profile's digest: the pod spec changes when the profile does.
			{Name: obsProfileEnvName, Value: obsDigest([]byte(GuiderProfile(in) + WestonConfig))},
		}),
		Ports:          obsTCPPort(GuiderPortName, GuiderPort),
		ReadinessProbe: obsListening(GuiderPortName),
		VolumeMounts: []corev1.VolumeMount{
			config, waylandMount, tmp,
			{Name: obsHomeVolume, MountPath: obsHome},
		},
		SecurityContext: obsContainerSecurity(),
	}}
	pod.Spec.Volumes = []corev1.Volume{
		{Name: obsConfigVolume, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: name},
		}}},
		obsEmptyDir(obsWaylandVolume),
		obsEmptyDir(obsHomeVolume),
		obsEmptyDir(obsTmpVolume),
	}
	return obsSeal(pod), nil
}

// GuiderService is the Service of PHD2's event server.
func GuiderService(in GuiderInput) (*corev1.Service, error) {
	name, err := obsGuiderName(in)
	if err != nil {
		return nil, err
	}
	return obsService(name, RoleGuider, in.server(), in.id(), GuiderPortName, GuiderPort), nil
}
