// The parts every observatory pod shares, and the INDI server pods. Each pod talks only to
// its INDI peers: no API token, no Service variables, a non-root user with nothing it could
// escalate to, and a read-only root filesystem with an emptyDir where it must write. A pod
// carries a digest of its spec, so the runner replaces a pod built from an older spec and
// leaves a current one alone, without comparing specs the API server has defaulted.
//
// A server pod is indiserver behind indi-shim: the shim reads the drivers annotation through
// a downwardAPI volume and links each driver's Service into indiserver through its fifo, so
// adding or removing a device is a patch, not a restart.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"liken.sh/runner/internal/version"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const (
	// ImageRegistry is where the runner's INDI images live.
	ImageRegistry = "ghcr.io/liken-sh/"
	// INDIImageTag pins every INDI image to the INDI release it is built from (Debian's
	// indi-bin 1.9.9). A pod naming an image without a tag gets :latest, which the kubelet
	// pulls at every start (imagePullPolicy Always): no pod of it starts where the registry
	// cannot be reached, and two nodes may run two different builds under one name.
	INDIImageTag = "1.9.9"
	// ServerContainer is a server pod's one container.
	ServerContainer = "indiserver"

	// ObservatoryPodUser is the uid and gid every container runs as.
	ObservatoryPodUser int64 = 1000

	// obsDriversVolume holds the drivers annotation as a file, where indi-shim reads it.
	obsDriversVolume    = "drivers"
	obsDriversMountPath = "/etc/indi/devices"
	obsDriversFile      = "drivers"
	obsTmpVolume        = "tmp"
	obsRunVolume        = "run"
)

// ServerImage holds indiserver, indi-shim with the site guard, and the core drivers (Debian's
// indi-bin): the image of this runner's own build (ServerImageOf).
var ServerImage = ServerImageOf(version.Get().Version)

// ServerImageOf is the server image of a runner build: its tag names the INDI release and the
// build, 1.9.9-v0.2.0. The image holds the site guard, the safety code of the site, so each
// build publishes its own and none overwrites another's: a site runs the guard of the runner
// that names it.
func ServerImageOf(build string) string {
	return ImageRegistry + "indi:" + ImageTag(INDIImageTag+"-"+build)
}

// ImageTag makes an image tag of a version: a tag has no '+' (a Go pseudo-version's +dirty, a
// Debian version's), '~', ':' nor '/', which become '-', and at most 128 characters.
func ImageTag(version string) string {
	tag := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, version)
	return tag[:min(len(tag), 128)]
}

// ServerCommand runs indiserver through indi-shim. The shim reads the drivers file, keeps
// its own list under /run/indi, and drives indiserver through the fifo; -r 2147483647 lets a
// driver restart without limit, because the shim, not indiserver, decides when one is gone.
var ServerCommand = []string{
	"/usr/bin/indi-shim", "serve",
	obsDriversMountPath + "/" + obsDriversFile, "/run/indi/drivers", "/tmp/indiserver.fifo",
	"/usr/bin/indiserver", "-v", "-r", "2147483647",
}

// obsPodSecurity is the pod half of what every observatory pod runs with.
func obsPodSecurity() *corev1.PodSecurityContext {
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr.To(true),
		RunAsUser:      ptr.To(ObservatoryPodUser),
		RunAsGroup:     ptr.To(ObservatoryPodUser),
		FSGroup:        ptr.To(ObservatoryPodUser),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// obsContainerSecurity is the container half: it repeats the user, because a container's
// context is what an admission policy reads, and adds what only a container can say.
func obsContainerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot:             ptr.To(true),
		RunAsUser:                ptr.To(ObservatoryPodUser),
		RunAsGroup:               ptr.To(ObservatoryPodUser),
		ReadOnlyRootFilesystem:   ptr.To(true),
		AllowPrivilegeEscalation: ptr.To(false),
		Privileged:               ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// obsEmptyDir is a writable scratch volume, for a read-only root filesystem.
func obsEmptyDir(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

// obsPod is the frame of every long-running observatory pod: metadata, owner, the seven
// labels and the shared security settings. The caller fills in the containers and volumes,
// then seals the pod with obsSeal.
func obsPod(name string, role ObjectRole, server string, r ResourceID) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       r.Namespace,
			Labels:          ObjectLabels(name, role, server, r),
			Annotations:     map[string]string{},
			OwnerReferences: r.OwnerReferences(),
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyAlways,
			AutomountServiceAccountToken: ptr.To(false),
			EnableServiceLinks:           ptr.To(false),
			SecurityContext:              obsPodSecurity(),
		},
	}
}

