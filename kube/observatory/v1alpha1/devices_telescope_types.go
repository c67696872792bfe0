// The devices that belong to a Telescope as a whole rather than to one optical train: the
// mount, a GPS and a polar aligner. Their drivers run on the telescope's INDI server
// (<telescope>-telescope).

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Mount is the motorised mount that points a telescope and tracks the sky. Its state verb parks
// and unparks it; while the Observatory has a Dome, the mount and the dome lock each other's
// moves.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=mounts,singular=mount,shortName=mnt,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Mount name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="RA",type=string,JSONPath=`.status.display.ra`
// +kubebuilder:printcolumn:name="Dec",type=string,JSONPath=`.status.display.dec`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.display.state`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Mount struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-mount.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec MountSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// MountSpec is a Mount's spec.
type MountSpec struct {
	TelescopeParent `json:",inline"`
	DeviceSpec      `json:",inline"`
	ParkProcedures  `json:",inline"`
}

// MountList is a list of mounts.
//
// +kubebuilder:object:root=true
type MountList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The mounts.
	Items []Mount `json:"items"`
}

// GPS is a GPS receiver that gives a telescope's devices the site's position and the time.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=gpses,singular=gps,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a GPS name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Fix",type=string,JSONPath=`.status.display.fix`
// +kubebuilder:printcolumn:name="Time",type=string,JSONPath=`.status.display.time`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type GPS struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-gps.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec GPSSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// GPSSpec is a GPS's spec.
type GPSSpec struct {
	TelescopeParent `json:",inline"`
	DeviceSpec      `json:",inline"`
	Procedures      `json:",inline"`
}

// GPSList is a list of gpses.
//
// +kubebuilder:object:root=true
type GPSList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The GPS receivers.
	Items []GPS `json:"items"`
}

// PolarAligner is a device that helps align a mount's axis with the celestial pole, such as a
// polar camera or a motorised alt-az adjuster.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=polaraligners,singular=polaraligner,shortName=pac,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a PolarAligner name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type PolarAligner struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-polaraligner.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec PolarAlignerSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// PolarAlignerSpec is a PolarAligner's spec.
type PolarAlignerSpec struct {
	TelescopeParent `json:",inline"`
	DeviceSpec      `json:",inline"`
	Procedures      `json:",inline"`
}

// PolarAlignerList is a list of polaraligners.
//
// +kubebuilder:object:root=true
type PolarAlignerList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The polar aligners.
	Items []PolarAligner `json:"items"`
}
