// The devices that serve a whole site: the dome and the weather station belong to an
// Observatory; a sky quality meter, a power switch or a receiver belongs to one telescope or
// to the site. A site's drivers run on the observatory's INDI server (<observatory>-observatory),
// shared by all its telescopes.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Dome is an observatory's dome. Its state verb parks and unparks it, and the shutter follows:
// closed on park, open on unpark. While the observatory runs, the dome and every mount lock each
// other's moves.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=domes,singular=dome,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.observatory"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Dome name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Observatory",type=string,JSONPath=`.spec.observatory`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Azimuth",type=string,JSONPath=`.status.display.azimuth`
// +kubebuilder:printcolumn:name="Shutter",type=string,JSONPath=`.status.display.shutter`
// +kubebuilder:printcolumn:name="Park",type=string,JSONPath=`.status.display.park`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Dome struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-dome.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec DomeSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// DomeSpec is a Dome's spec.
type DomeSpec struct {
	ObservatoryParent `json:",inline"`
	DeviceSpec        `json:",inline"`
	ParkProcedures    `json:",inline"`
}

// DomeList is a list of domes.
//
// +kubebuilder:object:root=true
type DomeList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The domes.
	Items []Dome `json:"items"`
}

// WeatherStation is a site's weather sensors. Its Safe condition, False with reason Warning or
// Danger, is what triggers usually watch.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=weatherstations,singular=weatherstation,shortName=weather,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.observatory"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a WeatherStation name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Observatory",type=string,JSONPath=`.spec.observatory`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Safety",type=string,JSONPath=`.status.display.safety`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type WeatherStation struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-weatherstation.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec WeatherStationSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// WeatherStationSpec is a WeatherStation's spec.
type WeatherStationSpec struct {
	ObservatoryParent `json:",inline"`
	DeviceSpec        `json:",inline"`
	Procedures        `json:",inline"`
}

// WeatherStationList is a list of weatherstations.
//
// +kubebuilder:object:root=true
type WeatherStationList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The weather stations.
	Items []WeatherStation `json:"items"`
}

// SkyQualityMeter is a meter of the sky's brightness, in magnitudes per square arc-second, for
// one telescope or for the site.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=skyqualitymeters,singular=skyqualitymeter,shortName=sqm,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:selectablefield:JSONPath=".spec.observatory"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a SkyQualityMeter name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Observatory",type=string,JSONPath=`.spec.observatory`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Brightness",type=string,JSONPath=`.status.display.brightness`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type SkyQualityMeter struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-skyqualitymeter.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec SkyQualityMeterSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// SkyQualityMeterSpec is a SkyQualityMeter's spec.
type SkyQualityMeterSpec struct {
	TelescopeOrObservatoryParent `json:",inline"`
	DeviceSpec                   `json:",inline"`
	Procedures                   `json:",inline"`
}

// SkyQualityMeterList is a list of skyqualitymeters.
//
// +kubebuilder:object:root=true
type SkyQualityMeterList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The sky quality meters.
	Items []SkyQualityMeter `json:"items"`
}

// Switch is a power box whose outputs power other devices (their spec.power names it), for one
// telescope or for the site. Its pod starts before the devices it powers and stops after them.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=switches,singular=switch,shortName=sw,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:selectablefield:JSONPath=".spec.observatory"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Switch name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Observatory",type=string,JSONPath=`.spec.observatory`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="On",type=string,JSONPath=`.status.display.on`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Switch struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-switch.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec SwitchSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// SwitchSpec is a Switch's spec.
type SwitchSpec struct {
	TelescopeOrObservatoryParent `json:",inline"`
	DeviceSpec                   `json:",inline"`
	Procedures                   `json:",inline"`
}

// SwitchList is a list of switches.
//
// +kubebuilder:object:root=true
type SwitchList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The switches.
	Items []Switch `json:"items"`
}

// Receiver is a radio receiver, for one telescope or for the site.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=receivers,singular=receiver,shortName=rx,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:selectablefield:JSONPath=".spec.observatory"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Receiver name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Observatory",type=string,JSONPath=`.spec.observatory`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Frequency",type=string,JSONPath=`.status.display.frequency`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Driver",type=string,priority=1,JSONPath=`.spec.driver.name`
// +kubebuilder:printcolumn:name="Device",type=string,priority=1,JSONPath=`.status.indiDevice`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Receiver struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// device's pod, Service and claim <name>-receiver.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// What the device is, where it belongs, and what it does.
	// +required
	Spec ReceiverSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status DeviceStatus `json:"status,omitempty"`
}

// ReceiverSpec is a Receiver's spec.
type ReceiverSpec struct {
	TelescopeOrObservatoryParent `json:",inline"`
	DeviceSpec                   `json:",inline"`
	Procedures                   `json:",inline"`
}

// ReceiverList is a list of receivers.
//
// +kubebuilder:object:root=true
type ReceiverList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The receivers.
	Items []Receiver `json:"items"`
}
