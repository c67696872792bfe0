// Tests of the LocalEndpoint Event dev mode posts when a reservation turns Ready: once, and only
// with local INDI servers. The test itself calls no server.
package observatory

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// fakeLocal runs one local server, at 127.0.0.1:34855.
type fakeLocal struct{}

func (fakeLocal) Address(context.Context, INDIServer) (string, error) { return "127.0.0.1:34855", nil }
func (fakeLocal) Lookup(ns, name string) (string, bool) {
	return "127.0.0.1:34855", ns == "observatory" && name == "east-telescope"
}

func TestTheLocalEndpointIsToldOnceWhenAReservationTurnsReadyInDevModeOnly(t *testing.T) {
	ep := &obsv1.Endpoint{Service: "east-telescope", Host: "east-telescope.observatory.svc", Port: 7624}
	ready := ReservationStatusWrite{
		Ref:    ReservationRef{Namespace: "observatory", Name: "tonight"},
		Status: obsv1.ReservationStatus{Phase: obsv1.ReservationReady, Endpoint: ep},
		Events: []kube.Event{{Reason: "StartGuider"}, {Reason: "Ready", Message: "Ready in 19 s at east-telescope.observatory.svc:7624"}},
	}
	dev := &Activities{INDI: fakeLocal{}}
	got := dev.localEndpointEvents(ready)
	want := []kube.Event{{Type: "Normal", Reason: ReasonLocalEndpoint, Message: "Dev mode: the INDI server east-telescope.observatory.svc:7624 " +
		"runs on this machine at 127.0.0.1:34855; point an INDI client (KStars, Ekos) there"}}
	assert.Equal(t, want, got)

	stillReady := ready
	stillReady.Events = []kube.Event{{Reason: "PodCreated"}}
	assert.Empty(t, dev.localEndpointEvents(stillReady), "told when it turns Ready, not at every write")
	assert.Empty(t, (&Activities{}).localEndpointEvents(ready), "a cluster's worker has no local servers")
	assert.Empty(t, (&Activities{INDI: ServiceResolver{}}).localEndpointEvents(ready))
	elsewhere := ready
	elsewhere.Ref.Namespace = "other"
	assert.Empty(t, dev.localEndpointEvents(elsewhere), "no local server runs it")
}
