// The Guider kind: PHD2 keeping a telescope on target with a guide camera. While a reservation
// holds the telescope, the runner runs PHD2 in a pod (<name>-guider) beside the telescope's
// INDI server and mirrors PHD2's event stream (state, calibration, RMS error, alerts) into the
// status, at most once a second.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Guider is PHD2 guiding a telescope with the camera of one optical train.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=guiders,singular=guider,categories=astro
// +kubebuilder:subresource:status
// +kubebuilder:selectablefield:JSONPath=".spec.telescope"
// +kubebuilder:selectablefield:JSONPath=".spec.opticalTrain"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 32",message="a Guider name must be at most 32 characters"
// +kubebuilder:printcolumn:name="Telescope",type=string,JSONPath=`.spec.telescope`
// +kubebuilder:printcolumn:name="Train",type=string,JSONPath=`.spec.opticalTrain`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.status.state`
// +kubebuilder:printcolumn:name="RMS",type=number,JSONPath=`.status.rms.total`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Pulses",type=string,priority=1,JSONPath=`.spec.pulses`
// +kubebuilder:printcolumn:name="Node",type=string,priority=1,JSONPath=`.status.node`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
type Guider struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is at most 32 characters: the runner names the
	// guider's pod, Service and ConfigMap <name>-guider.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Which telescope the guider keeps on target, with which camera.
	// +required
	Spec GuiderSpec `json:"spec"`
	// What PHD2 reports; written only by the runner.
	// +optional
	Status GuiderStatus `json:"status,omitempty"`
}

// GuidePulses says which device PHD2 sends guide pulses through.
//
// +kubebuilder:validation:Enum=Mount;Camera
type GuidePulses string

// The ways to send guide pulses.
const (
	PulsesMount  GuidePulses = "Mount"
	PulsesCamera GuidePulses = "Camera"
)

// GuiderSpec is a Guider's spec: the telescope to guide, and the optical train whose camera
// guides. That camera runs on the telescope server's node, unless it has a claim, so guide
// frames cross no link between nodes.
type GuiderSpec struct {
	TelescopeParent    `json:",inline"`
	OpticalTrainParent `json:",inline"`

	// Where guide pulses go: Mount (through the mount's driver) or Camera (through the guide
	// camera's ST-4 port, "On-camera" in PHD2).
	// +optional
	// +kubebuilder:default=Mount
	Pulses GuidePulses `json:"pulses,omitempty"`
}

// GuiderState is PHD2's application state.
//
// +kubebuilder:validation:Enum=Stopped;Selected;Looping;Calibrating;Guiding;LostLock;Paused
type GuiderState string

// PHD2's states.
const (
	GuiderStopped     GuiderState = "Stopped"
	GuiderSelected    GuiderState = "Selected"
	GuiderLooping     GuiderState = "Looping"
	GuiderCalibrating GuiderState = "Calibrating"
	GuiderGuiding     GuiderState = "Guiding"
	GuiderLostLock    GuiderState = "LostLock"
	GuiderPaused      GuiderState = "Paused"
)

// GuiderStatus is what PHD2 reports, and where it runs.
type GuiderStatus struct {
	StatusBase `json:",inline"`

	// Where the guider is in the reservation's life. Its Ready condition is True while PHD2
	// runs with its camera and mount connected.
	// +optional
	Phase string `json:"phase,omitempty"`

	// PHD2's event server, port 4400, while the guider runs.
	// +optional
	Endpoint *Endpoint `json:"endpoint,omitempty"`

	// The guider's pod, such as east-guider.
	// +optional
	Pod string `json:"pod,omitempty"`

	// The node the pod runs on.
	// +optional
	Node string `json:"node,omitempty"`

	// PHD2's state: Stopped, Selected, Looping, Calibrating, Guiding, LostLock, or Paused.
	// +optional
	State GuiderState `json:"state,omitempty"`

	// Whether PHD2 has a calibration for the mount.
	// +optional
	Calibrated bool `json:"calibrated,omitempty"`

	// The guide camera's image scale, in arc-seconds per pixel.
	// +optional
	PixelScale float64 `json:"pixelScale,omitempty"`

	// The guiding error over the recent steps.
	// +optional
	RMS *GuideRMS `json:"rms,omitempty"`

	// The guide star as last measured.
	// +optional
	Star *GuideStar `json:"star,omitempty"`

	// When the last guide step happened.
	// +optional
	LastStepTime *metav1.Time `json:"lastStepTime,omitempty"`

	// PHD2's last alert, such as a lost star or a failed calibration.
	// +optional
	Alert *GuideAlert `json:"alert,omitempty"`
}

// GuideRMS is the root-mean-square guiding error, in arc-seconds.
type GuideRMS struct {
	// The error in right ascension.
	// +optional
	RA float64 `json:"ra,omitempty"`

	// The error in declination.
	// +optional
	Dec float64 `json:"dec,omitempty"`

	// The combined error.
	// +optional
	Total float64 `json:"total,omitempty"`

	// How many guide steps, up to the last 100, the figures cover.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Steps int32 `json:"steps,omitempty"`

	// When the first of those steps happened.
	// +optional
	Since *metav1.Time `json:"since,omitempty"`
}

// GuideStar is the guide star as PHD2 last measured it.
type GuideStar struct {
	// The star's signal-to-noise ratio.
	// +optional
	SNR float64 `json:"snr,omitempty"`

	// The star's half-flux diameter, in pixels.
	// +optional
	HFD float64 `json:"hfd,omitempty"`
}

// GuideAlert is an alert PHD2 raised.
type GuideAlert struct {
	// The alert's text.
	// +optional
	Message string `json:"message,omitempty"`

	// PHD2's alert type: info, question, warning, or error.
	// +optional
	Type string `json:"type,omitempty"`

	// When PHD2 raised it.
	// +optional
	Time *metav1.Time `json:"time,omitempty"`
}

// GuiderList is a list of guiders.
//
// +kubebuilder:object:root=true
type GuiderList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The guiders.
	Items []Guider `json:"items"`
}
