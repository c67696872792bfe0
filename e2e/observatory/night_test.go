// A night booked by the sky on make run's kind of stack: the example's site moved to where
// the Sun only grazes astronomical twilight around a minute and a half from now, so the night
// lasts minutes, and a Reservation for that night: it resolves the night's dusk and dawn into
// its status, waits for the dusk saying so, is Ready once the dusk has come, and is Released
// at the dawn.
package observatory

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/sky"
	"liken.sh/runner/sky/skytest"
)

func TestANightBookedByTheSkyWaitsForItsDuskAndEndsAtItsDawn(t *testing.T) {
	startSystem(t)
	ns := namespace(t, "dusk")
	c := temporal(t)
	endNightAtEnd(t, c, ns, "dark")
	lowest := time.Now().Add(100 * time.Second)
	place, err := skytest.Grazing(sky.Astronomical.Altitude(), 0.0005, lowest)
	require.NoError(t, err)
	date := sky.SolarDate(place, lowest.Add(-12*time.Hour)) // the evening before the Sun's lowest
	want := sky.Night(place, date, sky.Astronomical)
	require.Equal(t, sky.Falls, want.Darkness)
	t.Logf("the night at %.4f°, %.4f°: from %s to %s", place.Latitude, place.Longitude, want.Dusk.Format(time.TimeOnly), want.Dawn.Format(time.TimeOnly))
	env.ApplyObservatory(t, "examples/observatory.yaml", ns, obsv1.KindReservation)
	_, err = env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "lab",
		types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"location":{"latitude":%g,"longitude":%g}}}`, place.Latitude, place.Longitude)), metav1.PatchOptions{})
	require.NoError(t, err)
	create(t, ns, "kind: Reservation\nmetadata: {name: dark}\nspec: {telescope: east, holder: ada, night: \""+date.Format(time.DateOnly)+"\"}")

	var r obsv1.Reservation
	eventually(t, 40*time.Second, "the night's dusk resolved and waited for", func() (bool, string) {
		r, _ = reservation(t, ns, "dark")
		ready := kube.ReservationCondition(&r.Status, obsv1.ConditionReady)
		if ready == nil {
			return false, "no Ready condition yet"
		}
		return r.Status.Night != nil && strings.HasPrefix(ready.Message, "Waiting for astronomical dusk at "), ready.Message
	})
	require.True(t, time.Now().Before(want.Dusk), "the test waited past the dusk before it saw the wait")
	assert.InDelta(t, 0, r.Status.Night.Start.Sub(want.Dusk).Seconds(), 2, "the dusk %s, want %s", r.Status.Night.Start, want.Dusk)
	assert.InDelta(t, 0, r.Status.Night.End.Sub(want.Dawn).Seconds(), 2, "the dawn %s, want %s", r.Status.Night.End, want.Dawn)
	assert.Equal(t, "astronomical dusk to astronomical dawn", r.Status.Night.Between)

	eventually(t, 3*time.Minute, "the night became Ready", func() (bool, string) {
		r, _ = reservation(t, ns, "dark")
		return r.Status.Phase == obsv1.ReservationReady, fmt.Sprintf("%s %s", r.Status.Phase, r.Status.Step)
	})
	wait := step(r, kube.StepWait)
	require.NotNil(t, wait.StopTime)
	assert.False(t, wait.StopTime.Time.Before(want.Dusk.Truncate(time.Second)), "the Wait ended at %s, not before the dusk %s", wait.StopTime, want.Dusk)

	eventually(t, 3*time.Minute, "the night was Released at its dawn", func() (bool, string) {
		r, _ = reservation(t, ns, "dark")
		return r.Status.Phase == obsv1.ReservationReleased, fmt.Sprintf("%s %s", r.Status.Phase, r.Status.Step)
	})
	abort := step(r, kube.StepAbort) // the first step of the end
	require.NotNil(t, abort.StartTime)
	assert.False(t, abort.StartTime.Time.Before(want.Dawn.Truncate(time.Second)), "the end began at %s, not before the dawn %s", abort.StartTime, want.Dawn)
}

// step is the reservation's step of that name; an empty one when it has none.
func step(r obsv1.Reservation, name string) obsv1.StepRecord {
	for _, s := range r.Status.Steps {
		if s.Name == name {
			return s
		}
	}
	return obsv1.StepRecord{}
}
