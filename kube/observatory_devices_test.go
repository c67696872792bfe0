// Tests of a device's objects: reading any of the 14 kinds, the pod that runs its driver, the
// image chosen for it, the claim and its wiring, the placement rules around a Guider, and the
// digest that changes exactly when the pod's spec does.
package kube

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/internal/version"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func obsTMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: "observatory", Name: name, UID: types.UID(name + "-uid")}
}

func obsTDevice(kind obsv1.Kind, name, driver, train string) DeviceRef {
	return DeviceRef{
		ResourceID:   ResourceID{Kind: kind, Namespace: "observatory", Name: name, UID: types.UID(name + "-uid")},
		Spec:         obsv1.DeviceSpec{Driver: obsv1.Driver{Name: driver}},
		OpticalTrain: train,
	}
}

const obsTClaim = `{"devices":{"requests":[{"name":"cam","exactly":{"deviceClassName":"usb.liken.sh","selectors":[{"cel":{"expression":"device.attributes[\"usb.liken.sh\"].vendor == \"03c3\""}}]}}]}}`

func obsTGuider(train string) *obsv1.Guider {
	return &obsv1.Guider{ObjectMeta: obsTMeta("east"), Spec: obsv1.GuiderSpec{
		TelescopeParent:    obsv1.TelescopeParent{Telescope: "east"},
		OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: train},
		Pulses:             obsv1.PulsesMount,
	}}
}

func TestEveryDeviceKindIsReadWithItsDriverAndParents(t *testing.T) {
	spec := obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_ccd"}}
	tel := obsv1.TelescopeParent{Telescope: "east"}
	train := obsv1.OpticalTrainParent{OpticalTrain: "east-main"}
	site := obsv1.ObservatoryParent{Observatory: "lab"}
	either := obsv1.TelescopeOrObservatoryParent{ObservatoryParent: site}
	m := obsTMeta("d")
	for _, tc := range []struct {
		obj                  runtime.Object
		kind                 obsv1.Kind
		telescope, trn, site string
	}{
		{&obsv1.Mount{ObjectMeta: m, Spec: obsv1.MountSpec{TelescopeParent: tel, DeviceSpec: spec}}, obsv1.KindMount, "east", "", ""},
		{&obsv1.GPS{ObjectMeta: m, Spec: obsv1.GPSSpec{TelescopeParent: tel, DeviceSpec: spec}}, obsv1.KindGPS, "east", "", ""},
		{&obsv1.PolarAligner{ObjectMeta: m, Spec: obsv1.PolarAlignerSpec{TelescopeParent: tel, DeviceSpec: spec}}, obsv1.KindPolarAligner, "east", "", ""},
		{&obsv1.Camera{ObjectMeta: m, Spec: obsv1.CameraSpec{OpticalTrainParent: train, DeviceSpec: spec}}, obsv1.KindCamera, "", "east-main", ""},
		{&obsv1.FilterWheel{ObjectMeta: m, Spec: obsv1.FilterWheelSpec{OpticalTrainParent: train, DeviceSpec: spec}}, obsv1.KindFilterWheel, "", "east-main", ""},
		{&obsv1.Focuser{ObjectMeta: m, Spec: obsv1.FocuserSpec{OpticalTrainParent: train, DeviceSpec: spec}}, obsv1.KindFocuser, "", "east-main", ""},
		{&obsv1.Rotator{ObjectMeta: m, Spec: obsv1.RotatorSpec{OpticalTrainParent: train, DeviceSpec: spec}}, obsv1.KindRotator, "", "east-main", ""},
		{&obsv1.DustCap{ObjectMeta: m, Spec: obsv1.DustCapSpec{OpticalTrainParent: train, DeviceSpec: spec}}, obsv1.KindDustCap, "", "east-main", ""},
		{&obsv1.FlatPanel{ObjectMeta: m, Spec: obsv1.FlatPanelSpec{OpticalTrainParent: train, DeviceSpec: spec}}, obsv1.KindFlatPanel, "", "east-main", ""},
		{&obsv1.Dome{ObjectMeta: m, Spec: obsv1.DomeSpec{ObservatoryParent: site, DeviceSpec: spec}}, obsv1.KindDome, "", "", "lab"},
		{&obsv1.WeatherStation{ObjectMeta: m, Spec: obsv1.WeatherStationSpec{ObservatoryParent: site, DeviceSpec: spec}}, obsv1.KindWeatherStation, "", "", "lab"},
		{&obsv1.SkyQualityMeter{ObjectMeta: m, Spec: obsv1.SkyQualityMeterSpec{TelescopeOrObservatoryParent: either, DeviceSpec: spec}}, obsv1.KindSkyQualityMeter, "", "", "lab"},
		{&obsv1.Switch{ObjectMeta: m, Spec: obsv1.SwitchSpec{TelescopeOrObservatoryParent: obsv1.TelescopeOrObservatoryParent{TelescopeParent: tel}, DeviceSpec: spec}}, obsv1.KindSwitch, "east", "", ""},
		{&obsv1.Receiver{ObjectMeta: m, Spec: obsv1.ReceiverSpec{TelescopeOrObservatoryParent: either, DeviceSpec: spec}}, obsv1.KindReceiver, "", "", "lab"},
	} {
		d, err := DeviceRefOf(tc.obj)
		if err != nil {
			t.Fatal(err)
		}
		want := DeviceRef{
			ResourceID: ResourceID{Kind: tc.kind, Namespace: "observatory", Name: "d", UID: "d-uid"},
			Spec:       spec, Telescope: tc.telescope, OpticalTrain: tc.trn, Observatory: tc.site,
		}
		if !reflect.DeepEqual(d, want) {
			t.Errorf("%T: got %+v\nwant %+v", tc.obj, d, want)
		}
	}
	if _, err := DeviceRefOf(&obsv1.Telescope{}); err == nil {
		t.Error("a Telescope was read as a device")
	}
}