// obsSeal writes the spec digest; it is the last thing a builder does to a pod.
func obsSeal(pod *corev1.Pod) *corev1.Pod {
	pod.Annotations[AnnotationSpecDigest] = PodSpecDigest(&pod.Spec)
	return pod
}

// PodSpecDigest is 16 hex digits of sha256 of the spec's JSON. encoding/json writes struct
// fields in their declared order and map keys sorted, so equal specs give equal digests.
func PodSpecDigest(spec *corev1.PodSpec) string {
	b, err := json.Marshal(spec)
	if err != nil {
		// A PodSpec holds nothing json cannot encode; reaching this is a bug.
		panic(fmt.Sprintf("encoding a pod spec: %v", err))
	}
	return obsDigest(b)
}

// obsDigest is 16 hex digits of the sha256 of b: short enough for a label or an env value,
// long enough to tell the specs of one object apart.
func obsDigest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:16]
}

// obsTCPPort is a container's one named TCP port.
func obsTCPPort(name string, port int32) []corev1.ContainerPort {
	return []corev1.ContainerPort{{Name: name, ContainerPort: port, Protocol: corev1.ProtocolTCP}}
}

// obsListening is a readiness probe that passes while the named port accepts connections.
func obsListening(portName string) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString(portName)}},
		PeriodSeconds: 10,
	}
}

// PodIsStale says whether a running pod was built from another spec than wanted, so it must
// be deleted and created again. It compares the digests the builder wrote, not the specs: the
// API server adds defaults to a pod's spec, and a live pod's spec can never equal a built one.
func PodIsStale(running, wanted *corev1.Pod) bool {
	return running.Annotations[AnnotationSpecDigest] != wanted.Annotations[AnnotationSpecDigest]
}

// obsService is the ClusterIP Service in front of a pod: the same name, labels and owner, one
// port, and a selector on the name label alone.
func obsService(pod string, role ObjectRole, server string, r ResourceID, portName string, port int32) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:            pod,
			Namespace:       r.Namespace,
			Labels:          ObjectLabels(pod, role, server, r),
			OwnerReferences: r.OwnerReferences(),
		},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{LabelAppName: pod},
			Ports: []corev1.ServicePort{{
				Name:       portName,
				Protocol:   corev1.ProtocolTCP,
				Port:       port,
				TargetPort: intstr.FromString(portName),
			}},
		},
	}
}

// obsServerOwner checks that r may run an INDI server and returns the server's name.
func obsServerOwner(r ResourceID) (string, error) {
	if r.Kind != obsv1.KindTelescope && r.Kind != obsv1.KindObservatory {
		return "", fmt.Errorf("only a Telescope or an Observatory runs an INDI server, not a %s", r.Kind)
	}
	return ValidObjectName(r.Kind, r.Name)
}

// DriversAnnotation is the value of a server pod's drivers annotation: one <svc>:7625 line
// for each device Service it links, sorted and without repeats, so the same devices always
// give the same value and a patch is sent only when the set changes.
func DriversAnnotation(services []string) string {
	sorted := slices.Sorted(slices.Values(services))
	sorted = slices.Compact(sorted)
	var b strings.Builder
	port := strconv.Itoa(int(DriverPort))
	for _, s := range sorted {
		if s == "" {
			continue
		}
		b.WriteString(s + ":" + port + "\n")
	}
	return b.String()
}

// SiteGuardLink is the link through which an Observatory's indiserver runs the site guard
// (indi/guard, named site-guard there): indi-shim makes it, to itself, before it starts
// indiserver.
const SiteGuardLink = "/run/indi/drivers/site-guard"

