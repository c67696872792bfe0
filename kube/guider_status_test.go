// A Guider's status from PHD2: its state and its error in arc-seconds.
package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/phd2/guiding"
)

func TestAGuidersStatusShowsPHD2sStateAndItsErrorInArcSeconds(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 22, 0, 0, 500_000_000, time.UTC)
	steps := []guiding.Step{
		{Time: t0, RA: 0.3, Dec: -0.4, SNR: 25.04, HFD: 2.456},
		{Time: t0.Add(2 * time.Second), RA: -0.3, Dec: 0.4, SNR: 30.06, HFD: 2.444},
	}
	old := &obsv1.GuideAlert{Message: "Star lost", Type: "warning", Time: &metav1.Time{Time: t0.Add(-time.Hour).Truncate(time.Second)}}
	base := obsv1.GuiderStatus{Pod: "east-guider", Alert: old}
	for name, tc := range map[string]struct {
		g     guiding.Status
		scale float64
		want  obsv1.GuiderStatus
	}{
		"guiding": {guiding.Status{State: guiding.StateGuiding, Calibrated: true, Steps: steps}, 2, obsv1.GuiderStatus{
			Pod: "east-guider", State: obsv1.GuiderGuiding, Calibrated: true, PixelScale: 2,
			// 0.3 and 0.4 px at 2"/px: 0.6" and 0.8", 1" together.
			RMS:          &obsv1.GuideRMS{RA: 0.6, Dec: 0.8, Total: 1, Steps: 2, Since: &metav1.Time{Time: t0.Truncate(time.Second)}},
			Star:         &obsv1.GuideStar{SNR: 30.1, HFD: 2.44},
			LastStepTime: &metav1.Time{Time: t0.Add(2 * time.Second).Truncate(time.Second)},
			Alert:        old,
		}},
		"no image scale: no RMS": {guiding.Status{State: guiding.StateGuiding, Steps: steps}, 0, obsv1.GuiderStatus{
			Pod: "east-guider", State: obsv1.GuiderGuiding,
			Star:         &obsv1.GuideStar{SNR: 30.1, HFD: 2.44},
			LastStepTime: &metav1.Time{Time: t0.Add(2 * time.Second).Truncate(time.Second)},
			Alert:        old,
		}},
		"stopped, with a new alert": {guiding.Status{State: guiding.StateStopped,
			Alert: &guiding.Alert{Message: "Calibration failed", Type: "error", Time: t0}}, 2, obsv1.GuiderStatus{
			Pod: "east-guider", State: obsv1.GuiderStopped, PixelScale: 2,
			Alert: &obsv1.GuideAlert{Message: "Calibration failed", Type: "error", Time: &metav1.Time{Time: t0.Truncate(time.Second)}},
		}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, ObservedGuiderStatus(base, tc.g, tc.scale))
		})
	}
	assert.Empty(t, base.State, "the input is not changed")
}
