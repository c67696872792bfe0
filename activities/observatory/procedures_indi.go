// The INDI actions of the procedures: a target state (read first, nothing sent when the
// device is there), a camera's cool or warm.
package observatory

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// dialINDI connects to the INDI server that serves r.
func (a *Activities) dialINDI(ctx context.Context, r *procResource) (*indi.Client, error) {
	var resolver INDIResolver = ServiceResolver{}
	if a.INDI != nil {
		resolver = a.INDI
	}
	addr, err := resolver.Address(ctx, INDIServer{Namespace: r.id.Namespace, Name: r.server, Drivers: r.drivers})
	if err != nil {
		return nil, fmt.Errorf("find the INDI server %s/%s: %w", r.id.Namespace, r.server, err)
	}
	c, err := indi.Dial(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("connect to the INDI server %s at %s: %w", r.server, addr, err)
	}
	return c, nil
}

// runINDIAction brings r's device to the action's target state.
func (a *Activities) runINDIAction(ctx context.Context, c *indi.Client, r *procResource, act procAction, hb *heartbeat) actionEnd {
	what := string(r.id.Kind) + " " + r.id.Name
	timeout, err := act.timeout()
	if err != nil {
		return actionEnd{state: obsv1.RunFailed, summary: what + ": " + err.Error(), errType: ErrStepFailed}
	}
	if r.indiDevice == "" {
		return actionEnd{state: obsv1.RunFailed, errType: ErrStepFailed,
			summary: what + " has no INDI device yet (status.indiDevice): its driver has not defined it"}
	}
	dev := r.indiDevice
	limit := timeout
	if act.Warm != nil {
		limit += coolerOffTime // the warm wait may use all of timeout; the cooler goes off after
	}
	actx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	hb.set(r.id.String(), what+" "+act.label())
	defer hb.set(r.id.String(), "")

	var sent bool
	switch {
	case act.Cool != nil:
		sent, err = c.Cool(actx, dev, act.Cool.Celsius, procWithin(act.Cool))
	case act.Warm != nil:
		sent, err = c.Warm(actx, dev, act.Warm.Celsius, procWithin(act.Warm), timeout)
	default:
		sent, err = a.setState(actx, c, r.id.Kind, dev, act.State)
	}
	switch {
	case err == nil:
		s := what + " " + act.label()
		if !sent {
			s += " (already there)"
		}
		return actionEnd{state: obsv1.RunDone, summary: s}
	case ctx.Err() != nil:
		return actionEnd{err: ctx.Err()}
	case errors.Is(err, context.DeadlineExceeded):
		return actionEnd{state: obsv1.RunFailed, errType: ErrStepTimedOut, summary: procTimedOut(timeout, err.Error())}
	}
	var alert *indi.AlertError
	if errors.As(err, &alert) {
		msg := alert.Message
		if msg == "" {
			msg = alert.Error()
		}
		// The dome and mount locks refuse with an Alert; that refusal has an Event
		// of its own, besides ProcedureFailed.
		switch {
		case !judgedByLocks(r.id.Kind, act):
		case r.id.Kind == obsv1.KindMount:
			a.postObsEvent(ctx, r.id, kube.Event{Type: corev1.EventTypeWarning, Reason: kube.ReasonMountUnparkRefused, Message: msg})
		default:
			a.postObsEvent(ctx, r.id, kube.Event{Type: corev1.EventTypeWarning, Reason: kube.ReasonDomeParkRefused, Message: msg})
		}
		return actionEnd{state: obsv1.RunFailed, errType: ErrStepFailed, summary: msg}
	}
	var missing *indi.MissingError
	var request *indi.RequestError
	if errors.As(err, &missing) || errors.As(err, &request) || errors.Is(err, errUnknownState) {
		return actionEnd{state: obsv1.RunFailed, errType: ErrStepFailed, summary: what + ": " + err.Error()}
	}
	return actionEnd{err: fmt.Errorf("%s %s: %w", what, act.label(), err)}
}

var errUnknownState = errors.New("no such state for this kind")

// judgedByLocks says whether the dome and mount locks may refuse the action: a mount's
// unpark or a dome's park.
func judgedByLocks(kind obsv1.Kind, act procAction) bool {
	return (kind == obsv1.KindMount && act.State == string(obsv1.Unparked)) ||
		(kind == obsv1.KindDome && act.State == string(obsv1.Parked))
}

func (a *Activities) setState(ctx context.Context, c *indi.Client, kind obsv1.Kind, dev, state string) (bool, error) {
	switch {
	case kind == obsv1.KindDome && (state == string(obsv1.Parked) || state == string(obsv1.Unparked)):
		return c.SetDomeParked(ctx, dev, state == string(obsv1.Parked))
	case kind == obsv1.KindMount && (state == string(obsv1.Parked) || state == string(obsv1.Unparked)):
		return c.SetMountParked(ctx, dev, state == string(obsv1.Parked))
	case kind == obsv1.KindDustCap && (state == string(obsv1.CoverOpen) || state == string(obsv1.CoverClosed)):
		return c.SetDustCapOpen(ctx, dev, state == string(obsv1.CoverOpen))
	case kind == obsv1.KindFlatPanel && (state == string(obsv1.Lit) || state == string(obsv1.Dark)):
		return c.SetFlatLit(ctx, dev, state == string(obsv1.Lit))
	}
	return false, fmt.Errorf("state %q: %w", state, errUnknownState)
}

func procWithin(t *obsv1.Temperature) float64 {
	if t.Within > 0 {
		return t.Within
	}
	return 0.5
}
