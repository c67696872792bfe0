// The devices in an optical train, the light path behind one tube: camera, filter wheel,
// focuser, rotator, dust cap and flat panel. Their drivers run on the INDI server of the
// train's telescope.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Camera is an imaging or guide camera in an optical train. Its cool and warm verbs drive the
// sensor's cooler.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=cameras,singular=camera,shortName=cam,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.opticalTrain"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Camera name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Train",type=string,JSONPath=`.spec.opticalTrain`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Temperature",type=string,JSONPath=`.status.display.temperature`
// +kubebuilder:printcolumn:name="Cooler",type=string,JSONPath=`.status.display.cooler`
// +kubebuilder:printcolumn:name="Exposure",type=string,JSONPath=`.status.display.exposure`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Camera struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-camera.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec CameraSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// CameraSpec is a Camera's spec.
type CameraSpec struct {
	OpticalTrainParent `json:",inline"`
	DeviceSpec         `json:",inline"`
	CameraProcedures   `json:",inline"`

	// The sensor gain the runner sets (CCD_GAIN) when the camera connects; the driver's when
	// empty.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Gain *int32 `json:"gain,omitempty"`

	// The sensor offset the runner sets (CCD_OFFSET) when the camera connects; the driver's
	// when empty.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Offset *int32 `json:"offset,omitempty"`
}

// CameraList is a list of cameras.
//
// +kubebuilder:object:root=true
type CameraList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The cameras.
	Items []Camera `json:"items"`
}

// FilterWheel is a wheel of filters in an optical train.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=filterwheels,singular=filterwheel,shortName=fw,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.opticalTrain"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a FilterWheel name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Train",type=string,JSONPath=`.spec.opticalTrain`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Slot",type=string,JSONPath=`.status.display.slot`
// +kubebuilder:printcolumn:name="Filter",type=string,JSONPath=`.status.display.filter`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type FilterWheel struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-filterwheel.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec FilterWheelSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// FilterWheelSpec is a FilterWheel's spec.
type FilterWheelSpec struct {
	OpticalTrainParent `json:",inline"`
	DeviceSpec         `json:",inline"`
	Procedures         `json:",inline"`

	// The filters' names by slot, the first for slot 1, such as [L, R, G, B, Ha]. The runner
	// writes them to the driver (FILTER_NAME) when the wheel connects.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=64
	Filters []string `json:"filters,omitempty"`
}

// FilterWheelList is a list of filterwheels.
//
// +kubebuilder:object:root=true
type FilterWheelList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The filter wheels.
	Items []FilterWheel `json:"items"`
}

// Focuser is the motor that moves an optical train's focus.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=focusers,singular=focuser,shortName=foc,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.opticalTrain"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Focuser name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Train",type=string,JSONPath=`.spec.opticalTrain`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Position",type=string,JSONPath=`.status.display.position`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Focuser struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-focuser.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec FocuserSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// FocuserSpec is a Focuser's spec.
type FocuserSpec struct {
	OpticalTrainParent `json:",inline"`
	DeviceSpec         `json:",inline"`
	Procedures         `json:",inline"`
}

// FocuserList is a list of focusers.
//
// +kubebuilder:object:root=true
type FocuserList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The focusers.
	Items []Focuser `json:"items"`
}

// Rotator is a motor that turns an optical train's camera about the optical axis.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=rotators,singular=rotator,shortName=rot,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.opticalTrain"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Rotator name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Train",type=string,JSONPath=`.spec.opticalTrain`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Angle",type=string,JSONPath=`.status.display.angle`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Rotator struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-rotator.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec RotatorSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// RotatorSpec is a Rotator's spec.
type RotatorSpec struct {
	OpticalTrainParent `json:",inline"`
	DeviceSpec         `json:",inline"`
	Procedures         `json:",inline"`
}

// RotatorList is a list of rotators.
//
// +kubebuilder:object:root=true
type RotatorList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The rotators.
	Items []Rotator `json:"items"`
}

// DustCap is a motorised cover over the front of a tube. Its state verb opens and closes it.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=dustcaps,singular=dustcap,shortName=cap,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.opticalTrain"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a DustCap name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Train",type=string,JSONPath=`.spec.opticalTrain`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Cover",type=string,JSONPath=`.status.display.cover`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type DustCap struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-dustcap.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec DustCapSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// DustCapSpec is a DustCap's spec.
type DustCapSpec struct {
	OpticalTrainParent `json:",inline"`
	DeviceSpec         `json:",inline"`
	CoverProcedures    `json:",inline"`
}

// DustCapList is a list of dustcaps.
//
// +kubebuilder:object:root=true
type DustCapList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The dust caps.
	Items []DustCap `json:"items"`
}

// FlatPanel is a light panel in front of a tube for flat frames. Its state verb lights and
// darkens it.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=flatpanels,singular=flatpanel,shortName=flat,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.opticalTrain"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a FlatPanel name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Train",type=string,JSONPath=`.spec.opticalTrain`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Light",type=string,JSONPath=`.status.display.light`
// +kubebuilder:printcolumn:name="Brightness",type=string,JSONPath=`.status.display.brightness`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type FlatPanel struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-flatpanel.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec FlatPanelSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// FlatPanelSpec is a FlatPanel's spec.
type FlatPanelSpec struct {
	OpticalTrainParent `json:",inline"`
	DeviceSpec         `json:",inline"`
	LightProcedures    `json:",inline"`
}

// FlatPanelList is a list of flatpanels.
//
// +kubebuilder:object:root=true
type FlatPanelList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The flat panels.
	Items []FlatPanel `json:"items"`
}
