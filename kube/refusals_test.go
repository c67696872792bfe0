// Devices that cannot run are refused once each, with the step's words, and a step fails with
// every refusal's words in order.
package kube

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func device(kind obsv1.Kind, name, driver string) DeviceRef {
	return DeviceRef{ResourceID: ResourceID{Kind: kind, Name: name}, Spec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: driver}}}
}

func TestEachDeviceThatCannotRunIsRefusedOnceWithTheStepsWords(t *testing.T) {
	mount := device(obsv1.KindMount, "east", "indi_simulator_telescope")
	focus := device(obsv1.KindFocuser, "east-main", "indi_simulator_focus")
	second := device(obsv1.KindFocuser, "second", "indi_simulator_focus")
	third := device(obsv1.KindFocuser, "third", "indi_simulator_focus")
	unknown := device(obsv1.KindFocuser, "bad", "indi_nosuchdriver")
	dotted := device(obsv1.KindMount, "east.side", "indi_simulator_telescope")
	long := device(obsv1.KindCamera, strings.Repeat("c", 60), "indi_simulator_ccd")
	claimed := device(obsv1.KindCamera, "claimed", "indi_simulator_ccd")
	claimed.Spec.Claim = &runtime.RawExtension{Raw: []byte(`{"devices":{"requests":[{"nmae":"usb"}]}}`)}

	dup := func(first, second DeviceRef) string {
		return DuplicateDriverMessage(string(first.Kind)+" "+first.Name, string(second.Kind)+" "+second.Name,
			second.Spec.Driver.Name, "east-telescope")
	}
	for _, tc := range []struct {
		name    string
		devices []DeviceRef
		linked  []string
		want    map[string]string // Kind/name: the start of the message
	}{
		{"every device can run", []DeviceRef{mount, focus}, nil, map[string]string{}},
		{"a driver no image holds", []DeviceRef{mount, unknown}, nil,
			map[string]string{"Focuser/bad": "Focuser/bad: no image of the runner holds the driver indi_nosuchdriver; set spec.driver.image"}},
		{"a name that is not a DNS label", []DeviceRef{dotted}, nil,
			map[string]string{"Mount/east.side": "the Mount name east.side gives the pod name east.side-mount, which is not a DNS label"}},
		{"a name too long", []DeviceRef{long}, nil,
			map[string]string{"Camera/" + long.Name: "the Camera name " + long.Name + " gives the pod name"}},
		{"a claim that is not a ResourceClaimSpec", []DeviceRef{claimed}, nil,
			map[string]string{"Camera/claimed": "Camera/claimed: spec.claim is not a resource.k8s.io/v1 ResourceClaimSpec"}},
		{"the later of two with one driver", []DeviceRef{focus, second, third}, nil,
			map[string]string{"Focuser/second": dup(focus, second), "Focuser/third": dup(focus, third)}},
		{"a running server keeps the driver it runs", []DeviceRef{focus, second}, []string{"second-focuser"},
			map[string]string{"Focuser/east-main": dup(second, focus)}},
		{"a device refused for its name holds no driver", []DeviceRef{dotted, mount}, nil,
			map[string]string{"Mount/east.side": "the Mount name east.side"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			for _, r := range ServerRefusals("east-telescope", tc.devices, tc.linked) {
				_, twice := got[string(r.Device.Kind)+"/"+r.Device.Name]
				assert.False(t, twice, "%s is refused once", r.Device.Name)
				got[string(r.Device.Kind)+"/"+r.Device.Name] = r.Message
			}
			assert.Len(t, got, len(tc.want))
			for id, prefix := range tc.want {
				assert.True(t, strings.HasPrefix(got[id], prefix), "%s: %q should start %q", id, got[id], prefix)
			}
		})
	}
}

func TestAStepFailsWithEveryRefusalsWordsInOrder(t *testing.T) {
	assert.Equal(t, "a; b", RefusalMessage([]Refusal{{Message: "a"}, {Message: "b"}}))
	assert.Equal(t, "a", RefusalMessage([]Refusal{{Message: "a"}}), "one refusal is the message the log had")
}
