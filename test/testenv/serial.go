// Serial devices plugged into the real node, as its DRA driver finds them: a link in the node's
// /dev/serial/by-id and the USB device it belongs to in the node's /sys. The device itself is a
// pseudo-terminal whose far side a test answers as the hardware would, so a stock INDI driver
// cannot tell it from a USB serial adapter.
package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// USBSerial is what a USB serial adapter reports of itself, as its sysfs files hold it.
type USBSerial struct {
	VendorID, ProductID, Serial, Manufacturer, Product string
}

// FTDIAdapter is the adapter on many mounts' cables: an FTDI FT232R with the serial number given.
func FTDIAdapter(serial string) USBSerial {
	return USBSerial{VendorID: "0403", ProductID: "6001", Serial: serial, Manufacturer: "FTDI", Product: "FT232R USB UART"}
}

// Link is the by-id name udev gives the adapter's port.
func (u USBSerial) Link() string {
	name := strings.ReplaceAll(u.Manufacturer+"_"+u.Product+"_"+u.Serial, " ", "_")
	return "usb-" + name + "-if00-port0"
}

// PlugSerial plugs the adapter into the real node with its port at tty (a /dev/pts/N), and
// returns what pulls it out again; the test's end pulls it out too.
func (e *Env) PlugSerial(t *testing.T, u USBSerial, tty string) (unplug func()) {
	t.Helper()
	n := e.Stack.Node
	usb := filepath.Join(n.DevicesSys(), "devices", "usb-"+u.Serial, "1-1")
	class := filepath.Join(n.DevicesSys(), "class", "tty", strings.ReplaceAll(strings.TrimPrefix(tty, "/dev/"), "/", "!"))
	link := filepath.Join(n.SerialByID(), u.Link())
	files := map[string]string{"idVendor": u.VendorID, "idProduct": u.ProductID, "serial": u.Serial,
		"manufacturer": u.Manufacturer, "product": u.Product}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(usb, "1-1:1.0"), 0o755))
	for name, v := range files {
		must(os.WriteFile(filepath.Join(usb, name), []byte(v+"\n"), 0o644))
	}
	must(os.MkdirAll(class, 0o755))
	must(os.Symlink(filepath.Join(usb, "1-1:1.0"), filepath.Join(class, "device")))
	// The link goes last: the driver lists the links, so it never sees half a device.
	must(os.Symlink(tty, link))
	unplug = func() {
		os.Remove(link)
		os.RemoveAll(class)
		os.RemoveAll(filepath.Dir(usb))
	}
	t.Cleanup(unplug)
	return unplug
}