func TestADevicePodRunsItsDriverBehindSocat(t *testing.T) {
	d := obsTDevice(obsv1.KindMount, "east", "indi_simulator_telescope", "")
	pod, err := DevicePod(d, "east-telescope", nil)
	if err != nil {
		t.Fatal(err)
	}
	obsTCheckPod(t, pod)
	obsTCheckOwner(t, pod.Name, pod.OwnerReferences, d.ResourceID)
	labels := ObjectLabels("east-mount", RoleDevice, "east-telescope", d.ResourceID)
	if pod.Name != "east-mount" || pod.Namespace != "observatory" || !reflect.DeepEqual(pod.Labels, labels) {
		t.Errorf("pod %s/%s has labels %v", pod.Namespace, pod.Name, pod.Labels)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	want := []string{"/usr/bin/socat", "TCP-LISTEN:7625,reuseaddr", "EXEC:indi_simulator_telescope,pipes"}
	if c.Name != "driver" || c.Image != "ghcr.io/liken-sh/indi-simulators:1.9.9" || !slices.Equal(c.Command, want) {
		t.Errorf("the pod runs %s %s %v", c.Name, c.Image, c.Command)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "driver" || c.Ports[0].ContainerPort != 7625 {
		t.Errorf("ports %+v", c.Ports)
	}
	if c.ReadinessProbe != nil || c.LivenessProbe != nil || c.StartupProbe != nil {
		t.Error("a device pod has a probe")
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/tmp" ||
		len(pod.Spec.Volumes) != 1 || pod.Spec.Volumes[0].EmptyDir == nil {
		t.Errorf("no emptyDir at /tmp: %+v %+v", c.VolumeMounts, pod.Spec.Volumes)
	}
	if pod.Spec.ResourceClaims != nil || c.Resources.Claims != nil || pod.Spec.Affinity != nil {
		t.Error("a plain Mount has a claim or an affinity")
	}

	svc, err := DeviceService(d, "east-telescope")
	if err != nil {
		t.Fatal(err)
	}
	obsTCheckService(t, svc, "east-mount", labels, "driver", 7625)
	obsTCheckOwner(t, svc.Name, svc.OwnerReferences, d.ResourceID)
}

func TestADeviceWhoseNameGivesNoDNSLabelGetsNoObjects(t *testing.T) {
	d := obsTDevice(obsv1.KindCamera, strings.Repeat("c", 57), "indi_simulator_ccd", "")
	d.Spec.Claim = &runtime.RawExtension{Raw: []byte(obsTClaim)}
	if _, err := DevicePod(d, "east-telescope", nil); err == nil || !strings.Contains(err.Error(), "at most 56 characters") {
		t.Errorf("pod: %v", err)
	}
	if _, err := DeviceService(d, "east-telescope"); err == nil {
		t.Error("a Service was built")
	}
	if _, err := DeviceResourceClaim(d, "east-telescope"); err == nil {
		t.Error("a claim was built")
	}
}

func TestTheDriverImageIsTheDevicesOrOneThatHoldsTheDriver(t *testing.T) {
	for _, tc := range []struct {
		driver obsv1.Driver
		want   string
		err    string
	}{
		{obsv1.Driver{Name: "indi_asi_ccd", Image: "registry.example/my-indi:1"}, "registry.example/my-indi:1", ""},
		{obsv1.Driver{Name: "MyDriver", Image: "registry.example/mine"}, "registry.example/mine", ""},
		{obsv1.Driver{Name: "indi_asi_ccd"}, "ghcr.io/liken-sh/indi-zwo:1.9.9", ""},
		{obsv1.Driver{Name: "indi_asi_wheel"}, "ghcr.io/liken-sh/indi-zwo:1.9.9", ""},
		{obsv1.Driver{Name: "indi_qhy_ccd"}, "ghcr.io/liken-sh/indi-qhy:1.9.9", ""},
		{obsv1.Driver{Name: "indi_eqmod_telescope"}, "ghcr.io/liken-sh/indi-open:1.9.9", ""},
		{obsv1.Driver{Name: "indi_canon_ccd"}, "ghcr.io/liken-sh/indi-open:1.9.9", ""},
		{obsv1.Driver{Name: "indi_simulator_ccd"}, "ghcr.io/liken-sh/indi-simulators:1.9.9", ""},
		{obsv1.Driver{Name: "indi_simulator_guide"}, "ghcr.io/liken-sh/indi-simulators:1.9.9", ""},
		{obsv1.Driver{Name: "indi_lx200basic"}, "ghcr.io/liken-sh/indi:1.9.9-" + version.Get().Version, ""},
		{obsv1.Driver{Name: "indi_qhycfw2_wheel"}, "ghcr.io/liken-sh/indi:1.9.9-" + version.Get().Version, ""},
		{obsv1.Driver{Name: "indi_playerone_ccd"}, "", "no image of the runner holds the driver indi_playerone_ccd; set spec.driver.image"},
		{obsv1.Driver{Name: "indi_getprop"}, "", "no image of the runner holds the driver"},
		{obsv1.Driver{Name: "indi_x,fork", Image: "registry.example/x"}, "", "is not a program name"},
	} {
		got, err := DriverImage(tc.driver)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: got %q, %v; want %q, %q", tc.driver, got, err, tc.want, tc.err)
		}
	}
}

func TestTheCoreDriverListIsSortedAndHoldsNoOtherImagesDriver(t *testing.T) {
	if !slices.IsSorted(coreDrivers) {
		t.Error("coreDrivers is not sorted, so a binary search misses drivers")
	}
	for _, d := range coreDrivers {
		if strings.HasPrefix(d, "indi_simulator_") || vendorImages[d] != "" || !strings.HasPrefix(d, "indi_") {
			t.Errorf("%s is in the core list and elsewhere, or is no driver", d)
		}
	}
}

func TestADriverNoImageHoldsFailsThePodWithTheReason(t *testing.T) {
	d := obsTDevice(obsv1.KindCamera, "east-main", "indi_playerone_ccd", "east-main")
	_, err := DevicePod(d, "east-telescope", nil)
	if err == nil || !strings.Contains(err.Error(), "Camera/east-main: no image of the runner holds the driver indi_playerone_ccd") {
		t.Errorf("got %v", err)
	}
}

func TestAClaimedDeviceGetsAClaimOfItsOwnWiredIntoItsPod(t *testing.T) {
	d := obsTDevice(obsv1.KindCamera, "east-main", "indi_asi_ccd", "east-main")
	d.Spec.Claim = &runtime.RawExtension{Raw: []byte(obsTClaim)}
	claim, err := DeviceResourceClaim(d, "east-telescope")
	if err != nil {
		t.Fatal(err)
	}
	if claim.Name != "east-main-camera" || claim.Namespace != "observatory" ||
		!reflect.DeepEqual(claim.Labels, ObjectLabels("east-main-camera", RoleDevice, "east-telescope", d.ResourceID)) {
		t.Errorf("claim %s/%s with labels %v", claim.Namespace, claim.Name, claim.Labels)
	}
	obsTCheckOwner(t, claim.Name, claim.OwnerReferences, d.ResourceID)
	// Verbatim: the spec encodes back to exactly what the user wrote.
	var want, got any
	b, _ := json.Marshal(claim.Spec)
	_ = json.Unmarshal([]byte(obsTClaim), &want)
	_ = json.Unmarshal(b, &got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("claim spec %s, want %s", b, obsTClaim)
	}
	if r := claim.Spec.Devices.Requests; len(r) != 1 || r[0].Exactly == nil || r[0].Exactly.DeviceClassName != "usb.liken.sh" {
		t.Errorf("requests %+v", r)
	}

	pod, err := DevicePod(d, "east-telescope", nil)
	if err != nil {
		t.Fatal(err)
	}
	obsTCheckPod(t, pod)
	wantPodClaims := []corev1.PodResourceClaim{{Name: "device", ResourceClaimName: &claim.Name}}
	if !reflect.DeepEqual(pod.Spec.ResourceClaims, wantPodClaims) {
		t.Errorf("pod claims %+v", pod.Spec.ResourceClaims)
	}
	if c := pod.Spec.Containers[0]; !reflect.DeepEqual(c.Resources.Claims, []corev1.ResourceClaim{{Name: "device"}}) {
		t.Errorf("container claims %+v", c.Resources.Claims)
	}
}

func TestAClaimIsTakenAsWrittenOrRefused(t *testing.T) {
	d := obsTDevice(obsv1.KindFocuser, "east-main", "indi_asi_focuser", "east-main")
	if c, err := DeviceResourceClaim(d, "east-telescope"); c != nil || err != nil {
		t.Errorf("a device without a claim got %v, %v", c, err)
	}
	for _, bad := range []string{
		`{"devices":{"requests":[]},"controller":"old.example"}`,
		`{"Devices":{}}`,
		`{"devices":{},"devices":{}}`,
		`[]`,
		` `,
	} {
		d.Spec.Claim = &runtime.RawExtension{Raw: []byte(bad)}
		_, err := DeviceResourceClaim(d, "east-telescope")
		if err == nil || !strings.Contains(err.Error(), "Focuser/east-main: spec.claim is not a resource.k8s.io/v1 ResourceClaimSpec") {
			t.Errorf("%s: got %v", bad, err)
		}
	}
	var spec resourcev1.ResourceClaimSpec
	if err := json.Unmarshal([]byte(obsTClaim), &spec); err != nil {
		t.Fatal(err)
	}
	d.Spec.Claim = &runtime.RawExtension{Object: &obsTClaimObject{spec}}
	if c, err := DeviceResourceClaim(d, "east-telescope"); err != nil || !reflect.DeepEqual(c.Spec, spec) {
		t.Errorf("an Object claim gave %v, %v", c, err)
	}
}

// obsTClaimObject is a claim spec as a runtime.Object, the way a Go caller may set
// spec.claim instead of raw JSON.
type obsTClaimObject struct{ resourcev1.ResourceClaimSpec }

func (o *obsTClaimObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (o *obsTClaimObject) DeepCopyObject() runtime.Object {
	return &obsTClaimObject{*o.ResourceClaimSpec.DeepCopy()}
}

func TestTheGuideCameraRunsBesideTheServerUnlessItsHardwareDecides(t *testing.T) {
	claimed := func(d DeviceRef) DeviceRef {
		d.Spec.Claim = &runtime.RawExtension{Raw: []byte(obsTClaim)}
		return d
	}
	guide := obsTDevice(obsv1.KindCamera, "east-guide", "indi_simulator_guide", "east-guide")
	for _, tc := range []struct {
		name     string
		device   DeviceRef
		guider   *obsv1.Guider
		affinity bool
	}{
		{"the camera of the Guider's train", guide, obsTGuider("east-guide"), true},
		{"a camera in another train", obsTDevice(obsv1.KindCamera, "east-main", "indi_simulator_ccd", "east-main"), obsTGuider("east-guide"), false},
		{"the guide camera without a Guider", guide, nil, false},
		{"the guide camera with a claim", claimed(guide), obsTGuider("east-guide"), false},
		{"a focuser in the Guider's train", obsTDevice(obsv1.KindFocuser, "east-guide", "indi_simulator_focus", "east-guide"), obsTGuider("east-guide"), false},
		{"the mount", obsTDevice(obsv1.KindMount, "east", "indi_simulator_telescope", ""), obsTGuider("east-guide"), false},
	} {
		pod, err := DevicePod(tc.device, "east-telescope", tc.guider)
		if err != nil {
			t.Fatal(err)
		}
		a := pod.Spec.Affinity
		if !tc.affinity {
			if a != nil {
				t.Errorf("%s has an affinity: %+v", tc.name, a)
			}
			continue
		}
		obsTCheckServerAffinity(t, tc.name, a)
	}
}

// obsTCheckServerAffinity checks the required affinity to east-telescope's node.
func obsTCheckServerAffinity(t *testing.T, what string, a *corev1.Affinity) {
	t.Helper()
	want := &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "east-telescope"}},
			TopologyKey:   "kubernetes.io/hostname",
		}},
	}}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("%s: affinity %+v, want the required affinity to east-telescope", what, a)
	}
}

