// A night booked by the sky on make run's kind of stack: the example's site moved along the
// equator to where astronomical dusk falls in under a minute, and a Reservation for that
// night: it resolves the night's dusk and dawn into its status, waits for the dusk saying
// so, and is Ready once the dusk has come, with its end at the dawn.
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
	dusk := time.Now().Add(50 * time.Second)
	lon, err := skytest.Longitude(sky.Astronomical.Altitude(), dusk, false)
	require.NoError(t, err)
	night := sky.SolarDate(sky.Place{Longitude: lon}, dusk).Format(time.DateOnly)
	env.ApplyObservatory(t, "examples/observatory.yaml", ns, obsv1.KindReservation)
	_, err = env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "lab",
		types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"location":{"latitude":0,"longitude":%f}}}`, lon)), metav1.PatchOptions{})
	require.NoError(t, err)
	create(t, ns, "kind: Reservation\nmetadata: {name: dark}\nspec: {telescope: east, holder: ada, night: \""+night+"\"}")

	var r obsv1.Reservation
	eventually(t, 40*time.Second, "the night's dusk resolved and waited for", func() (bool, string) {
		r, _ = reservation(t, ns, "dark")
		ready := kube.ReservationCondition(&r.Status, obsv1.ConditionReady)
		if ready == nil {
			return false, "no Ready condition yet"
		}
		return r.Status.Night != nil && strings.HasPrefix(ready.Message, "Waiting for astronomical dusk at "), ready.Message
	})
	require.True(t, time.Now().Before(dusk), "the test waited past the dusk before it saw the wait")
	assert.InDelta(t, 0, r.Status.Night.Start.Sub(dusk).Seconds(), 2, "the dusk %s, want about %s", r.Status.Night.Start, dusk)
	assert.Greater(t, r.Status.Night.End.Sub(dusk), 8*time.Hour, "the dawn %s ends a night at the equator", r.Status.Night.End)
	assert.Equal(t, "astronomical dusk to astronomical dawn", r.Status.Night.Between)

	eventually(t, 3*time.Minute, "the night became Ready", func() (bool, string) {
		r, _ = reservation(t, ns, "dark")
		return r.Status.Phase == obsv1.ReservationReady, fmt.Sprintf("%s %s", r.Status.Phase, r.Status.Step)
	})
	for _, s := range r.Status.Steps {
		if s.Name == "Wait" {
			require.NotNil(t, s.StopTime)
			assert.False(t, s.StopTime.Time.Before(dusk.Truncate(time.Second)), "the Wait ended at %s, not before the dusk %s", s.StopTime, dusk)
		}
	}
	require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).
		Delete(context.Background(), "dark", metav1.DeleteOptions{}))
	eventually(t, 3*time.Minute, "the night was released and went", func() (bool, string) {
		r, ok := reservation(t, ns, "dark")
		return !ok, fmt.Sprintf("%s %s", r.Status.Phase, r.Status.Step)
	})
}
