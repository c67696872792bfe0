// Observing a Ready reservation's Guider: what PHD2's event server tells (its state, the
// calibration, each guide step, its alerts) becomes the Guider's status, written at most once
// a second by the device observer (ObserveDevices). PHD2 is a window like the devices: a
// PHD2 that cannot be reached is tried again a few seconds later and logged, never a failure.
package observatory

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/phd2"
)

const (
	// guiderRedialEvery spaces the attempts to reach a PHD2 that was not there.
	guiderRedialEvery = 5 * time.Second
	// guiderObserveTimeout bounds reaching PHD2 and asking it for its calibration and
	// image scale, between two heartbeats of the observer.
	guiderObserveTimeout = 3 * time.Second
)

// observedGuider is the telescope's Guider and the connection to its PHD2.
type observedGuider struct {
	id       kube.ResourceID
	server   GuiderServer
	client   *phd2.Client
	scale    float64 // PHD2's image scale, asked once per connection
	written  uint64  // the client's Events when its status was last written
	nextDial time.Time
}

// guiderOf is the observed Guider of the telescope's server s, keeping what g knew when it
// is the same Guider; nil without one.
func guiderOf(s stepServer, g *observedGuider) *observedGuider {
	if s.Guider == nil {
		g.close()
		return nil
	}
	id := kube.ResourceID{Kind: obsv1.KindGuider, Namespace: s.Owner.Namespace, Name: s.Guider.Name, UID: s.Guider.UID}
	if g != nil && g.id == id {
		return g
	}
	g.close()
	name, err := kube.ValidObjectName(obsv1.KindGuider, s.Guider.Name)
	if err != nil {
		return nil // StartGuider failed on it: there is no PHD2 to observe
	}
	return &observedGuider{id: id, server: GuiderServer{Namespace: s.Owner.Namespace, Name: name}}
}

func (g *observedGuider) close() {
	if g != nil && g.client != nil {
		g.client.Close()
		g.client = nil
	}
}

// observeGuider writes the Guider's status when PHD2 has told something since the last write,
// connecting to PHD2 first when it is not (again).
func (a *Activities) observeGuider(ctx context.Context, g *observedGuider) {
	if g.client != nil && g.client.Err() != nil {
		logFor(ctx).Warn("the connection to PHD2 ended; reaching it again", "guider", g.id.Name, "namespace", g.id.Namespace,
			"err", g.client.Err())
		g.close()
	}
	if g.client == nil {
		if time.Now().Before(g.nextDial) {
			return
		}
		g.nextDial = time.Now().Add(guiderRedialEvery)
		dctx, cancel := context.WithTimeout(ctx, guiderObserveTimeout)
		defer cancel()
		c, err := a.dialGuider(dctx, g.server)
		if err == nil {
			_, err = c.GetCalibrated(dctx)
		}
		if err == nil {
			g.scale, err = c.PixelScale(dctx)
		}
		if err != nil {
			if c != nil {
				c.Close()
			}
			logFor(ctx).Warn("PHD2 could not be reached; trying again", "guider", g.id.Name, "namespace", g.id.Namespace, "err", err)
			return
		}
		g.client, g.written = c, 0
	}
	n := g.client.Events()
	if n == g.written {
		return
	}
	guiding := g.client.Guiding()
	wctx, cancel := context.WithTimeout(ctx, observeWriteTimeout)
	defer cancel()
	_, err := writeStatus(wctx, a, g.id, nil, func(st obsv1.GuiderStatus, _ metav1.Object) obsv1.GuiderStatus {
		return kube.ObservedGuiderStatus(st, guiding, g.scale)
	})
	if err != nil {
		logFor(ctx).Warn("the status of a Guider could not be written", "guider", g.id.Name, "namespace", g.id.Namespace, "err", err)
		return
	}
	g.written = n
}
