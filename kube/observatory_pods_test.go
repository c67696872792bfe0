// Tests of the INDI server pods and what every observatory pod shares: the security
// settings, the owner, and the spec digest that tells a stale pod from a current one. The
// helpers here check every pod the other observatory tests build.
package kube

import (
	"reflect"
	"regexp"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/indi/guard"
	"liken.sh/runner/internal/version"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var obsTHex16 = regexp.MustCompile(`^[0-9a-f]{16}$`)

// obsTCheckPod checks what every observatory pod must have, and that the pod carries
// a digest of its own spec.
func obsTCheckPod(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	if d := pod.Annotations[AnnotationSpecDigest]; !obsTHex16.MatchString(d) || d != PodSpecDigest(&pod.Spec) {
		t.Errorf("%s: the spec annotation is %q, want the 16-digit digest of its spec", pod.Name, d)
	}
	obsTCheckPodSpec(t, pod.Name, &pod.Spec)
}

// obsTCheckPodSpec checks a pod spec's security: no token, no Service links, and every
// container non-root as 1000:1000 with a read-only root, no privileges and RuntimeDefault.
func obsTCheckPodSpec(t *testing.T, name string, spec *corev1.PodSpec) {
	t.Helper()
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("%s mounts a service account token", name)
	}
	if spec.EnableServiceLinks == nil || *spec.EnableServiceLinks {
		t.Errorf("%s gets Service links", name)
	}
	containers := slices.Concat(spec.InitContainers, spec.Containers)
	if len(containers) == 0 {
		t.Errorf("%s has no container", name)
	}
	for _, c := range containers {
		s := c.SecurityContext
		switch {
		case s == nil:
			t.Errorf("%s/%s has no security context", name, c.Name)
		case s.RunAsNonRoot == nil || !*s.RunAsNonRoot,
			s.RunAsUser == nil || *s.RunAsUser != 1000,
			s.RunAsGroup == nil || *s.RunAsGroup != 1000:
			t.Errorf("%s/%s does not run as 1000:1000, non-root", name, c.Name)
		case s.ReadOnlyRootFilesystem == nil || !*s.ReadOnlyRootFilesystem:
			t.Errorf("%s/%s has a writable root filesystem", name, c.Name)
		case s.AllowPrivilegeEscalation == nil || *s.AllowPrivilegeEscalation,
			s.Privileged != nil && *s.Privileged:
			t.Errorf("%s/%s may gain privileges", name, c.Name)
		case s.Capabilities == nil || !slices.Equal(s.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(s.Capabilities.Add) > 0:
			t.Errorf("%s/%s keeps capabilities: %+v", name, c.Name, s.Capabilities)
		case s.SeccompProfile == nil || s.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
			t.Errorf("%s/%s has no RuntimeDefault seccomp profile", name, c.Name)
		}
	}
}

// obsTCheckOwner checks the single controller reference to r, without blockOwnerDeletion.
func obsTCheckOwner(t *testing.T, what string, refs []metav1.OwnerReference, r ResourceID) {
	t.Helper()
	if len(refs) != 1 {
		t.Fatalf("%s has %d owners, want 1", what, len(refs))
	}
	o := refs[0]
	if o.APIVersion != "observatory.liken.sh/v1alpha1" || o.Kind != string(r.Kind) || o.Name != r.Name || o.UID != r.UID ||
		o.Controller == nil || !*o.Controller || o.BlockOwnerDeletion != nil {
		t.Errorf("%s is owned by %+v, want the controller reference to %s", what, o, r)
	}
}

// obsTCheckService checks a Service in front of the pod name with one port.
func obsTCheckService(t *testing.T, svc *corev1.Service, name string, labels map[string]string, portName string, port int32) {
	t.Helper()
	if svc.Name != name || svc.Spec.Type != corev1.ServiceTypeClusterIP {
		t.Errorf("Service %s is a %s, want %s, ClusterIP", svc.Name, svc.Spec.Type, name)
	}
	if len(svc.Spec.Selector) != 1 || svc.Spec.Selector[LabelAppName] != name {
		t.Errorf("Service %s selects %v, want only app.kubernetes.io/name=%s", name, svc.Spec.Selector, name)
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("Service %s has %d ports", name, len(svc.Spec.Ports))
	}
	p := svc.Spec.Ports[0]
	if p.Name != portName || p.Port != port || p.TargetPort.StrVal != portName || p.Protocol != corev1.ProtocolTCP {
		t.Errorf("Service %s has port %+v, want %s %d", name, p, portName, port)
	}
	for k, v := range labels {
		if svc.Labels[k] != v {
			t.Errorf("Service %s: label %s = %q, want %q", name, k, svc.Labels[k], v)
		}
	}
}

var (
	obsTTelescope   = ResourceID{Kind: obsv1.KindTelescope, Namespace: "observatory", Name: "east", UID: types.UID("tel-uid")}
	obsTObservatory = ResourceID{Kind: obsv1.KindObservatory, Namespace: "observatory", Name: "lab", UID: types.UID("obs-uid")}
)

func TestAServerPodRunsIndiserverAsTheSpecSays(t *testing.T) {
	for _, tc := range []struct {
		owner ResourceID
		name  string
		guard []string // the site guard, which only an Observatory's server runs
	}{
		{obsTTelescope, "east-telescope", nil},
		{obsTObservatory, "lab-observatory", []string{"/run/indi/drivers/site-guard"}},
	} {
		pod, err := ServerPod(tc.owner, []string{"east-mount", "east-main-camera"})
		if err != nil {
			t.Fatal(err)
		}
		obsTCheckPod(t, pod)
		obsTCheckOwner(t, pod.Name, pod.OwnerReferences, tc.owner)
		if pod.Name != tc.name || pod.Namespace != "observatory" {
			t.Errorf("the server of %s is %s/%s", tc.owner, pod.Namespace, pod.Name)
		}
		want := ObjectLabels(tc.name, RoleServer, tc.name, tc.owner)
		for k, v := range want {
			if pod.Labels[k] != v {
				t.Errorf("%s: label %s = %q, want %q", tc.name, k, pod.Labels[k], v)
			}
		}
		spec := pod.Spec
		if spec.RestartPolicy != corev1.RestartPolicyAlways || spec.TerminationGracePeriodSeconds == nil || *spec.TerminationGracePeriodSeconds != 1 {
			t.Errorf("%s: restart %s, grace %v; want Always and 1 s", tc.name, spec.RestartPolicy, spec.TerminationGracePeriodSeconds)
		}
		if spec.Affinity != nil {
			t.Errorf("%s has an affinity", tc.name)
		}
		c := spec.Containers[0]
		wantCmd := append([]string{"/usr/bin/indi-shim", "serve", "/etc/indi/devices/drivers", "/run/indi/drivers",
			"/tmp/indiserver.fifo", "/usr/bin/indiserver", "-v", "-r", "2147483647"}, tc.guard...)
		if len(spec.Containers) != 1 || c.Name != "indiserver" || c.Image != "ghcr.io/liken-sh/indi:1.9.9-"+version.Get().Version || !slices.Equal(c.Command, wantCmd) {
			t.Errorf("%s runs %s %s %v", tc.name, c.Name, c.Image, c.Command)
		}
		if len(c.Ports) != 1 || c.Ports[0].Name != "indi" || c.Ports[0].ContainerPort != 7624 {
			t.Errorf("%s has ports %+v", tc.name, c.Ports)
		}
		// The site guard keeps its state on the pod's own volume, which outlives the container.
		wantEnv := []corev1.EnvVar(nil)
		if len(tc.guard) > 0 {
			wantEnv = []corev1.EnvVar{{Name: guard.StateEnv, Value: "/run/indi/site-guard.state"},
				{Name: guard.ArmedEnv, Value: "/etc/indi/devices/site-guard"}}
			if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
				return m.MountPath == "/run/indi" && slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name && v.EmptyDir != nil })
			}) {
				t.Errorf("%s keeps no emptyDir at /run/indi", tc.name)
			}
		}
		if !slices.Equal(c.Env, wantEnv) {
			t.Errorf("%s: env %+v, want %+v", tc.name, c.Env, wantEnv)
		}
		if p := c.ReadinessProbe; p == nil || p.TCPSocket == nil || p.TCPSocket.Port.StrVal != "indi" || p.PeriodSeconds != 10 {
			t.Errorf("%s has readiness probe %+v, want TCP on indi every 10 s", tc.name, p)
		}
		if got := pod.Annotations[AnnotationDrivers]; got != "east-main-camera:7625\neast-mount:7625\n" {
			t.Errorf("%s: drivers annotation %q", tc.name, got)
		}
		// The downward API volume is the only way the shim reads the annotation, and a new site
		// guard the runner's last config.
		files := []corev1.DownwardAPIVolumeFile{{Path: "drivers",
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['observatory.liken.sh/drivers']"}}}
		if len(tc.guard) > 0 {
			files = append(files, corev1.DownwardAPIVolumeFile{Path: "site-guard",
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['observatory.liken.sh/site-guard']"}})
		}
		var found bool
		for _, v := range spec.Volumes {
			if v.DownwardAPI != nil && reflect.DeepEqual(v.DownwardAPI.Items, files) {
				for _, m := range c.VolumeMounts {
					found = found || m.Name == v.Name && m.MountPath == "/etc/indi/devices"
				}
			}
		}
		if !found {
			t.Errorf("%s does not expose the drivers annotation at /etc/indi/devices/drivers", tc.name)
		}

		svc, err := ServerService(tc.owner)
		if err != nil {
			t.Fatal(err)
		}
		obsTCheckService(t, svc, tc.name, want, "indi", 7624)
		obsTCheckOwner(t, svc.Name, svc.OwnerReferences, tc.owner)
	}
}

func TestOnlyATelescopeOrAnObservatoryRunsAServer(t *testing.T) {
	if _, err := ServerPod(ResourceID{Kind: obsv1.KindMount, Name: "east"}, nil); err == nil {
		t.Error("a Mount got a server pod")
	}
	if _, err := ServerService(ResourceID{Kind: obsv1.KindGuider, Name: "east"}); err == nil {
		t.Error("a Guider got a server Service")
	}
}

func TestTheDriversAnnotationListsEachServiceOnceInOrder(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"east-mount"}, "east-mount:7625\n"},
		{[]string{"lab-weatherstation", "lab-dome", "lab-dome", ""}, "lab-dome:7625\nlab-weatherstation:7625\n"},
	} {
		if got := DriversAnnotation(tc.in); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestADriverChangeIsAPatchAndLeavesTheServerDigestAlone(t *testing.T) {
	a, _ := ServerPod(obsTTelescope, []string{"east-mount"})
	b, _ := ServerPod(obsTTelescope, []string{"east-mount", "east-main-camera"})
	if a.Annotations[AnnotationDrivers] == b.Annotations[AnnotationDrivers] {
		t.Error("the drivers annotation did not change")
	}
	if PodIsStale(a, b) {
		t.Error("a new driver made the server pod stale; it must be patched, not replaced")
	}
	other := obsTTelescope
	other.UID = "another-uid"
	c, _ := ServerPod(other, []string{"east-mount"})
	if PodIsStale(a, c) {
		t.Error("metadata outside the spec made the server pod stale")
	}
}

func TestAPodWithoutADigestIsStale(t *testing.T) {
	wanted, _ := ServerPod(obsTTelescope, nil)
	running := wanted.DeepCopy()
	delete(running.Annotations, AnnotationSpecDigest)
	if !PodIsStale(running, wanted) {
		t.Error("a pod without a digest was taken as current")
	}
}
