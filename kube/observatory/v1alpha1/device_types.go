// What the 14 device kinds have in common. A device is one INDI driver: the runner runs it in a
// pod of its own (<name>-<kind>) while a reservation needs it, links it into the INDI server of
// its telescope or observatory, and mirrors what the driver reports into the device's status.
// The kinds differ only in their parent, their verbs and a few fields, so each kind's spec
// embeds DeviceSpec and each kind's status is a DeviceStatus.

package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

// Driver is the INDI driver a device runs, and the image that holds it.
//
// +kubebuilder:validation:XValidation:rule="has(self.image) || self.name.matches('^indi_[a-z0-9_]+$')",message="driver.name must match ^indi_[a-z0-9_]+$ when driver.image is not set"
type Driver struct {
	// The driver's executable, such as indi_simulator_ccd or indi_asi_ccd. Without an image,
	// the runner picks one: a vendor image that holds the driver, indi-simulators for
	// indi_simulator_*, or else indi.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`
	Name string `json:"name"`

	// The container image that holds the driver, in place of the runner's choice.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Image string `json:"image,omitempty"`
}

// Power is the Switch output that powers a device. The runner turns it on before the
// device's pod starts and off after the reservation ends.
type Power struct {
	// The Switch, in this namespace, whose output powers the device.
	// +required
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Switch string `json:"switch"`

	// The output's number on the Switch, counting from 1 (INDI's DIGITAL_OUTPUT_<n>).
	// +required
	// +kubebuilder:validation:Minimum=1
	Output int32 `json:"output"`
}

// DeviceSpec is what every device's spec has.
type DeviceSpec struct {
	// The INDI driver to run.
	// +required
	Driver Driver `json:"driver"`

	// The Switch output that powers the device, if one does.
	// +optional
	Power *Power `json:"power,omitempty"`

	// A resource.k8s.io/v1 ResourceClaimSpec for the hardware the driver needs, such as a USB
	// device on one node. The runner creates a ResourceClaim with this spec, copied as given,
	// and gives it to the device's pod, so the node that has the hardware runs the driver.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Claim *runtime.RawExtension `json:"claim,omitempty"`

	// How the driver reaches the hardware: its serial port and speed, and the INDI properties
	// the runner sets before it connects the device.
	// +optional
	Connection *Connection `json:"connection,omitempty"`

	// Where the driver keeps what it saves of its configuration (INDI's ~/.indi: its
	// settings, a mount's park position), so that it outlives the driver's pod. Without it,
	// the configuration lives in the pod and goes with it.
	// +optional
	Config *ConfigVolume `json:"config,omitempty"`
}

// ConfigVolume is the PersistentVolumeClaim <name>-<kind>-config the runner makes for a
// device's saved configuration, mounted where the driver saves it. It belongs to the device:
// it stays from one reservation to the next and goes when the device is deleted.
type ConfigVolume struct {
	// The claim's StorageClass; unset takes the cluster's default, "" binds a volume made
	// beforehand. A node-local class (k3s' local-path) keeps it on the node the device's
	// driver runs on, which its claim decides.
	// +optional
	StorageClassName *string `json:"storageClassName,omitempty"`

	// The claim's size; 16Mi by default, more than INDI's files need.
	// +optional
	Size *resource.Quantity `json:"size,omitempty"`
}

// Connection is how a driver reaches its hardware. The runner sets it over INDI before each
// connect, in this order: the port (and serial mode, for a driver that also speaks TCP), the
// baud rate, then each setting; a driver's refusal fails the Connect step with the property's
// name and the driver's words.
type Connection struct {
	// The serial port the driver opens (INDI's DEVICE_PORT). With a claim of the DeviceClass
	// serial.liken.sh, it is the claimed device's link attribute, such as
	// /dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0: the name the device
	// keeps whatever tty number it gets.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:Pattern=`^/dev/[A-Za-z0-9_./:+-]+$`
	Port string `json:"port,omitempty"`

	// The serial port's speed in baud (INDI's DEVICE_BAUD_RATE).
	// +optional
	// +kubebuilder:validation:Enum=9600;19200;38400;57600;115200;230400
	BaudRate int32 `json:"baudRate,omitempty"`

	// INDI properties to set before connecting, in order, such as an EQMod mount's or a
	// CloudWatcher's settings.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	Settings []Setting `json:"settings,omitempty"`
}

