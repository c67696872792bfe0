// The teardown steps that talk INDI: Abort and Disconnect, and StopSite's disconnecting. A
// reservation must always come to an end, however it failed, so these do what they can and
// say in their summary what they could not: a server that cannot be reached has nothing to
// abort or disconnect; a device whose pod never ran has no driver to talk to; a driver that
// does not define its device in time, or refuses, is named and passed over. The steps after
// them (StopDevices, PowerOff, StopSite) then stop every pod all the same, so a delete ends
// with nothing left.
package observatory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// teardownWait bounds what a teardown step waits for from one server or driver before it
// passes it over: long enough for a server that restarts, short against the steps' 2 minutes.
var teardownWait = 15 * time.Second

func (a *Activities) abort(ctx context.Context, in StepInput) (StepResult, error) {
	guided, notes := a.stopGuiders(ctx, in.Namespace, in.Telescope)
	var sum []string
	if g := guiderSummary(guided); g != "" {
		sum = append(sum, g)
	}
	s, runs, err := a.telescopeINDIServer(ctx, in)
	if err != nil {
		return StepResult{}, err
	}
	movers := only(s.Devices, func(d stepDevice) bool { return d.Kind == obsv1.KindMount || d.Kind == obsv1.KindCamera })
	if !runs || len(movers) == 0 {
		why := s.Name + " does not run"
		if runs {
			why = "Telescope " + in.Telescope + " has no mount or camera that runs"
		}
		return StepResult{Skipped: len(guided) == 0, Summary: strings.Join(append(append(sum, why), notes...), "; ")}, nil
	}
	var aborted, idle []string
	err = a.eachDevice(ctx, s, movers, "aborting", func(c *indi.Client, d stepDevice, name string) error {
		var sent bool
		var err error
		if d.Kind == obsv1.KindMount {
			sent, err = c.AbortMotion(ctx, name)
		} else {
			sent, err = c.AbortExposure(ctx, name)
		}
		var missing *indi.MissingError
		switch {
		case errors.As(err, &missing), err == nil && !sent:
			idle = append(idle, d.Label()) // not connected, or still: nothing of it moves
			return nil
		case err == nil:
			aborted = append(aborted, d.Label())
		}
		return err
	}, &notes)
	if err != nil {
		return StepResult{}, err
	}
	if len(aborted) > 0 {
		sum = append(sum, "Aborted "+strings.Join(aborted, ", "))
	}
	if len(idle) > 0 {
		sum = append(sum, "Nothing ran on "+strings.Join(idle, ", "))
	}
	return StepResult{Summary: strings.Join(append(sum, notes...), "; ")}, nil
}

func (a *Activities) disconnect(ctx context.Context, in StepInput) (StepResult, error) {
	s, runs, err := a.telescopeINDIServer(ctx, in)
	if err != nil {
		return StepResult{}, err
	}
	if !runs || len(s.Devices) == 0 {
		return StepResult{Skipped: true, Summary: s.Name + " does not run"}, nil
	}
	sum, err := a.disconnectAll(ctx, s)
	if err != nil {
		return StepResult{}, err
	}
	return StepResult{Summary: "D" + sum[1:]}, nil
}

// disconnectAll disconnects a server's devices in the reverse of their connect order:
// "disconnected Camera east-main, ...", and what it could not.
func (a *Activities) disconnectAll(ctx context.Context, s stepServer) (string, error) {
	devices := slices.Clone(s.Devices)
	slices.Reverse(devices)
	for _, d := range devices {
		if err := a.markDisconnecting(ctx, d); err != nil {
			return "", err
		}
	}
	var done, notes []string
	err := a.eachDevice(ctx, s, devices, "disconnecting", func(c *indi.Client, d stepDevice, name string) error {
		_, err := c.Disconnect(ctx, name)
		if err == nil {
			done = append(done, d.Label())
		}
		return err
	}, &notes)
	if err != nil {
		return "", err
	}
	words := "disconnected nothing"
	if len(done) > 0 {
		words = "disconnected " + strings.Join(done, ", ")
	}
	return strings.Join(append([]string{words}, notes...), "; "), nil
}

// eachDevice reaches the server and, for each device, finds its INDI name and calls do. What
// it cannot do is noted, not returned: a server out of reach (then nothing is done), a
// driver that does not define its device within teardownWait, a driver's refusal. Only the
// step's end is an error.
func (a *Activities) eachDevice(ctx context.Context, s stepServer, devices []stepDevice, what string,
	do func(c *indi.Client, d stepDevice, name string) error, notes *[]string) error {
	dctx, cancel := context.WithTimeout(ctx, teardownWait)
	c, err := a.dialServer(dctx, s)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		*notes = append(*notes, fmt.Sprintf("%s cannot be reached, so nothing there needs %s: %v", s.Name, what, err))
		return nil
	}
	defer c.Close()
	for _, d := range devices {
		stepHeartbeat(ctx, what+" "+d.Label())
		wctx, cancel := context.WithTimeout(ctx, teardownWait)
		name, err := indiDevice(wctx, c, s, d)
		cancel()
		if err == nil {
			err = do(c, d, name)
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			*notes = append(*notes, d.Label()+": "+err.Error())
		}
	}
	return nil
}

// deviceRuns says whether r is a device whose pod exists; a failed read counts as running,
// so the action goes on as before and fails, or succeeds, on its own.
func (a *Activities) deviceRuns(ctx context.Context, r *procResource) bool {
	if !r.id.Kind.IsDevice() {
		return true
	}
	pod, err := a.Kube.CoreV1().Pods(r.id.Namespace).Get(ctx, kube.ObjectName(r.id.Kind, r.id.Name), metav1.GetOptions{})
	return !apierrors.IsNotFound(err) && (err != nil || pod.DeletionTimestamp == nil)
}

// syncTimeout bounds the wait for a driver's definitions before a device is judged: a fresh
// connection gets every definition of the server first, which takes seconds on a busy machine.
const syncTimeout = 15 * time.Second

// deviceDisconnected says whether a device is known not to be connected: its driver never
// defined it (no INDI name was recorded), or reports CONNECTION.CONNECT Off once its
// definitions have come. Without either word (no CONNECTION within syncTimeout) the
// action goes on, and succeeds or fails on its own.
func deviceDisconnected(ctx context.Context, c *indi.Client, device string) bool {
	if device == "" {
		return true
	}
	sctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	_ = c.Sync(sctx, device)
	p, ok := c.Property(device, "CONNECTION")
	return ok && !p.SwitchOn("CONNECT")
}
