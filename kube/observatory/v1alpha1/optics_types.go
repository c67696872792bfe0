// The optics of a telescope: an OpticalTube (the lens or mirror, whose aperture and focal
// length the runner writes to the camera drivers as SCOPE_INFO and to PHD2's profile) and an
// OpticalTrain (the light path behind one tube, that cameras, focusers and the rest name as
// their parent). Neither runs a driver.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OpticalTube is a telescope's lens or mirror: a main tube or a guide scope.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=opticaltubes,singular=opticaltube,shortName=ota,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="an OpticalTube name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Aperture",type=number,JSONPath=`.spec.aperture`
// +kubebuilder:printcolumn:name="Focal Length",type=number,JSONPath=`.spec.focalLength`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="ParentFound")].message`
type OpticalTube struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters, like every name in this
	// group.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The tube's telescope and optics.
	// +required
	Spec OpticalTubeSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status StatusBase `json:"status,omitempty"`
}

// OpticalTubeSpec is an OpticalTube's spec.
type OpticalTubeSpec struct {
	TelescopeParent `json:",inline"`

	// The diameter of the lens or mirror, in millimetres.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	Aperture float64 `json:"aperture,omitempty"`

	// The focal length, in millimetres, with any reducer or barlow in the train.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	FocalLength float64 `json:"focalLength,omitempty"`
}

// OpticalTubeList is a list of optical tubes.
//
// +kubebuilder:object:root=true
type OpticalTubeList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The optical tubes.
	Items []OpticalTube `json:"items"`
}

// OpticalTrain is the light path behind one tube of a telescope; cameras, filter wheels,
// focusers, rotators, dust caps and flat panels name it as their parent.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=opticaltrains,singular=opticaltrain,shortName=train,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:selectablefield:JSONPath=".spec.opticalTube"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="an OpticalTrain name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Tube",type=string,JSONPath=`.spec.opticalTube`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="ParentFound")].message`
type OpticalTrain struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters, like every name in this
	// group.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// The train's telescope and tube.
	// +required
	Spec OpticalTrainSpec `json:"spec"`
	// What the runner observes; written only by the runner.
	// +optional
	Status StatusBase `json:"status,omitempty"`
}

// OpticalTrainSpec is an OpticalTrain's spec.
type OpticalTrainSpec struct {
	TelescopeParent `json:",inline"`

	// The OpticalTube, in this namespace, whose light the train takes.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	OpticalTube string `json:"opticalTube,omitempty"`
}

// OpticalTrainList is a list of optical trains.
//
// +kubebuilder:object:root=true
type OpticalTrainList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The optical trains.
	Items []OpticalTrain `json:"items"`
}