// Setting is one INDI property to set: some of its elements, each to a value written as INDI
// writes it (a number, a text, or On/Off for a switch).
type Setting struct {
	// The property's name, such as TELESCOPE_INFO or WEATHER_PARAMETERS.
	// +required
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9_]+$`
	Property string `json:"property"`

	// The elements to set, by name, such as {"TELESCOPE_FOCAL_LENGTH": "800"}.
	// +required
	// +kubebuilder:validation:MinProperties=1
	Values map[string]string `json:"values"`
}

// DevicePhase is where a device is in its life.
//
// +kubebuilder:validation:Enum=Inventory;Idle;Starting;Connecting;Connected;Disconnecting;Error
type DevicePhase string

// The device phases.
const (
	// DeviceInventory: the device has no parent; it is on the shelf.
	DeviceInventory DevicePhase = "Inventory"
	// DeviceIdle: installed, with no active reservation.
	DeviceIdle DevicePhase = "Idle"
	// DeviceStarting: a reservation is creating its pod.
	DeviceStarting DevicePhase = "Starting"
	// DeviceConnecting: the driver runs and is being connected to the hardware.
	DeviceConnecting DevicePhase = "Connecting"
	// DeviceConnected: the driver talks to the hardware.
	DeviceConnected DevicePhase = "Connected"
	// DeviceDisconnecting: the reservation is ending.
	DeviceDisconnecting DevicePhase = "Disconnecting"
	// DeviceError: something failed; the Ready condition says what.
	DeviceError DevicePhase = "Error"
)

// Keys of a device's status.readings and status.display. The printer columns read display.
const (
	ReadingRA          = "ra"          // Mount: right ascension
	ReadingDec         = "dec"         // Mount: declination
	ReadingState       = "state"       // Mount: Parked, Tracking, Slewing, ...
	ReadingAzimuth     = "azimuth"     // Dome
	ReadingShutter     = "shutter"     // Dome: Open or Closed
	ReadingPark        = "park"        // Dome: Parked or Unparked
	ReadingCover       = "cover"       // DustCap: Open or Closed
	ReadingLight       = "light"       // FlatPanel: Lit or Dark
	ReadingBrightness  = "brightness"  // FlatPanel: light level; SkyQualityMeter: sky brightness
	ReadingTemperature = "temperature" // Camera: sensor temperature
	ReadingCooler      = "cooler"      // Camera: cooler on or off, and its power
	ReadingExposure    = "exposure"    // Camera: time left in the exposure
	ReadingSlot        = "slot"        // FilterWheel: slot number
	ReadingFilter      = "filter"      // FilterWheel: the slot's filter name
	ReadingPosition    = "position"    // Focuser: steps; GPS: latitude, longitude, elevation
	ReadingAngle       = "angle"       // Rotator
	ReadingSafety      = "safety"      // WeatherStation: Safe, Warning or Danger
	ReadingOutputs     = "outputs"     // Switch: number of outputs
	ReadingOn          = "on"          // Switch: outputs that are on
	ReadingInputs      = "inputs"      // Switch: input readings
	ReadingFrequency   = "frequency"   // Receiver
	ReadingFix         = "fix"         // GPS: fix quality
	ReadingTime        = "time"        // GPS: UTC time
)

// DeviceStatus is the status of every device kind: where it is in its life, where its driver
// runs, and what the driver reports.
type DeviceStatus struct {
	StatusBase `json:",inline"`

	// Inventory (no parent), Idle (no active reservation), Starting, Connecting, Connected,
	// Disconnecting, or Error.
	// +optional
	Phase DevicePhase `json:"phase,omitempty"`

	// Records of the device's procedure runs, so a restarted runner resumes them.
	// +optional
	Procedures []ProcedureRecord `json:"procedures,omitempty"`

	// The device's name on the INDI server, as the driver defines it, such as "CCD Simulator".
	// +optional
	IndiDevice string `json:"indiDevice,omitempty"`

	// The driver that runs.
	// +optional
	Driver string `json:"driver,omitempty"`

	// The image the driver runs from.
	// +optional
	Image string `json:"image,omitempty"`

	// The device's pod, such as east-mount.
	// +optional
	Pod string `json:"pod,omitempty"`

	// The node the pod runs on.
	// +optional
	Node string `json:"node,omitempty"`

	// Every INDI property the driver defines, as last reported, without BLOB data.
	// +optional
	// +listType=map
	// +listMapKey=name
	Properties []Property `json:"properties,omitempty"`

	// The readings as text with units, for people, keyed like readings.
	// +optional
	Display map[string]string `json:"display,omitempty"`

	// The device's main values as the driver reports them: Mount ra, dec, state; Dome
	// azimuth, shutter, park; DustCap cover; FlatPanel light, brightness; Camera temperature,
	// cooler, exposure; FilterWheel slot, filter; Focuser position; Rotator angle;
	// WeatherStation safety and each weather parameter; SkyQualityMeter brightness; Switch
	// outputs, on, inputs; Receiver frequency; GPS fix, time, position.
	// +optional
	Readings map[string]string `json:"readings,omitempty"`
}

// Property is one INDI property vector as the driver last reported it.
type Property struct {
	// The property's name, such as CONNECTION or CCD_TEMPERATURE.
	// +required
	Name string `json:"name"`

	// The property's label, for people.
	// +optional
	Label string `json:"label,omitempty"`

	// The group (tab) the property belongs to.
	// +optional
	Group string `json:"group,omitempty"`

	// The vector's type: Number, Text, Switch, Light, or BLOB.
	// +optional
	Type string `json:"type,omitempty"`

	// The vector's state: Idle, Ok, Busy, or Alert.
	// +optional
	State string `json:"state,omitempty"`

	// Who may write it: ro, wo, or rw.
	// +optional
	Permission string `json:"perm,omitempty"`

	// For a switch vector, how many switches may be on: OneOfMany, AtMostOne, or AnyOfMany.
	// +optional
	Rule string `json:"rule,omitempty"`

	// The vector's elements.
	// +optional
	Elements []PropertyElement `json:"elements,omitempty"`
}

// PropertyElement is one element of an INDI property vector.
type PropertyElement struct {
	// The element's name, such as CCD_TEMPERATURE_VALUE.
	// +required
	Name string `json:"name"`

	// The element's label, for people.
	// +optional
	Label string `json:"label,omitempty"`

	// The element's value as INDI sends it: a number, text, On/Off, or a light state.
	// +optional
	Value string `json:"value,omitempty"`
}
