// spec.connection against a scripted driver with a serial connection: what is set, in which
// order, that a second Connect sends nothing again, and how a refusal reads.
package observatory

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const serialMount = "LX200 Generic"

// fakeSerialMount is a driver that speaks serial or TCP, as libindi's connection plugins
// define them, with the scope's focal length to set.
func fakeSerialMount(t *testing.T) *inditest.Fake {
	f := inditest.NewFake(t)
	f.Define(inditest.Switches(serialMount, "CONNECTION", prop.OneOfMany, []string{"DISCONNECT"}, "CONNECT", "DISCONNECT"))
	f.Define(inditest.Switches(serialMount, "CONNECTION_MODE", prop.OneOfMany, []string{"CONNECTION_TCP"}, "CONNECTION_SERIAL", "CONNECTION_TCP"))
	f.Define(prop.Property{Device: serialMount, Name: "DEVICE_PORT", Type: prop.Text, Elements: []prop.Element{{Name: "PORT", Value: "/dev/ttyUSB0"}}})
	f.Define(inditest.Switches(serialMount, "DEVICE_BAUD_RATE", prop.OneOfMany, []string{"9600"}, "9600", "19200", "38400", "57600", "115200", "230400"))
	f.Define(inditest.Numbers(serialMount, "TELESCOPE_INFO", "TELESCOPE_APERTURE", 0.0, "TELESCOPE_FOCAL_LENGTH", 0.0))
	f.Define(inditest.Switches(serialMount, "USEJOYSTICK", prop.OneOfMany, []string{"DISABLE"}, "ENABLE", "DISABLE"))
	return f
}

func serialDevice(conn *obsv1.Connection) stepDevice {
	return stepDevice{DeviceRef: kube.DeviceRef{
		ResourceID: kube.ResourceID{Kind: obsv1.KindMount, Name: "east"},
		Spec:       obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_lx200generic"}, Connection: conn},
	}}
}

func dialFake(t *testing.T, f *inditest.Fake) (context.Context, *indi.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	c, err := indi.Dial(ctx, f.Addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.Sync(ctx, serialMount))
	return ctx, c
}

func TestTheConnectionIsSetBeforeConnectingAndOnceOnly(t *testing.T) {
	f := fakeSerialMount(t)
	ctx, c := dialFake(t, f)
	d := serialDevice(&obsv1.Connection{
		Port: "/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_LK0001-if00-port0", BaudRate: 115200,
		Settings: []obsv1.Setting{
			{Property: "TELESCOPE_INFO", Values: map[string]string{"TELESCOPE_FOCAL_LENGTH": "800"}},
			{Property: "USEJOYSTICK", Values: map[string]string{"ENABLE": "On"}},
		},
	})
	require.NoError(t, setConnection(ctx, c, serialMount, d))
	p, _ := f.Property(serialMount, "CONNECTION_MODE")
	assert.True(t, p.SwitchOn("CONNECTION_SERIAL"))
	p, _ = f.Property(serialMount, "DEVICE_PORT")
	port, _ := p.Text("PORT")
	assert.Equal(t, d.Spec.Connection.Port, port)
	p, _ = f.Property(serialMount, "DEVICE_BAUD_RATE")
	assert.True(t, p.SwitchOn("115200"))
	p, _ = f.Property(serialMount, "TELESCOPE_INFO")
	focal, _ := p.Number("TELESCOPE_FOCAL_LENGTH")
	assert.Equal(t, 800.0, focal)
	p, _ = f.Property(serialMount, "USEJOYSTICK")
	assert.True(t, p.SwitchOn("ENABLE"))

	sent := c.Sent()
	require.NoError(t, setConnection(ctx, c, serialMount, d), "a retried Connect")
	assert.Equal(t, sent, c.Sent(), "nothing is sent twice")
}

func TestARefusedSettingFailsTheStepWithThePropertyAndTheDriversWords(t *testing.T) {
	f := fakeSerialMount(t)
	f.Handle(serialMount, "DEVICE_PORT", func(f *inditest.Fake, req prop.Property) {
		f.Update(serialMount, "DEVICE_PORT", func(p *prop.Property) {
			p.State, p.Message = prop.Alert, "Port /dev/ttyS9 is not a tty"
		})
	})
	ctx, c := dialFake(t, f)
	err := setConnection(ctx, c, serialMount, serialDevice(&obsv1.Connection{Port: "/dev/ttyS9"}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Failed: Mount east: the driver refused DEVICE_PORT: Port /dev/ttyS9 is not a tty")

	for conn, want := range map[*obsv1.Connection]string{
		{Settings: []obsv1.Setting{{Property: "NO_SUCH", Values: map[string]string{"X": "1"}}}}:                            "has no NO_SUCH property",
		{Settings: []obsv1.Setting{{Property: "TELESCOPE_INFO", Values: map[string]string{"TELESCOPE_APERTURE": "wide"}}}}: `TELESCOPE_APERTURE="wide" is not a number`,
		{Settings: []obsv1.Setting{{Property: "USEJOYSTICK", Values: map[string]string{"ENABLE": "yes"}}}}:                 "a switch is On or Off",
		{BaudRate: 4800}: "it has no switch 4800",
	} {
		err := setConnection(ctx, c, serialMount, serialDevice(conn))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Failed: Mount east: ")
		assert.Contains(t, err.Error(), want)
	}
}

func TestTheSummaryNamesTheConnectionADeviceRanWith(t *testing.T) {
	assert.Equal(t, "", connectionWords(nil))
	assert.Equal(t, "on /dev/serial/by-id/usb-x at 9600 baud with DEVICE_AUTO_SEARCH, TELESCOPE_INFO", connectionWords(&obsv1.Connection{
		Port: "/dev/serial/by-id/usb-x", BaudRate: 9600,
		Settings: []obsv1.Setting{{Property: "DEVICE_AUTO_SEARCH"}, {Property: "TELESCOPE_INFO"}},
	}))
	assert.Equal(t, "with WEATHER_UPDATE", connectionWords(&obsv1.Connection{Settings: []obsv1.Setting{{Property: "WEATHER_UPDATE"}}}))
}
