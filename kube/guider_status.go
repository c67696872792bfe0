// A Guider's status while its reservation is Ready: what PHD2's events say of its guiding,
// so a user sees the state, the guiding error in arc-seconds and the last alert with kubectl
// (the RMS column of `kubectl get guiders`). Computed from the events alone, so any observer
// computes the same status and writes nothing when it is there already.
package kube

import (
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/phd2/guiding"
)

// ObservedGuiderStatus is st with what PHD2 told (g) and its image scale in arc-seconds per
// pixel (0: unknown, and then there is no RMS, which is in arc-seconds). The RMS covers the
// steps PHD2 kept since guiding last started; the star is the last step's. Times are in
// whole seconds, as the API server keeps them. The input is not changed.
func ObservedGuiderStatus(st obsv1.GuiderStatus, g guiding.Status, pixelScale float64) obsv1.GuiderStatus {
	out := *st.DeepCopy()
	out.State = obsv1.GuiderState(g.State)
	out.Calibrated = g.Calibrated
	out.PixelScale = round(pixelScale, 3)
	out.RMS, out.Star, out.LastStepTime = nil, nil, nil
	if n := len(g.Steps); n > 0 {
		last := g.Steps[n-1]
		out.Star = &obsv1.GuideStar{SNR: round(last.SNR, 1), HFD: round(last.HFD, 2)}
		out.LastStepTime = wholeSeconds(last.Time)
		if pixelScale > 0 {
			var ra, dec float64
			for _, s := range g.Steps {
				ra += s.RA * s.RA
				dec += s.Dec * s.Dec
			}
			ra, dec = math.Sqrt(ra/float64(n))*pixelScale, math.Sqrt(dec/float64(n))*pixelScale
			out.RMS = &obsv1.GuideRMS{RA: round(ra, 2), Dec: round(dec, 2), Total: round(math.Hypot(ra, dec), 2),
				Steps: int32(n), Since: wholeSeconds(g.Steps[0].Time)}
		}
	}
	if g.Alert != nil { // else the last one stays: a new connection has seen none yet
		out.Alert = &obsv1.GuideAlert{Message: g.Alert.Message, Type: g.Alert.Type, Time: wholeSeconds(g.Alert.Time)}
	}
	return out
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// wholeSeconds is t as the API server keeps it; nil for the zero time.
func wholeSeconds(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &metav1.Time{Time: t.UTC().Truncate(time.Second)}
}

// The phases of a Guider while a reservation runs it (the inventory writes the others).
const (
	GuiderPhaseStarting = "Starting"
	GuiderPhaseRunning  = "Running"
)

// StartedGuiderStatus is st once the Guider's pod is created (connected false: PHD2 is on its
// way) or once PHD2 has connected its camera and mount: where it runs, and Ready only then.
// status.pod set says the reservation runs it (see inventory.go).
func StartedGuiderStatus(st obsv1.GuiderStatus, pod, node string, endpoint obsv1.Endpoint, connected bool, generation int64, now time.Time) obsv1.GuiderStatus {
	out := *st.DeepCopy()
	out.Pod, out.Node = pod, node
	ep := endpoint
	out.Endpoint = &ep
	ready := ReadyCondition(GuiderPhaseStarting, "Starting PHD2 in pod "+pod)
	out.Phase = GuiderPhaseStarting
	if connected {
		out.Phase = GuiderPhaseRunning
		ready = ReadyCondition(ReasonReady, "PHD2 connected its camera and mount")
	}
	out.Conditions = WithCondition(out.Conditions, ready, generation, now)
	return out
}

// StoppedGuiderStatus is st once the Guider's pod is gone: Idle and Stopped, where it ran
// dropped; what PHD2 last measured stays for the record.
func StoppedGuiderStatus(st obsv1.GuiderStatus, generation int64, now time.Time) obsv1.GuiderStatus {
	out := *st.DeepCopy()
	out.Pod, out.Node, out.Endpoint = "", "", nil
	out.Phase, out.State = string(obsv1.DeviceIdle), obsv1.GuiderStopped
	out.Conditions = WithCondition(out.Conditions, ReadyCondition(string(obsv1.DeviceIdle), MessageNotReserved), generation, now)
	return out
}