func TestADevicePodsDigestChangesWithItsSpecAndNothingElse(t *testing.T) {
	base := obsTDevice(obsv1.KindCamera, "east-guide", "indi_simulator_guide", "east-guide")
	digest := func(d DeviceRef, server string, g *obsv1.Guider) string {
		t.Helper()
		pod, err := DevicePod(d, server, g)
		if err != nil {
			t.Fatal(err)
		}
		return pod.Annotations[AnnotationSpecDigest]
	}
	was := digest(base, "east-telescope", nil)

	same := base
	same.UID = "another-uid"
	same.Spec.Power = &obsv1.Power{Switch: "east", Output: 2}
	if digest(same, "east-telescope", nil) != was || digest(base, "west-telescope", nil) != was {
		t.Error("the digest changed with the owner, the power or a label, which are not in the spec")
	}
	if digest(base, "east-telescope", nil) != was {
		t.Error("the same device gave two digests")
	}

	image := base
	image.Spec.Driver.Image = "registry.example/indi:2"
	driver := base
	driver.Spec.Driver.Name = "indi_simulator_ccd"
	claim := base
	claim.Spec.Claim = &runtime.RawExtension{Raw: []byte(obsTClaim)}
	for name, d := range map[string]string{
		"a new image":         digest(image, "east-telescope", nil),
		"a new driver":        digest(driver, "east-telescope", nil),
		"a claim":             digest(claim, "east-telescope", nil),
		"a Guider's affinity": digest(base, "east-telescope", obsTGuider("east-guide")),
	} {
		if d == was {
			t.Errorf("%s left the digest as it was", name)
		}
	}
}

