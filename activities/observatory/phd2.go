// Where and how the worker talks to a Guider's PHD2. In a cluster PHD2's event server is the
// guider pod's Service on 4400; tests resolve a fake event server (phd2test) instead. As with
// INDI, the steps only ever ask the resolver, so the address mapping is a seam of tests and
// dev mode, not a branch of production code. The worker's dev mode (--dev-local-indi) stands
// in for the INDI server pods only: the example observatory has no Guider, so it needs no
// guider resolver, but a Guider in dev mode would need one that runs (or finds) a PHD2 or a
// fake event server and returns its address, or StartGuider waits for a Service no one serves.
package observatory

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/phd2"
)

// GuiderServer names one guider's PHD2 pod, such as east-guider.
type GuiderServer struct {
	Namespace string
	Name      string // the guider pod's and Service's name
}

// GuiderResolver tells the host:port at which the worker talks to a guider's PHD2 event server.
type GuiderResolver interface {
	Address(ctx context.Context, g GuiderServer) (string, error)
}

// GuiderServiceResolver is production: the guider's Service on PHD2's port 4400.
type GuiderServiceResolver struct{}

// Address returns <name>.<namespace>.svc:4400.
func (GuiderServiceResolver) Address(_ context.Context, g GuiderServer) (string, error) {
	if g.Name == "" || g.Namespace == "" {
		return "", fmt.Errorf("a guider needs a name and a namespace, got %q in %q", g.Name, g.Namespace)
	}
	return net.JoinHostPort(kube.ServerHost(g.Name, g.Namespace), strconv.Itoa(int(kube.GuiderPort))), nil
}

const (
	// guiderDialTimeout bounds one attempt to reach PHD2 and read its greeting, which it sends
	// at once; a pod just Ready may need a few attempts while its Service catches up.
	guiderDialTimeout = 10 * time.Second
	// guiderStopTimeout bounds Abort's stop_capture, which PHD2 answers at once: a PHD2 that
	// does not answer (stuck in a dialog) must not use up the 2 minutes the mount and cameras
	// need.
	guiderStopTimeout = 15 * time.Second
)

func (a *Activities) guiderResolver() GuiderResolver {
	if a.PHD2 != nil {
		return a.PHD2
	}
	return GuiderServiceResolver{}
}

// dialGuider reaches a guider's PHD2 event server once.
func (a *Activities) dialGuider(ctx context.Context, g GuiderServer) (*phd2.Client, error) {
	addr, err := a.guiderResolver().Address(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("find the PHD2 of %s: %w", g.Name, err)
	}
	dctx, cancel := context.WithTimeout(ctx, guiderDialTimeout)
	defer cancel()
	c, err := phd2.Dial(dctx, addr)
	if err != nil {
		return nil, fmt.Errorf("reach the PHD2 of %s: %w", g.Name, err)
	}
	return c, nil
}

// connectGuider tells PHD2 to connect its camera and mount (set_connected) and waits until
// get_connected says both are. A refusal fails the step with PHD2's own words: a camera or
// mount that will not connect is the user's to fix, and PHD2 would refuse again. A PHD2 that
// cannot be reached, or is lost, is transient: the step is tried again until its deadline.
func (a *Activities) connectGuider(ctx context.Context, guider string, g GuiderServer) error {
	var c *phd2.Client
	var last error
	t := time.NewTicker(stepPollEvery)
	defer t.Stop()
	for {
		c, last = a.dialGuider(ctx, g)
		if last == nil {
			break
		}
		stepHeartbeat(ctx, last.Error())
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the PHD2 of Guider %s: %w (last: %v)", guider, ctx.Err(), last)
		case <-t.C:
		}
	}
	defer c.Close()

	what := "PHD2 of Guider " + guider + " connecting its camera and mount"
	ok, err := c.Connected(ctx)
	if err != nil {
		return err
	}
	if !ok {
		// PHD2 answers set_connected only once it has tried the equipment, which can outlast
		// the heartbeat timeout.
		err := whileHeartbeating(ctx, what, func() error { return c.SetConnected(ctx, true) })
		var refused *phd2.RPCError
		if errors.As(err, &refused) {
			msg := refused.Message
			if msg == "" {
				msg = refused.Error()
			}
			return stepFailed("Guider %s: PHD2 could not connect its camera and mount: %s", guider, msg)
		}
		if err != nil {
			return err
		}
	}
	return waitUntil(ctx, what, func(ctx context.Context) (bool, error) {
		return c.Connected(ctx)
	})
}

// stopGuiders sends stop_capture to the PHD2 of each guider pod of the telescope, so guiding
// stops before the mount and the cameras are aborted. It never fails: what it returns are
// the summary's words, what was stopped and what could not be reached.
func (a *Activities) stopGuiders(ctx context.Context, ns, telescope string) (stopped, notes []string) {
	sel := stopSelector{Namespace: ns, Server: kube.ServerName(obsv1.KindTelescope, telescope), Role: kube.RoleGuider}
	pods, err := a.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.selector()})
	if err != nil {
		return nil, []string{"the guider pods could not be listed to stop PHD2's capture: " + err.Error()}
	}
	for _, p := range pods.Items {
		label := "Guider " + p.Labels[kube.LabelResource]
		if p.Labels[kube.LabelResource] == "" {
			label = "pod " + p.Name
		}
		stepHeartbeat(ctx, "stopping the capture of "+label)
		if err := a.stopCapture(ctx, GuiderServer{Namespace: ns, Name: p.Name}); err != nil {
			notes = append(notes, label+": PHD2 was not told to stop capturing ("+err.Error()+")")
			continue
		}
		stopped = append(stopped, label)
	}
	return stopped, notes
}

func (a *Activities) stopCapture(ctx context.Context, g GuiderServer) error {
	ctx, cancel := context.WithTimeout(ctx, guiderStopTimeout)
	defer cancel()
	c, err := a.dialGuider(ctx, g)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.StopCapture(ctx)
}

// guiderSummary joins the words of stopGuiders for Abort's summary.
func guiderSummary(stopped []string) string {
	if len(stopped) == 0 {
		return ""
	}
	return "Stopped PHD2's capture on " + strings.Join(stopped, ", ")
}
