// The driver's pure parts against trees made to look like a node's /dev and /sys: a USB
// serial adapter (an FTDI FT232R, as many mounts' cables are) and a camera on USB.
package dra

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const adapterLink = "usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0"

// fakeNode makes dev and sys trees with an adapter at ttyUSB0 and a camera at bus 1, device 5.
func fakeNode(t *testing.T) Roots {
	t.Helper()
	root := t.TempDir()
	r := Roots{Dev: filepath.Join(root, "dev"), Sys: filepath.Join(root, "sys")}
	r.ByID = filepath.Join(r.Dev, "serial", "by-id")
	usb := filepath.Join(r.Sys, "devices", "pci0000:00", "usb1")
	files := map[string]string{
		"dev/ttyUSB0": "", "dev/bus/usb/001/005": "",
		"sys/devices/pci0000:00/usb1/1-1/idVendor": "0403\n", "sys/devices/pci0000:00/usb1/1-1/idProduct": "6001\n",
		"sys/devices/pci0000:00/usb1/1-1/serial": "A50285BI\n", "sys/devices/pci0000:00/usb1/1-1/manufacturer": "FTDI\n",
		"sys/devices/pci0000:00/usb1/1-1/product": "FT232R USB UART\n", "sys/devices/pci0000:00/usb1/1-1/busnum": "1\n",
		"sys/devices/pci0000:00/usb1/1-1/devnum":              "4\n",
		"sys/devices/pci0000:00/usb1/1-1/1-1:1.0/ttyUSB0/dev": "188:0\n",
		"sys/devices/pci0000:00/usb1/1-2/idVendor":            "03c3\n", "sys/devices/pci0000:00/usb1/1-2/idProduct": "120a\n",
		"sys/devices/pci0000:00/usb1/1-2/busnum": "1\n", "sys/devices/pci0000:00/usb1/1-2/devnum": "5\n",
		"sys/devices/pci0000:00/usb1/idVendor": "1d6b\n", // the root hub, not listed
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), 0o644))
	}
	links := map[string]string{
		filepath.Join(r.ByID, adapterLink):                        "../../ttyUSB0",
		filepath.Join(r.Sys, "class", "tty", "ttyUSB0", "device"): filepath.Join(usb, "1-1", "1-1:1.0"),
		filepath.Join(r.Sys, "bus", "usb", "devices", "1-1"):      filepath.Join(usb, "1-1"),
		filepath.Join(r.Sys, "bus", "usb", "devices", "1-1:1.0"):  filepath.Join(usb, "1-1", "1-1:1.0"),
		filepath.Join(r.Sys, "bus", "usb", "devices", "1-2"):      filepath.Join(usb, "1-2"),
		filepath.Join(r.Sys, "bus", "usb", "devices", "usb1"):     usb,
	}
	for link, target := range links {
		must(t, os.MkdirAll(filepath.Dir(link), 0o755))
		must(t, os.Symlink(target, link))
	}
	return r
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTheScanFindsTheAdapterByItsLinkAndEachUSBDeviceWithWhatItReports(t *testing.T) {
	r := fakeNode(t)
	devs, err := Scan(r)
	must(t, err)
	want := []Device{
		{Name: "usb-03c3-120a-port-1-2", Kind: KindUSB, Path: filepath.Join(r.Dev, "bus/usb/001/005"), Link: "/dev/bus/usb/001/005", VendorID: "03c3", ProductID: "120a"},
		{Name: "usb-0403-6001-a50285bi", Kind: KindUSB, Path: filepath.Join(r.Dev, "bus/usb/001/004"), Link: "/dev/bus/usb/001/004",
			VendorID: "0403", ProductID: "6001", Serial: "A50285BI", Manufacturer: "FTDI", Product: "FT232R USB UART"},
		{Name: "usb-ftdi-ft232r-usb-uart-a50285bi-if00-port0", Kind: KindSerial, Path: filepath.Join(r.Dev, "ttyUSB0"),
			Link: "/dev/serial/by-id/" + adapterLink, VendorID: "0403", ProductID: "6001", Serial: "A50285BI", Manufacturer: "FTDI", Product: "FT232R USB UART"},
	}
	if len(devs) != len(want) {
		t.Fatalf("found %d devices, want %d: %+v", len(devs), len(want), devs)
	}
	for i := range want {
		if devs[i] != want[i] {
			t.Errorf("device %d:\n got %+v\nwant %+v", i, devs[i], want[i])
		}
	}
	must(t, os.Remove(filepath.Join(r.ByID, adapterLink)))
	devs, err = Scan(r)
	must(t, err)
	if len(devs) != 2 || devs[0].Kind != KindUSB || devs[1].Kind != KindUSB {
		t.Errorf("after the link went, found %+v", devs)
	}
}

