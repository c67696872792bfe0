// Package dra is the runner's Dynamic Resource Allocation driver for an observatory's serial
// and USB devices: a mount on a USB serial adapter, a weather station on a serial port, a
// camera on USB. On each node it finds the devices plugged in, publishes them as a
// ResourceSlice with the attributes people select them by (vendor and product IDs, serial
// number, the stable by-id name), and hands the one a claim was given to the driver pod's
// container through CDI. This file finds the devices: pure reads of /dev and /sys, so the
// tests give it trees of their own.
package dra

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Kinds of device.
const (
	KindSerial = "serial" // a tty: its by-id link, opened by a driver as a serial port
	KindUSB    = "usb"    // a whole USB device, opened through libusb at /dev/bus/usb
)

// Device is one serial port or USB device on the node.
type Device struct {
	Name string // the device's name in the slice: a DNS label, stable across plugs
	Kind string
	// GID is the group that owns the device node on the host (udev gives serial ports
	// dialout): the driver's container joins it, so a driver that does not run as root
	// opens the device as a member, as on any Linux machine.
	GID uint32
	// Path is the device node on the host, such as /dev/ttyUSB0 or /dev/bus/usb/001/004;
	// Link is where a driver opens it in the container: the by-id link for a serial port
	// (the same name as on the host), else Path.
	Path, Link string
	// From the USB device the port belongs to, when it is one: hexadecimal IDs as lsusb
	// prints them, and the strings it reports.
	VendorID, ProductID, Serial, Manufacturer, Product string
}

// Roots are where a scan looks: the host's /dev and /sys as the driver sees them, and the
// folder of serial links (udev's /dev/serial/by-id).
type Roots struct {
	Dev, Sys, ByID string
}

// HostRoots are a node's own folders.
var HostRoots = Roots{Dev: "/dev", Sys: "/sys", ByID: "/dev/serial/by-id"}

// Scan lists the node's serial ports and USB devices, sorted by name. A folder that does not
// exist holds no devices: a node without USB has none.
func Scan(r Roots) ([]Device, error) {
	serial, err := scanSerial(r)
	if err != nil {
		return nil, err
	}
	usb, err := scanUSB(r)
	if err != nil {
		return nil, err
	}
	all := append(serial, usb...)
	slices.SortFunc(all, func(a, b Device) int { return strings.Compare(a.Name, b.Name) })
	return all, nil
}

// scanSerial reads the by-id links: each names one port, whatever tty number it got.
func scanSerial(r Roots) ([]Device, error) {
	entries, err := os.ReadDir(r.ByID)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the serial ports in %s: %w", r.ByID, err)
	}
	var out []Device
	for _, e := range entries {
		link := filepath.Join(r.ByID, e.Name())
		target, err := filepath.EvalSymlinks(link)
		if err != nil {
			continue // unplugged while we looked
		}
		tty, err := filepath.Rel(r.Dev, target)
		if err != nil || strings.HasPrefix(tty, "..") {
			continue // not a device node
		}
		d := Device{Name: DeviceName(e.Name()), Kind: KindSerial, Path: target, Link: filepath.Join(HostRoots.ByID, e.Name()), GID: groupOf(target)}
		// The kernel names a class device with a slash in its name with a '!' instead.
		usbAttributes(&d, usbParent(filepath.Join(r.Sys, "class", "tty", strings.ReplaceAll(tty, "/", "!"), "device")))
		out = append(out, d)
	}
	return out, nil
}

// usbParent is the USB device a port belongs to: the first folder up from its sysfs device
// that has an idVendor, or "" for a port on no USB device.
func usbParent(dev string) string {
	dir, err := filepath.EvalSymlinks(dev)
	if err != nil {
		return ""
	}
	for ; dir != "/" && dir != "."; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "idVendor")); err == nil {
			return dir
		}
	}
	return ""
}

func usbAttributes(d *Device, dir string) {
	if dir == "" {
		return
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return strings.TrimSpace(string(b))
	}
	d.VendorID, d.ProductID, d.Serial = read("idVendor"), read("idProduct"), read("serial")
	d.Manufacturer, d.Product = read("manufacturer"), read("product")
}

// usbDeviceDir matches a USB device's sysfs name (1-1.2), not an interface's (1-1.2:1.0)
// nor a root hub's (usb1).
var usbDeviceDir = regexp.MustCompile(`^\d+-\d+(\.\d+)*$`)

// scanUSB lists the USB devices, each at its node under /dev/bus/usb.
func scanUSB(r Roots) ([]Device, error) {
	dir := filepath.Join(r.Sys, "bus", "usb", "devices")
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the USB devices in %s: %w", dir, err)
	}
	var out []Device
	for _, e := range entries {
		if !usbDeviceDir.MatchString(e.Name()) {
			continue
		}
		d := Device{Kind: KindUSB}
		usbAttributes(&d, filepath.Join(dir, e.Name()))
		bus, err1 := readInt(filepath.Join(dir, e.Name(), "busnum"))
		num, err2 := readInt(filepath.Join(dir, e.Name(), "devnum"))
		if d.VendorID == "" || err1 != nil || err2 != nil {
			continue
		}
		d.Path = filepath.Join(r.Dev, "bus", "usb", fmt.Sprintf("%03d", bus), fmt.Sprintf("%03d", num))
		d.Link = filepath.Join(HostRoots.Dev, "bus", "usb", fmt.Sprintf("%03d", bus), fmt.Sprintf("%03d", num))
		d.GID = groupOf(d.Path)
		// By its serial number where it has one, else by the port it is plugged into.
		id := d.Serial
		if id == "" {
			id = "port-" + e.Name()
		}
		d.Name = DeviceName(strings.Join([]string{"usb", d.VendorID, d.ProductID, id}, "-"))
		out = append(out, d)
	}
	return out, nil
}

// groupOf is the group owning a file, 0 when it cannot be read.
func groupOf(path string) uint32 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Gid
	}
	return 0
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// DeviceName makes a slice's device name (a DNS label) of a by-id name or an ID: lower case,
// every other character a dash, and a long one cut to fit with a hash of the whole, so two
// adapters that differ only at the end keep different names.
func DeviceName(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if len(name) > 63 {
		sum := sha256.Sum256([]byte(s))
		name = strings.TrimRight(name[:54], "-") + "-" + hex.EncodeToString(sum[:4])
	}
	return name
}
