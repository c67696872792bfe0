// A device's spec.connection, set over INDI before the device connects: the serial port (in
// serial mode, for a driver that also speaks TCP), the baud rate, then each setting in order,
// typed by the property the driver defines. Each is a target state, so a retried Connect sends
// nothing twice. A refusal fails the step with the property's name and the driver's words.
package observatory

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// setConnection sets the device's connection on its INDI device name before it connects.
func setConnection(ctx context.Context, c *indi.Client, name string, d stepDevice) error {
	conn := d.Spec.Connection
	if conn == nil {
		return nil
	}
	if conn.Port != "" {
		if _, ok := c.Property(name, "CONNECTION_MODE"); ok {
			if _, err := c.SetSwitch(ctx, name, "CONNECTION_MODE", map[string]bool{"CONNECTION_SERIAL": true}); err != nil {
				return settingError(d, "CONNECTION_MODE", err)
			}
			// The driver defines the serial mode's properties once it is in it.
			if err := c.Sync(ctx, name); err != nil {
				return indiStepError(d, err)
			}
		}
		if _, err := c.SetText(ctx, name, "DEVICE_PORT", map[string]string{"PORT": conn.Port}); err != nil {
			return settingError(d, "DEVICE_PORT", err)
		}
	}
	if conn.BaudRate != 0 {
		baud := strconv.Itoa(int(conn.BaudRate))
		if _, err := c.SetSwitch(ctx, name, "DEVICE_BAUD_RATE", map[string]bool{baud: true}); err != nil {
			return settingError(d, "DEVICE_BAUD_RATE", err)
		}
	}
	for _, s := range conn.Settings {
		if err := applySetting(ctx, c, name, s); err != nil {
			return settingError(d, s.Property, err)
		}
	}
	return nil
}

// applySetting sets one property by the type the driver gave it.
func applySetting(ctx context.Context, c *indi.Client, name string, s obsv1.Setting) error {
	p, ok := c.Property(name, s.Property)
	if !ok {
		return &indi.MissingError{Device: name, Property: s.Property}
	}
	var err error
	switch p.Type {
	case prop.Number:
		numbers := map[string]float64{}
		for k, v := range s.Values {
			if numbers[k], err = strconv.ParseFloat(v, 64); err != nil {
				return &indi.RequestError{Device: name, Property: s.Property, Reason: fmt.Sprintf("%s=%q is not a number", k, v)}
			}
		}
		// Drivers keep numbers as doubles and may print them rounded.
		_, err = c.SetNumber(ctx, name, s.Property, numbers, 1e-6)
	case prop.Text:
		_, err = c.SetText(ctx, name, s.Property, s.Values)
	case prop.Switch:
		states := map[string]bool{}
		for k, v := range s.Values {
			if v != "On" && v != "Off" {
				return &indi.RequestError{Device: name, Property: s.Property, Reason: fmt.Sprintf("%s=%q: a switch is On or Off", k, v)}
			}
			states[k] = v == "On"
		}
		_, err = c.SetSwitch(ctx, name, s.Property, states)
	default:
		return &indi.RequestError{Device: name, Property: s.Property, Reason: fmt.Sprintf("a %s property cannot be set", p.Type)}
	}
	return err
}

// connectionWords is how a summary names what was set, so the reservation's record shows
// the connection each device ran with: "on /dev/serial/by-id/usb-… at 9600 baud, DEVICE_AUTO_SEARCH".
func connectionWords(conn *obsv1.Connection) string {
	if conn == nil {
		return ""
	}
	var words []string
	if conn.Port != "" {
		words = append(words, "on "+conn.Port)
	}
	if conn.BaudRate != 0 {
		words = append(words, "at "+strconv.Itoa(int(conn.BaudRate))+" baud")
	}
	s := strings.Join(words, " ")
	var props []string
	for _, set := range conn.Settings {
		props = append(props, set.Property)
	}
	if len(props) > 0 {
		s = strings.TrimSpace(s + " with " + strings.Join(props, ", "))
	}
	return s
}

// settingError is a setting's failure as the step's: the driver's refusal names the property.
func settingError(d stepDevice, property string, err error) error {
	var alert *indi.AlertError
	if errors.As(err, &alert) && alert.Message != "" {
		return stepFailed("%s: the driver refused %s: %s", d.Label(), property, alert.Message)
	}
	return indiStepError(d, err)
}
