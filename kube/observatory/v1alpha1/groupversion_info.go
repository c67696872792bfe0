// Package v1alpha1 holds the Go types of the observatory.liken.sh/v1alpha1 API: an
// Observatory and its Telescopes, the optics and the 14 kinds of INDI device that hang off
// them, the Guider, and the Reservation that brings a telescope up for one person and takes it
// down again. The CRD YAML under deploy/crds/observatory is generated from these types by
// hack/generate.sh; the runner reads and writes them through the dynamic client and
// runtime.DefaultUnstructuredConverter, so only DeepCopy is generated, no clientset.
//
// +kubebuilder:object:generate=true
// +groupName=observatory.liken.sh
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of every kind in this package.
const GroupName = "observatory.liken.sh"

var (
	// SchemeGroupVersion is the group and version of every kind in this package.
	SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

	// SchemeBuilder collects the functions that add this package's kinds to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the 20 kinds and their lists to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Kind names one of the group's kinds. Procedures use it to point at other resources
// (after, when, requires), and the runner labels what it creates with it.
//
// +kubebuilder:validation:Enum=Observatory;Telescope;OpticalTube;OpticalTrain;Mount;GPS;PolarAligner;Camera;FilterWheel;Focuser;Rotator;DustCap;FlatPanel;Dome;WeatherStation;SkyQualityMeter;Switch;Receiver;Guider;Reservation
type Kind string

// The 20 kinds: the site, the telescope and its optical parts, the devices, then Reservation.
const (
	KindObservatory     Kind = "Observatory"
	KindTelescope       Kind = "Telescope"
	KindOpticalTube     Kind = "OpticalTube"
	KindOpticalTrain    Kind = "OpticalTrain"
	KindMount           Kind = "Mount"
	KindGPS             Kind = "GPS"
	KindPolarAligner    Kind = "PolarAligner"
	KindCamera          Kind = "Camera"
	KindFilterWheel     Kind = "FilterWheel"
	KindFocuser         Kind = "Focuser"
	KindRotator         Kind = "Rotator"
	KindDustCap         Kind = "DustCap"
	KindFlatPanel       Kind = "FlatPanel"
	KindDome            Kind = "Dome"
	KindWeatherStation  Kind = "WeatherStation"
	KindSkyQualityMeter Kind = "SkyQualityMeter"
	KindSwitch          Kind = "Switch"
	KindReceiver        Kind = "Receiver"
	KindGuider          Kind = "Guider"
	KindReservation     Kind = "Reservation"
)

// Kinds lists every kind of the group, in the order of the constants above.
var Kinds = []Kind{
	KindObservatory, KindTelescope, KindOpticalTube, KindOpticalTrain,
	KindMount, KindGPS, KindPolarAligner,
	KindCamera, KindFilterWheel, KindFocuser, KindRotator, KindDustCap, KindFlatPanel,
	KindDome, KindWeatherStation,
	KindSkyQualityMeter, KindSwitch, KindReceiver,
	KindGuider, KindReservation,
}

// resources holds each kind's resource name: the plural in URLs, RBAC rules and the CRD.
var resources = map[Kind]string{
	KindObservatory:     "observatories",
	KindTelescope:       "telescopes",
	KindOpticalTube:     "opticaltubes",
	KindOpticalTrain:    "opticaltrains",
	KindMount:           "mounts",
	KindGPS:             "gpses",
	KindPolarAligner:    "polaraligners",
	KindCamera:          "cameras",
	KindFilterWheel:     "filterwheels",
	KindFocuser:         "focusers",
	KindRotator:         "rotators",
	KindDustCap:         "dustcaps",
	KindFlatPanel:       "flatpanels",
	KindDome:            "domes",
	KindWeatherStation:  "weatherstations",
	KindSkyQualityMeter: "skyqualitymeters",
	KindSwitch:          "switches",
	KindReceiver:        "receivers",
	KindGuider:          "guiders",
	KindReservation:     "reservations",
}

// Resource is the kind's resource name, such as "telescopes"; empty for a kind not in the group.
func (k Kind) Resource() string { return resources[k] }

// GroupVersionResource is what the dynamic client needs to reach the kind.
func (k Kind) GroupVersionResource() schema.GroupVersionResource {
	return SchemeGroupVersion.WithResource(k.Resource())
}

// GroupVersionKind is the kind with this package's group and version, as owner references
// and Events name it.
func (k Kind) GroupVersionKind() schema.GroupVersionKind {
	return SchemeGroupVersion.WithKind(string(k))
}

// IsDevice says whether the kind runs an INDI driver in a pod of its own: the 14 kinds whose
// spec has a driver and whose status is a DeviceStatus.
func (k Kind) IsDevice() bool {
	switch k {
	case KindMount, KindGPS, KindPolarAligner,
		KindCamera, KindFilterWheel, KindFocuser, KindRotator, KindDustCap, KindFlatPanel,
		KindDome, KindWeatherStation,
		KindSkyQualityMeter, KindSwitch, KindReceiver:
		return true
	}
	return false
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&Observatory{}, &ObservatoryList{},
		&Telescope{}, &TelescopeList{},
		&OpticalTube{}, &OpticalTubeList{},
		&OpticalTrain{}, &OpticalTrainList{},
		&Mount{}, &MountList{},
		&GPS{}, &GPSList{},
		&PolarAligner{}, &PolarAlignerList{},
		&Camera{}, &CameraList{},
		&FilterWheel{}, &FilterWheelList{},
		&Focuser{}, &FocuserList{},
		&Rotator{}, &RotatorList{},
		&DustCap{}, &DustCapList{},
		&FlatPanel{}, &FlatPanelList{},
		&Dome{}, &DomeList{},
		&WeatherStation{}, &WeatherStationList{},
		&SkyQualityMeter{}, &SkyQualityMeterList{},
		&Switch{}, &SwitchList{},
		&Receiver{}, &ReceiverList{},
		&Guider{}, &GuiderList{},
		&Reservation{}, &ReservationList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
