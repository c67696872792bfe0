// The CDI side of the driver: for each prepared claim, a spec file in the container runtime's
// CDI folder that tells it how the claimed device enters the container. The file is named after
// the claim's UID, so preparing again rewrites it, and unpreparing (which the kubelet asks with
// only the UID, possibly of a driver restarted since) removes it.
package dra

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	cdi "tags.cncf.io/container-device-interface/specs-go"
)

// The CDI kind of the devices this driver prepares: ids read liken.sh/serial=<name>.
const (
	cdiVendor = "liken.sh"
	cdiClass  = "serial"
	cdiKind   = cdiVendor + "/" + cdiClass
)

// CDIDeviceID is the id the kubelet passes to the runtime for a device of a claim.
func CDIDeviceID(claimUID string, d Device) string {
	return cdiKind + "=" + cdiName(claimUID, d)
}

// cdiName is unique per claim and device: the runtime may cache specs, and a name used again
// by a later claim would find the old one.
func cdiName(claimUID string, d Device) string { return claimUID + "-" + d.Name }

// cdiSpec is the spec of a claim's devices. A device node is made in the container at the
// name the driver opens (Device.Link), owned by the host node's group, which the container's
// user joins, with the device cgroup opened for it. A pseudo-terminal is bind-mounted instead:
// the kernel opens a pty's far side only through its devpts entry, and a copy of the node
// elsewhere gives EIO (the tests stand one in for a USB adapter).
func cdiSpec(claimUID string, devices []Device) cdi.Spec {
	spec := cdi.Spec{Version: "0.7.0", Kind: cdiKind}
	for _, d := range devices {
		var edits cdi.ContainerEdits
		if strings.HasPrefix(d.Path, "/dev/pts/") {
			edits.Mounts = []*cdi.Mount{{HostPath: d.Path, ContainerPath: d.Link, Options: []string{"bind"}}}
		} else {
			edits.DeviceNodes = []*cdi.DeviceNode{{Path: d.Link, HostPath: d.Path, GID: &d.GID}}
		}
		if d.GID != 0 {
			edits.AdditionalGIDs = []uint32{d.GID}
		}
		spec.Devices = append(spec.Devices, cdi.Device{Name: cdiName(claimUID, d), ContainerEdits: edits})
	}
	return spec
}

func cdiFile(dir, claimUID string) string {
	return filepath.Join(dir, cdiVendor+"-"+cdiClass+"_"+claimUID+".json")
}

// writeCDISpec writes a claim's spec whole or not at all: the runtime reads the folder at any
// time.
func writeCDISpec(dir, claimUID string, devices []Device) error {
	b, err := json.MarshalIndent(cdiSpec(claimUID, devices), "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), cdiFile(dir, claimUID)); err != nil {
		return fmt.Errorf("write the CDI spec of claim %s: %w", claimUID, err)
	}
	return nil
}

// removeCDISpec removes a claim's spec; one already gone is fine.
func removeCDISpec(dir, claimUID string) error {
	if err := os.Remove(cdiFile(dir, claimUID)); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
