// The objects of a device: a pod (<name>-<kind>) that runs its INDI driver behind socat, so
// the driver's stdio is a TCP port its INDI server dials; the Service in front of it; when the
// device names hardware in spec.claim, a resource.k8s.io/v1 ResourceClaim that the pod uses,
// so the scheduler puts the driver on the node that has the device; and with spec.config, the
// PersistentVolumeClaim that keeps what the driver saves of its configuration.
package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	sigsjson "sigs.k8s.io/json"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const (
	// DriverContainer is a device pod's one container.
	DriverContainer = "driver"
	// DeviceClaimName is the name of the claim inside the pod and its container; the
	// ResourceClaim object itself has the pod's name.
	DeviceClaimName = "device"
)

// DeviceRef is what the device builders need of any of the 14 device kinds: who it is, its
// driver, power and claim, and its parent fields as the spec has them.
type DeviceRef struct {
	ResourceID
	Spec obsv1.DeviceSpec
	// The parent fields; each is empty when the kind has no such field or it is not set.
	Telescope, OpticalTrain, Observatory string
}

// DeviceRefOf reads a device of any of the 14 kinds. It fails for anything else.
func DeviceRefOf(obj runtime.Object) (DeviceRef, error) {
	var (
		d    DeviceRef
		meta metav1.Object
	)
	switch o := obj.(type) {
	case *obsv1.Mount:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindMount}, Spec: o.Spec.DeviceSpec, Telescope: o.Spec.Telescope}, o
	case *obsv1.GPS:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindGPS}, Spec: o.Spec.DeviceSpec, Telescope: o.Spec.Telescope}, o
	case *obsv1.PolarAligner:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindPolarAligner}, Spec: o.Spec.DeviceSpec, Telescope: o.Spec.Telescope}, o
	case *obsv1.Camera:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindCamera}, Spec: o.Spec.DeviceSpec, OpticalTrain: o.Spec.OpticalTrain}, o
	case *obsv1.FilterWheel:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindFilterWheel}, Spec: o.Spec.DeviceSpec, OpticalTrain: o.Spec.OpticalTrain}, o
	case *obsv1.Focuser:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindFocuser}, Spec: o.Spec.DeviceSpec, OpticalTrain: o.Spec.OpticalTrain}, o
	case *obsv1.Rotator:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindRotator}, Spec: o.Spec.DeviceSpec, OpticalTrain: o.Spec.OpticalTrain}, o
	case *obsv1.DustCap:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindDustCap}, Spec: o.Spec.DeviceSpec, OpticalTrain: o.Spec.OpticalTrain}, o
	case *obsv1.FlatPanel:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindFlatPanel}, Spec: o.Spec.DeviceSpec, OpticalTrain: o.Spec.OpticalTrain}, o
	case *obsv1.Dome:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindDome}, Spec: o.Spec.DeviceSpec, Observatory: o.Spec.Observatory}, o
	case *obsv1.WeatherStation:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindWeatherStation}, Spec: o.Spec.DeviceSpec, Observatory: o.Spec.Observatory}, o
	case *obsv1.SkyQualityMeter:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindSkyQualityMeter}, Spec: o.Spec.DeviceSpec, Telescope: o.Spec.Telescope, Observatory: o.Spec.Observatory}, o
	case *obsv1.Switch:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindSwitch}, Spec: o.Spec.DeviceSpec, Telescope: o.Spec.Telescope, Observatory: o.Spec.Observatory}, o
	case *obsv1.Receiver:
		d, meta = DeviceRef{ResourceID: ResourceID{Kind: obsv1.KindReceiver}, Spec: o.Spec.DeviceSpec, Telescope: o.Spec.Telescope, Observatory: o.Spec.Observatory}, o
	default:
		return DeviceRef{}, fmt.Errorf("%T is not a device", obj)
	}
	d.Namespace, d.Name, d.UID = meta.GetNamespace(), meta.GetName(), meta.GetUID()
	return d, nil
}

// DriverCommand runs the driver behind socat: each connection from the INDI server starts
// the driver with its stdin and stdout on the socket. reuseaddr lets a restarted pod listen
// again at once.
func DriverCommand(driver string) []string {
	return []string{"/usr/bin/socat", "TCP-LISTEN:" + strconv.Itoa(int(DriverPort)) + ",reuseaddr", "EXEC:" + driver + ",pipes"}
}

