// Package guiding holds what PHD2 says of its guiding, as plain values: its app state, the
// last guide steps and the last alert. Package phd2's client fills them from PHD2's events;
// kube turns them into a Guider's status without the client that dials.
package guiding

import "time"

// The app states, as PHD2 names them in AppState events and get_app_state.
const (
	StateStopped     = "Stopped"
	StateSelected    = "Selected"
	StateCalibrating = "Calibrating"
	StateGuiding     = "Guiding"
	StateLostLock    = "LostLock"
	StatePaused      = "Paused"
	StateLooping     = "Looping"
)

// Alert is the last alert PHD2 showed: its message and type (info, question, warning, error),
// and when.
type Alert struct {
	Message, Type string
	Time          time.Time
}

// MaxSteps is how many of the last guide steps phd2's client keeps.
const MaxSteps = 100

// Step is one guide step (a GuideStep event): when, the star's distance from the lock
// position on each axis in pixels (RADistanceRaw, DECDistanceRaw), and the star's
// signal-to-noise ratio and half-flux diameter.
type Step struct {
	Time     time.Time
	RA, Dec  float64
	SNR, HFD float64
}

// Status is what PHD2's events have told since the client connected.
type Status struct {
	State string
	// Calibrated: a calibration completed (or get_calibrated said so), and none has started
	// or failed since.
	Calibrated bool
	// Steps are the guide steps since guiding last started, the last MaxSteps of them.
	Steps []Step
	Alert *Alert
}
