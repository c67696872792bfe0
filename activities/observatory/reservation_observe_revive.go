// A device whose driver restarted while a reservation is Ready: the observer
// (reservation_observe.go) sees the server delete the device and the driver define it again,
// disconnected, and here connects and configures it again, between two heartbeats, and sends
// a camera its first cool's setpoint again.
package observatory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// reviveTimeout bounds connecting and configuring a restarted driver's device, which the
// observer does between two heartbeats (HeartbeatTimeout is 10 s).
const reviveTimeout = 6 * time.Second

// reviveDevice connects and configures again a device whose driver restarted (the server
// deleted the device and the driver defined it again, disconnected), and sends a camera the
// setpoint of its first cool again. A device a person disconnected was never deleted, so it
// stays as they left it. A failure is logged and tried again at the next look.
func (a *Activities) reviveDevice(ctx context.Context, in StepInput, o *observedServer, d *observedDevice) {
	rctx, cancel := context.WithTimeout(ctx, reviveTimeout)
	defer cancel()
	did, err := a.configureAgain(rctx, in, o, d)
	if err != nil {
		logFor(ctx).Warn("a device whose driver restarted could not be connected and configured again; trying again",
			"device", d.Label(), "namespace", d.Namespace, "err", err)
		return
	}
	d.restarted = false
	logFor(ctx).Info("connected and configured again a device whose driver restarted", "device", d.Label(),
		"namespace", d.Namespace, "did", did)
	a.postObsEvent(ctx, kube.ResourceID{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, UID: d.UID},
		kube.Event{Type: corev1.EventTypeNormal, Reason: ReasonDriverRestarted,
			Message: fmt.Sprintf("Its driver restarted; connected it again (%s)", strings.Join(did, ", "))})
}

// ReasonDriverRestarted is the Event of a device connected and configured again after its
// driver restarted.
const ReasonDriverRestarted = "DriverRestarted"

func (a *Activities) configureAgain(ctx context.Context, in StepInput, o *observedServer, d *observedDevice) ([]string, error) {
	c := o.client
	// A restarted driver starts from its defaults (or its saved config): the port first.
	if err := setConnection(ctx, c, d.indiName, d.stepDevice); err != nil {
		return nil, err
	}
	if _, err := c.Connect(ctx, d.indiName); err != nil {
		return nil, err
	}
	did := []string{"connected"}
	if o.owner.Kind != obsv1.KindTelescope {
		return did, nil // the site's devices keep their policies in their saved config
	}
	s, err := a.readServer(ctx, o.owner.Namespace, o.owner.Kind, o.owner.Name)
	if err != nil {
		return nil, err
	}
	site, err := a.readSiteConfig(ctx, in.Namespace, in.Observatory)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, od := range o.devices {
		if od.indiName != "" {
			names[od.Label()] = od.indiName
		}
	}
	for _, sd := range s.Devices {
		if sd.Label() != d.Label() {
			continue
		}
		conf, err := a.configureDevice(ctx, c, s, sd, names, site)
		if err != nil {
			return nil, err
		}
		did = append(did, conf...)
	}
	if d.Kind == obsv1.KindCamera {
		cool, err := a.firstCool(ctx, d)
		if err != nil {
			return nil, err
		}
		if cool != nil {
			if err := c.SendCoolSetpoint(ctx, d.indiName, cool.Celsius); err != nil {
				return nil, err
			}
			did = append(did, "cool setpoint "+strconv.FormatFloat(cool.Celsius, 'f', -1, 64)+" °C")
		}
	}
	return did, nil
}

// firstCool is the first cool action of a camera's activation, once its activation has run
// it (a record of it exists); nil otherwise.
func (a *Activities) firstCool(ctx context.Context, d *observedDevice) (*obsv1.Temperature, error) {
	u, err := a.resource(d.Kind, d.Namespace).Get(ctx, d.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	spec, err := readProcSpec(u)
	if err != nil {
		return nil, err
	}
	var st obsv1.DeviceStatus
	if m, ok := u.Object["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st); err != nil {
			return nil, err
		}
	}
	rec := kube.FindProcedureRecord(st.Procedures, kube.TriggerActivation)
	for i, act := range spec.Activation {
		if act.Cool == nil {
			continue
		}
		if rec == nil || i >= len(rec.Actions) || rec.Actions[i].State == obsv1.RunPending {
			return nil, nil // not sent yet: the activation sends it
		}
		return act.Cool, nil
	}
	return nil, nil
}
