// A reservation failed at each of its activation steps is deleted with nothing left behind,
// and the refusal stands on the device at fault.
package reservation

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// refusingMount stands in for the telescope's INDI server east-telescope: it defines the
// example's five devices, and its mount refuses to connect, as a driver whose hardware is
// unplugged does. Every other server is a local indiserver.
type refusingMount struct {
	*observatory.LocalINDI
	fake *inditest.Fake
}

func (r refusingMount) Address(ctx context.Context, s observatory.INDIServer) (string, error) {
	if s.Name == "east-telescope" {
		return r.fake.Addr, nil
	}
	return r.LocalINDI.Address(ctx, s)
}

func newRefusingMount(t *testing.T, local *observatory.LocalINDI) refusingMount {
	f := inditest.NewFake(t)
	for dev, driver := range map[string]string{"Telescope Simulator": "indi_simulator_telescope", "CCD Simulator": "indi_simulator_ccd",
		"Focuser Simulator": "indi_simulator_focus", "Filter Simulator": "indi_simulator_wheel", "Light Panel Simulator": "indi_simulator_lightpanel"} {
		f.Define(prop.Property{Device: dev, Name: "DRIVER_INFO", Type: prop.Text, Perm: prop.ReadOnly, State: prop.Idle,
			Elements: []prop.Element{{Name: "DRIVER_EXEC", Value: driver}}})
		f.Define(inditest.Switches(dev, "CONNECTION", prop.OneOfMany, []string{"DISCONNECT"}, "CONNECT", "DISCONNECT"))
	}
	f.Handle("Telescope Simulator", "CONNECTION", func(f *inditest.Fake, _ prop.Property) {
		f.Update("Telescope Simulator", "CONNECTION", func(p *prop.Property) {
			p.State = prop.Alert
			p.Message = "[ERROR] no mount answers on /dev/ttyUSB0"
		})
	})
	return refusingMount{LocalINDI: local, fake: f}
}

func patchSpec(t *testing.T, ns string, kind obsv1.Kind, name, spec string) {
	t.Helper()
	_, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Patch(context.Background(), name,
		types.MergePatchType, []byte(`{"spec":`+spec+`}`), metav1.PatchOptions{})
	require.NoError(t, err)
}