// SiteGuardState is where the site guard keeps what the runner armed it with: on the pod's own
// volume, so a guard whose container restarts (an OOM kill, a crash) resumes the site. The
// guard reads the path from SiteGuardStateEnv (indi/guard's StateEnv; named here too, so the
// watcher, which builds no pod but links this package, links no INDI code).
const (
	SiteGuardState    = "/run/indi/site-guard.state"
	SiteGuardStateEnv = "LIKEN_GUARD_STATE"
)

// serverCommand is ServerCommand, and for an Observatory the site guard as its first driver.
func serverCommand(owner ResourceID) []string {
	cmd := slices.Clone(ServerCommand)
	if owner.Kind == obsv1.KindObservatory {
		cmd = append(cmd, SiteGuardLink)
	}
	return cmd
}

// serverEnv is what an Observatory's server tells the site guard: where to keep its state, and
// where a new pod finds what the runner last armed the site with.
func serverEnv(owner ResourceID) []corev1.EnvVar {
	if owner.Kind != obsv1.KindObservatory {
		return nil
	}
	return []corev1.EnvVar{{Name: SiteGuardStateEnv, Value: SiteGuardState}, {Name: SiteGuardArmedEnv, Value: SiteGuardArmed}}
}

// serverAnnotationFiles are the annotations a server reads through its downwardAPI volume: the
// drivers, and for an Observatory the site guard's last config.
func serverAnnotationFiles(owner ResourceID) []corev1.DownwardAPIVolumeFile {
	file := func(path, annotation string) corev1.DownwardAPIVolumeFile {
		return corev1.DownwardAPIVolumeFile{Path: path,
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + annotation + "']"}}
	}
	files := []corev1.DownwardAPIVolumeFile{file(obsDriversFile, AnnotationDrivers)}
	if owner.Kind == obsv1.KindObservatory {
		files = append(files, file(obsSiteGuardFile, AnnotationSiteGuard))
	}
	return files
}

// ServerPod is the INDI server pod of a Telescope (<tel>-telescope), or the pod template of an
// Observatory's (SiteServer), linking the drivers whose Services are named. The drivers are an
// annotation, outside the spec and its digest: they change while the server runs.
func ServerPod(owner ResourceID, driverServices []string) (*corev1.Pod, error) {
	name, err := obsServerOwner(owner)
	if err != nil {
		return nil, err
	}
	pod := obsPod(name, RoleServer, name, owner)
	pod.Annotations[AnnotationDrivers] = DriversAnnotation(driverServices)
	// indiserver holds no state worth a graceful stop; a quick stop frees the name for the
	// next reservation.
	pod.Spec.TerminationGracePeriodSeconds = ptr.To(int64(1))
	pod.Spec.Containers = []corev1.Container{{
		Name:           ServerContainer,
		Image:          ServerImage,
		Command:        serverCommand(owner),
		Env:            serverEnv(owner),
		Ports:          obsTCPPort(ServerPortName, ServerPort),
		ReadinessProbe: obsListening(ServerPortName),
		VolumeMounts: []corev1.VolumeMount{
			{Name: obsDriversVolume, MountPath: obsDriversMountPath, ReadOnly: true},
			{Name: obsRunVolume, MountPath: "/run/indi"},
			{Name: obsTmpVolume, MountPath: "/tmp"},
		},
		SecurityContext: obsContainerSecurity(),
	}}
	pod.Spec.Volumes = []corev1.Volume{
		{Name: obsDriversVolume, VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
			Items: serverAnnotationFiles(owner),
		}}},
		obsEmptyDir(obsRunVolume),
		obsEmptyDir(obsTmpVolume),
	}
	return obsSeal(pod), nil
}

// ServerService is the Service of a server pod, where INDI clients and jobs connect.
func ServerService(owner ResourceID) (*corev1.Service, error) {
	name, err := obsServerOwner(owner)
	if err != nil {
		return nil, err
	}
	return obsService(name, RoleServer, name, owner, ServerPortName, ServerPort), nil
}