func TestADeviceWithConfigKeepsItOnAClaimItOwnsMountedWhereDriversSaveIt(t *testing.T) {
	d := obsTDevice(obsv1.KindMount, "east", "indi_eqmod_telescope", "")
	if c, err := DeviceConfigClaim(d, "east-telescope"); c != nil || err != nil {
		t.Fatalf("a device without spec.config: %v, %v", c, err)
	}
	manual := ""
	d.Spec.Config = &obsv1.ConfigVolume{StorageClassName: &manual}
	c, err := DeviceConfigClaim(d, "east-telescope")
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "east-mount-config" || c.Namespace != "observatory" || c.Spec.StorageClassName == nil || *c.Spec.StorageClassName != "" ||
		c.Spec.Resources.Requests.Storage().String() != "16Mi" {
		t.Errorf("claim %s/%s: %+v", c.Namespace, c.Name, c.Spec)
	}
	obsTCheckOwner(t, c.Name, c.OwnerReferences, d.ResourceID)
	pod, err := DevicePod(d, "east-telescope", nil)
	if err != nil {
		t.Fatal(err)
	}
	obsTCheckPod(t, pod)
	mounts := pod.Spec.Containers[0].VolumeMounts
	if len(mounts) != 2 || mounts[1].MountPath != "/tmp/.indi" || pod.Spec.Volumes[1].PersistentVolumeClaim.ClaimName != "east-mount-config" {
		t.Errorf("mounts %+v, volumes %+v", mounts, pod.Spec.Volumes)
	}
	size := resource.MustParse("1Mi")
	d.Spec.Config = &obsv1.ConfigVolume{Size: &size}
	if c, _ := DeviceConfigClaim(d, "east-telescope"); c.Spec.StorageClassName != nil || c.Spec.Resources.Requests.Storage().String() != "1Mi" {
		t.Errorf("the cluster's default class and the size given: %+v", c.Spec)
	}
}
