// The Plugged condition of a device with a claim, from its allocation and the slices.
package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestADevicePulledOutOfItsNodeIsUnpluggedAndSaysWhichAndWhere(t *testing.T) {
	claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "west-mount"}}
	claim.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "port", Driver: "serial.liken.sh", Pool: "pi-1", Device: "usb-ftdi-lk0001"}},
	}}
	slice := func(driver, pool string, devices ...string) resourceapi.ResourceSlice {
		s := resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{Driver: driver, Pool: resourceapi.ResourcePool{Name: pool}}}
		for _, d := range devices {
			s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: d})
		}
		return s
	}

	plugged := []resourceapi.ResourceSlice{slice("serial.liken.sh", "pi-1", "usb-ftdi-other", "usb-ftdi-lk0001")}
	assert.Empty(t, Unplugged(claim, plugged))
	c := PluggedCondition("Mount west", "west-mount", nil)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Equal(t, "Normal", EventTypeOf(c))

	// The same name on another node, or from another driver, is another device.
	pulled := []resourceapi.ResourceSlice{slice("serial.liken.sh", "pi-2", "usb-ftdi-lk0001"), slice("gpu.example.com", "pi-1", "usb-ftdi-lk0001")}
	missing := Unplugged(claim, pulled)
	assert.Len(t, missing, 1)
	c = PluggedCondition("Mount west", "west-mount", missing)
	assert.Equal(t, obsv1.Condition{Type: "Plugged", Status: metav1.ConditionFalse, Reason: "Unplugged",
		Message: "Mount west: the hardware of claim west-mount is no longer plugged in: usb-ftdi-lk0001 (serial.liken.sh) on node pi-1; " +
			"its driver cannot reach it until it is plugged back into that node"}, c)
	assert.Equal(t, "Warning", EventTypeOf(c))

	assert.Empty(t, Unplugged(&resourceapi.ResourceClaim{}, nil), "an unallocated claim has nothing to miss")
}