// TestAReservationFailedAtEachActivationStepIsDeletedWithNothingLeft fails the example
// reservation at each of its seven working activation steps, each for a reason a user would
// meet, deletes it, and sees it gone with no pod, Service, claim, ConfigMap or finalizer
// left; a refusal is on the device at fault too.
func TestAReservationFailedAtEachActivationStepIsDeletedWithNothingLeft(t *testing.T) {
	for _, tc := range []struct {
		step    string
		prepare func(t *testing.T, ns string)
		fake    bool // the telescope's server is refusingMount
		// atFault is the device whose Ready names the refusal.
		atFault obsv1.Kind
		name    string
	}{
		{step: kube.StepStartSite, atFault: obsv1.KindSkyQualityMeter, name: "lab", prepare: func(t *testing.T, ns string) {
			env.CreateObservatoryYAML(t, ns, "kind: SkyQualityMeter\nmetadata: {name: lab}\nspec: {observatory: lab, driver: {name: indi_simulator_weather}}")
		}},
		{step: kube.StepPowerOn, atFault: obsv1.KindRotator, name: "east.side", prepare: func(t *testing.T, ns string) {
			env.CreateObservatoryYAML(t, ns, "kind: Rotator\nmetadata: {name: east.side}\nspec: {opticalTrain: east-main, driver: {name: indi_simulator_rotator}}")
		}},
		{step: kube.StepStartDevices, atFault: obsv1.KindFocuser, name: "bad", prepare: func(t *testing.T, ns string) {
			env.CreateObservatoryYAML(t, ns, "kind: Focuser\nmetadata: {name: bad}\nspec: {opticalTrain: east-main, driver: {name: indi_nosuchdriver}}")
		}},
		{step: kube.StepConnect, fake: true},
		{step: kube.StepConfigure, prepare: func(t *testing.T, ns string) {
			var filters []string
			for i := range 32 {
				filters = append(filters, `"F`+utilrand.String(3)+string(rune('a'+i%26))+`"`)
			}
			patchSpec(t, ns, obsv1.KindFilterWheel, "east-main", `{"filters":[`+strings.Join(filters, ",")+`]}`)
		}},
		{step: kube.StepActivation, prepare: func(t *testing.T, ns string) {
			patchSpec(t, ns, obsv1.KindDome, "lab", `{"activation":[{"state":"Unparked","timeout":"1s"}]}`)
		}},
		{step: kube.StepStartGuider, prepare: func(t *testing.T, ns string) {
			env.CreateObservatoryYAML(t, ns, "kind: OpticalTrain\nmetadata: {name: guide}\nspec: {telescope: east}\n---\n"+
				"kind: Guider\nmetadata: {name: east}\nspec: {telescope: east, opticalTrain: guide}")
		}},
	} {
		t.Run(tc.step, func(t *testing.T) {
			t.Parallel()
			prepare := func(ns string) {
				if tc.prepare != nil {
					tc.prepare(t, ns)
				}
			}
			ns, queue, c := startReservation(t, prepare)
			local := &observatory.LocalINDI{}
			t.Cleanup(func() { local.Close() })
			var resolver observatory.INDIResolver = local
			if tc.fake {
				resolver = newRefusingMount(t, local)
			}
			t.Cleanup(newWorker(t, c, queue, resolver).Stop)

			awaitReservation(t, ns, "tonight", "failed at "+tc.step, func(r *obsv1.Reservation) bool {
				return r != nil && r.Status.Phase == obsv1.ReservationFailed && r.Status.Step == tc.step
			})
			r, _ := reservation(t, ns, "tonight")
			failed := stepSummary(r, tc.step)
			t.Logf("%s failed: %s", tc.step, failed)
			if tc.atFault != "" {
				reason, msg := readyOf(t, ns, tc.atFault, tc.name)
				assert.Equal(t, kube.ReasonError, reason, "%s %s", tc.atFault, tc.name)
				assert.Equal(t, strings.TrimPrefix(failed, kube.FailedPrefix), msg, "the device at fault says what the step says")
			}

			require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).
				Delete(context.Background(), "tonight", metav1.DeleteOptions{}))
			require.NoError(t, c.SignalWorkflow(context.Background(), contract.ReservationID(ns, "tonight"), "",
				contract.ReservationChanged, contract.ReservationChange{Deleted: true, Why: "deleted"}))
			awaitReservation(t, ns, "tonight", "was deleted", func(r *obsv1.Reservation) bool { return r == nil })
			nothingLeft(t, ns)
		})
	}
}

// nothingLeft checks that no object of the runner's and no finalizer is left in ns.
func nothingLeft(t *testing.T, ns string) {
	t.Helper()
	noObjectLeft(t, ns)
	for _, k := range obsv1.Kinds {
		list, err := env.Dynamic.Resource(k.GroupVersionResource()).Namespace(ns).List(context.Background(), metav1.ListOptions{})
		require.NoError(t, err)
		for _, u := range list.Items {
			assert.Empty(t, u.GetFinalizers(), "%s %s keeps no finalizer", k, u.GetName())
		}
	}
}

// readyOf is a resource's Ready condition's reason and message.
func readyOf(t *testing.T, ns string, kind obsv1.Kind, name string) (string, string) {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var st obsv1.StatusBase
	if m, ok := u.Object["status"].(map[string]any); ok {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st))
	}
	if c := kube.ConditionOf(st.Conditions, obsv1.ConditionReady); c != nil {
		return c.Reason, c.Message
	}
	return "", ""
}