// DevicePod is the pod of a device, linked into the INDI server pod server (such as
// east-telescope, for the label). guider is the Guider of the device's telescope, or nil: the
// camera of the Guider's train must run on the server's node (see DeviceAffinity).
func DevicePod(d DeviceRef, server string, guider *obsv1.Guider) (*corev1.Pod, error) {
	name, err := ValidObjectName(d.Kind, d.Name)
	if err != nil {
		return nil, err
	}
	image, err := DriverImage(d.Spec.Driver)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d, err)
	}
	pod := obsPod(name, RoleDevice, server, d.ResourceID)
	pod.Spec.Affinity = DeviceAffinity(d, guider)
	c := corev1.Container{
		Name:    DriverContainer,
		Image:   image,
		Command: DriverCommand(d.Spec.Driver.Name),
		// No probe: socat listens at once, and whether the driver works shows only when its
		// INDI server defines the device.
		Ports: obsTCPPort(DriverPortName, DriverPort),
		// Drivers write their config and logs under HOME or /tmp; both are the scratch dir.
		Env:             []corev1.EnvVar{{Name: "HOME", Value: "/tmp"}},
		VolumeMounts:    []corev1.VolumeMount{{Name: obsTmpVolume, MountPath: "/tmp"}},
		SecurityContext: obsContainerSecurity(),
	}
	if d.Spec.Claim != nil {
		pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: DeviceClaimName, ResourceClaimName: ptr.To(name)}}
		c.Resources.Claims = []corev1.ResourceClaim{{Name: DeviceClaimName}}
	}
	pod.Spec.Volumes = []corev1.Volume{obsEmptyDir(obsTmpVolume)}
	if d.Spec.Config != nil {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: obsConfigVolume, MountPath: DriverConfigDir})
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: obsConfigVolume, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: DeviceConfigClaimName(name)},
		}})
	}
	pod.Spec.Containers = []corev1.Container{c}
	return obsSeal(pod), nil
}

// DriverConfigDir is where INDI drivers save their configuration: ~/.indi, HOME being /tmp.
const DriverConfigDir = "/tmp/.indi"

// DeviceConfigClaimName is the PersistentVolumeClaim of a device pod's saved configuration.
func DeviceConfigClaimName(pod string) string { return pod + "-config" }

// defaultConfigSize is a config claim's size when spec.config gives none.
var defaultConfigSize = resource.MustParse("16Mi")

// DeviceConfigClaim is the PersistentVolumeClaim of a device with a spec.config, owned by the
// device alone (not by a reservation), so the configuration outlives each pod and each
// reservation and goes with the device; nil for a device without one.
func DeviceConfigClaim(d DeviceRef, server string) (*corev1.PersistentVolumeClaim, error) {
	if d.Spec.Config == nil {
		return nil, nil
	}
	pod, err := ValidObjectName(d.Kind, d.Name)
	if err != nil {
		return nil, err
	}
	name := DeviceConfigClaimName(pod)
	size := defaultConfigSize
	if d.Spec.Config.Size != nil {
		size = *d.Spec.Config.Size
	}
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       d.Namespace,
			Labels:          ObjectLabels(name, RoleDevice, server, d.ResourceID),
			OwnerReferences: d.OwnerReferences(),
		},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: d.Spec.Config.StorageClassName,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}},
		},
	}, nil
}

// DeviceService is the Service of a device pod: the address its INDI server dials.
func DeviceService(d DeviceRef, server string) (*corev1.Service, error) {
	name, err := ValidObjectName(d.Kind, d.Name)
	if err != nil {
		return nil, err
	}
	return obsService(name, RoleDevice, server, d.ResourceID, DriverPortName, DriverPort), nil
}

// DeviceResourceClaim is the ResourceClaim of a device with a spec.claim, named, labelled and
// owned like its pod, with the spec as the user gave it; nil for a device without a claim. A
// field resource.k8s.io/v1 does not have is an error, not dropped, so the claim the user wrote
// is the claim that is made.
func DeviceResourceClaim(d DeviceRef, server string) (*resourcev1.ResourceClaim, error) {
	if d.Spec.Claim == nil {
		return nil, nil
	}
	name, err := ValidObjectName(d.Kind, d.Name)
	if err != nil {
		return nil, err
	}
	spec, err := obsClaimSpec(d.Spec.Claim)
	if err != nil {
		return nil, fmt.Errorf("%s: spec.claim is not a resource.k8s.io/v1 ResourceClaimSpec: %w", d, err)
	}
	return &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       d.Namespace,
			Labels:          ObjectLabels(name, RoleDevice, server, d.ResourceID),
			OwnerReferences: d.OwnerReferences(),
		},
		Spec: spec,
	}, nil
}

// obsClaimSpec decodes spec.claim as the API server would: field names match exactly, and
// unknown or repeated fields are errors.
func obsClaimSpec(raw *runtime.RawExtension) (resourcev1.ResourceClaimSpec, error) {
	var spec resourcev1.ResourceClaimSpec
	data := raw.Raw
	if len(data) == 0 && raw.Object != nil {
		var err error
		if data, err = json.Marshal(raw.Object); err != nil {
			return spec, err
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return spec, errors.New("it is empty")
	}
	strict, err := sigsjson.UnmarshalStrict(data, &spec)
	if err != nil {
		return spec, err
	}
	return spec, errors.Join(strict...)
}
