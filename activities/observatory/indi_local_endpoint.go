// Where a person reaches a Ready reservation's INDI server in dev mode. The status says
// east-telescope.observatory.svc:7624, as in a cluster, but that name means nothing on the
// machine `make run` runs on: when the reservation turns Ready, the worker in dev mode also
// posts a LocalEndpoint Event naming the 127.0.0.1 address of the local indiserver that
// stands in for the pod (make run prints it), so KStars or Ekos can be pointed there.
package observatory

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// ReasonLocalEndpoint is the Event that names a Ready reservation's local INDI server.
const ReasonLocalEndpoint = "LocalEndpoint"

// localLookup is a resolver that runs the servers on this machine (dev mode, LocalINDI).
type localLookup interface {
	Lookup(namespace, name string) (string, bool)
}

// localEndpointEvents is the LocalEndpoint Event that a status write deserves: when it turns
// the reservation Ready and a local indiserver serves its endpoint.
func (a *Activities) localEndpointEvents(in ReservationStatusWrite) []kube.Event {
	local, ok := a.INDI.(localLookup)
	if !ok || in.Status.Endpoint == nil {
		return nil
	}
	for _, e := range in.Events {
		if e.Reason != string(obsv1.ReservationReady) {
			continue
		}
		if addr, ok := local.Lookup(in.Ref.Namespace, in.Status.Endpoint.Service); ok {
			return []kube.Event{LocalEndpointEvent(*in.Status.Endpoint, addr)}
		}
	}
	return nil
}

// LocalEndpointEvent says where the endpoint's local stand-in listens.
func LocalEndpointEvent(ep obsv1.Endpoint, addr string) kube.Event {
	return kube.Event{Type: corev1.EventTypeNormal, Reason: ReasonLocalEndpoint, Message: fmt.Sprintf(
		"Dev mode: the INDI server %s:%d runs on this machine at %s; point an INDI client (KStars, Ekos) there",
		ep.Host, ep.Port, addr)}
}
