// Tests of how a Guider's status follows its PHD2 while a reservation is Ready, against the real
// API server, an INDI simulator and a fake PHD2 event server on 127.0.0.1.
package observatory

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/indi/inditest"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/phd2/guiding"
	"liken.sh/runner/phd2/phd2test"
)

// A Ready reservation's Guider shows PHD2's guiding: state, calibration, the RMS error in
// arc-seconds and the last alert, as PHD2's events tell them (a fake event server here).
func TestAGuidersStatusFollowsPHD2sEventsWhileReady(t *testing.T) {
	scope := inditest.Start(t, "indi_simulator_telescope")
	phd := phd2test.New(t)
	phd.SetPixelScale(2)
	ns := observatoryNamespace(t, "observe-guider-"+utilrand.String(5))
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}}}})
	createGuider(t, ns)

	a := newActivities()
	a.INDI = serverResolver{"east-telescope": scope}
	guiders := &guidersAt{addr: phd.Addr}
	a.PHD2 = guiders
	ctx, cancel := context.WithTimeout(context.Background(), observeWait)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- a.ObserveDevices(ctx, StepInput{Namespace: ns, Reservation: "tonight", Holder: "ada", Telescope: "east", Step: "Observe"})
	}()

	var g obsv1.Guider
	await := func(what string, ok func(obsv1.GuiderStatus) bool) {
		t.Helper()
		require.Eventually(t, func() bool {
			readObject(t, obsv1.KindGuider, ns, "east", &g)
			return ok(g.Status)
		}, observeWait, 100*time.Millisecond, "%s; last %+v", what, g.Status)
	}
	await("the stopped PHD2 is shown", func(st obsv1.GuiderStatus) bool { return st.State == obsv1.GuiderStopped })
	assert.Equal(t, 2.0, g.Status.PixelScale)
	assert.False(t, g.Status.Calibrated)

	phd.Calibrate()
	phd.Step(0.3, -0.4, 25, 2.5)
	phd.Step(-0.3, 0.4, 30, 2.4)
	await("guiding, with its error", func(st obsv1.GuiderStatus) bool { return st.RMS != nil && st.RMS.Steps == 2 })
	assert.Equal(t, obsv1.GuiderGuiding, g.Status.State)
	assert.True(t, g.Status.Calibrated)
	// 0.3 and 0.4 pixels at 2"/pixel.
	assert.Equal(t, obsv1.GuideRMS{RA: 0.6, Dec: 0.8, Total: 1, Steps: 2, Since: g.Status.RMS.Since}, *g.Status.RMS)
	assert.Equal(t, &obsv1.GuideStar{SNR: 30, HFD: 2.4}, g.Status.Star)
	require.NotNil(t, g.Status.LastStepTime)

	phd.Alert("Star lost", "warning")
	phd.SetState(guiding.StateLostLock)
	await("the lost star", func(st obsv1.GuiderStatus) bool { return st.State == obsv1.GuiderLostLock && st.Alert != nil })
	assert.Equal(t, "Star lost", g.Status.Alert.Message)
	assert.Equal(t, "warning", g.Status.Alert.Type)

	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, []GuiderServer{{Namespace: ns, Name: "east-guider"}}, guiders.Asked(), "PHD2 reached once, at the guider's Service")
}
