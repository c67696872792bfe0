// What the driver tells Kubernetes and reads back, as pure functions: the node's devices as
// the slice's devices with their attributes, and a claim's allocation as the devices to hand
// to its pod.
package dra

import (
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/utils/ptr"
)

// maxSliceDevices is the API's limit of devices in one ResourceSlice.
const maxSliceDevices = 128

// Resources are the node's devices as its one pool, named after the node.
func Resources(node string, devs []Device) resourceslice.DriverResources {
	var slices []resourceslice.Slice
	for len(devs) > 0 {
		n := min(len(devs), maxSliceDevices)
		s := resourceslice.Slice{}
		for _, d := range devs[:n] {
			s.Devices = append(s.Devices, resourceapi.Device{Name: d.Name, Attributes: attributes(d)})
		}
		slices, devs = append(slices, s), devs[n:]
	}
	if len(slices) == 0 {
		slices = []resourceslice.Slice{{}} // an empty pool says the node has none
	}
	return resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{node: {Slices: slices}}}
}

// attributes are what a claim selects a device by, such as
// device.attributes["serial.liken.sh"].serial == "A50285BI". Empty ones are left out.
func attributes(d Device) map[resourceapi.QualifiedName]resourceapi.DeviceAttribute {
	out := map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{}
	for name, v := range map[resourceapi.QualifiedName]string{
		"kind": d.Kind, "path": d.Path, "link": d.Link, "vendorID": d.VendorID, "productID": d.ProductID,
		"serial": d.Serial, "manufacturer": d.Manufacturer, "product": d.Product,
	} {
		if v == "" {
			continue
		}
		if len(v) > resourceapi.DeviceAttributeMaxValueLength {
			v = v[:resourceapi.DeviceAttributeMaxValueLength]
		}
		out[name] = resourceapi.DeviceAttribute{StringValue: ptr.To(v)}
	}
	return out
}

// Allocated is what a claim was given on this node: the devices of this driver in its
// allocation, as the kubelet wants them back, and as found now. A device the claim was given
// that is no longer plugged in is an error the kubelet shows on the pod.
func Allocated(c *resourceapi.ResourceClaim, node string, devs []Device) ([]kubeletplugin.Device, []Device, error) {
	if c.Status.Allocation == nil {
		return nil, nil, fmt.Errorf("the claim %s/%s is not allocated", c.Namespace, c.Name)
	}
	var out []kubeletplugin.Device
	var mine []Device
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.Driver != DriverName {
			continue
		}
		if r.Pool != node {
			return nil, nil, fmt.Errorf("the claim %s/%s was given %s of node %s, not of this node %s", c.Namespace, c.Name, r.Device, r.Pool, node)
		}
		i := indexOf(devs, r.Device)
		if i < 0 {
			return nil, nil, fmt.Errorf("the device %s the claim %s/%s was given is not plugged into node %s", r.Device, c.Namespace, c.Name, node)
		}
		mine = append(mine, devs[i])
		out = append(out, kubeletplugin.Device{
			Requests: []string{r.Request}, PoolName: r.Pool, DeviceName: r.Device,
			CDIDeviceIDs: []string{CDIDeviceID(string(c.UID), devs[i])},
		})
	}
	return out, mine, nil
}

func indexOf(devs []Device, name string) int {
	for i, d := range devs {
		if d.Name == name {
			return i
		}
	}
	return -1
}