func TestANodeWithoutSerialPortsOrUSBHasNoDevices(t *testing.T) {
	devs, err := Scan(Roots{Dev: t.TempDir(), Sys: t.TempDir(), ByID: filepath.Join(t.TempDir(), "none")})
	if err != nil || len(devs) != 0 {
		t.Fatalf("Scan = %v, %v; want none", devs, err)
	}
}

func TestDeviceNamesAreDNSLabelsThatKeepLongNamesApart(t *testing.T) {
	long := "usb-Prolific_Technology_Inc._USB-Serial_Controller_with_a_long_name_"
	a, b := DeviceName(long+"A1-if00-port0"), DeviceName(long+"B2-if00-port0")
	for _, n := range []string{a, b, DeviceName(adapterLink)} {
		if len(n) > 63 || strings.Trim(n, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || strings.HasPrefix(n, "-") || strings.HasSuffix(n, "-") {
			t.Errorf("%q is no DNS label", n)
		}
	}
	if a == b {
		t.Errorf("two adapters differing at the end share the name %q", a)
	}
}

func TestAPortGetsADeviceNodeAndAPseudoTerminalABindMount(t *testing.T) {
	port := Device{Name: "mount", Path: "/dev/ttyUSB0", Link: "/dev/serial/by-id/" + adapterLink}
	pty := Device{Name: "test", Path: "/dev/pts/7", Link: "/dev/serial/by-id/usb-test", GID: 20}
	spec := cdiSpec("uid1", []Device{port, pty})
	b, _ := json.Marshal(spec)
	got := string(b)
	for _, want := range []string{
		`"kind":"liken.sh/serial"`, `"name":"uid1-mount"`,
		`"deviceNodes":[{"path":"/dev/serial/by-id/` + adapterLink + `","hostPath":"/dev/ttyUSB0","gid":0}]`,
		`"mounts":[{"hostPath":"/dev/pts/7","containerPath":"/dev/serial/by-id/usb-test","options":["bind"]}],"additionalGids":[20]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the spec %s lacks %s", got, want)
		}
	}
	if id := CDIDeviceID("uid1", port); id != "liken.sh/serial=uid1-mount" {
		t.Errorf("CDIDeviceID = %s", id)
	}
	dir := t.TempDir()
	must(t, writeCDISpec(dir, "uid1", []Device{port}))
	must(t, removeCDISpec(dir, "uid1"))
	must(t, removeCDISpec(dir, "uid1")) // unprepared twice, as a restarted kubelet may ask
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}

func TestAClaimGetsItsDevicesOnThisNodeOrSaysWhatIsMissing(t *testing.T) {
	devs := []Device{{Name: "mount", Path: "/dev/ttyUSB0"}}
	claim := func(pool, dev string) *resourceapi.ResourceClaim {
		c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "site", Name: "east-mount", UID: "u1"}}
		c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
			{Request: "port", Driver: DriverName, Pool: pool, Device: dev},
			{Request: "other", Driver: "gpu.example.com", Pool: pool, Device: "gpu0"},
		}}}
		return c
	}
	res, mine, err := Allocated(claim("node1", "mount"), "node1", devs)
	must(t, err)
	if len(res) != 1 || len(mine) != 1 || res[0].CDIDeviceIDs[0] != "liken.sh/serial=u1-mount" || res[0].Requests[0] != "port" {
		t.Errorf("Allocated = %+v, %+v", res, mine)
	}
	if _, _, err := Allocated(claim("node1", "gone"), "node1", devs); err == nil || !strings.Contains(err.Error(), "not plugged into node node1") {
		t.Errorf("a device pulled out: %v", err)
	}
	if _, _, err := Allocated(claim("node2", "mount"), "node1", devs); err == nil {
		t.Error("a device of another node was prepared")
	}
	if _, _, err := Allocated(&resourceapi.ResourceClaim{}, "node1", devs); err == nil {
		t.Error("an unallocated claim was prepared")
	}
}

func TestTheSliceCarriesTheAttributesPeopleSelectBy(t *testing.T) {
	r := Resources("node1", []Device{{Name: "mount", Kind: KindSerial, Path: "/dev/ttyUSB0", VendorID: "0403", Serial: "A50285BI"}})
	pool := r.Pools["node1"]
	if len(pool.Slices) != 1 || len(pool.Slices[0].Devices) != 1 {
		t.Fatalf("pool %+v", pool)
	}
	attrs := pool.Slices[0].Devices[0].Attributes
	if *attrs["serial"].StringValue != "A50285BI" || *attrs["vendorID"].StringValue != "0403" || *attrs["kind"].StringValue != KindSerial {
		t.Errorf("attributes %+v", attrs)
	}
	if _, ok := attrs["product"]; ok {
		t.Error("an empty attribute was published")
	}
	if empty := Resources("node1", nil); len(empty.Pools["node1"].Slices) != 1 {
		t.Errorf("a node without devices publishes %+v", empty)
	}
}
