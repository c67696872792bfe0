// Where the worker reaches an INDI server. In a cluster it is the server pod's Service; in the
// worker's dev mode (`make run`) and in tests, a local indiserver stands in for the pod, with
// the drivers the pod would run. The steps only ever ask this resolver, so the address mapping
// is a seam of tests and dev mode, not a branch of production code.
package observatory

import (
	"context"
	"fmt"
	"net"
	"strconv"
)

// INDIServer names one INDI server pod (e.g. east-telescope) and the drivers its devices run.
type INDIServer struct {
	Namespace string
	Name      string   // the server pod's and Service's name
	Drivers   []string // e.g. indi_simulator_telescope; dev mode starts these
}

// INDIResolver tells the host:port at which the worker talks INDI to a server.
type INDIResolver interface {
	Address(ctx context.Context, s INDIServer) (string, error)
}

// ServiceResolver is production: the server's Service on port 7624.
type ServiceResolver struct{}

// Address returns <name>.<namespace>.svc:7624.
func (ServiceResolver) Address(_ context.Context, s INDIServer) (string, error) {
	if s.Name == "" || s.Namespace == "" {
		return "", fmt.Errorf("an INDI server needs a name and a namespace, got %q in %q", s.Name, s.Namespace)
	}
	return net.JoinHostPort(s.Name+"."+s.Namespace+".svc", strconv.Itoa(7624)), nil
}

// DriverStopper is a resolver that runs the INDI servers itself (dev mode and tests): when a
// device leaves a running server, it is told to stop the device's drivers, as a pod's
// indi-shim does when the drivers annotation no longer links the device's Service.
type DriverStopper interface {
	// StopDrivers stops s.Drivers on the server s; a driver it does not run is no matter.
	StopDrivers(ctx context.Context, s INDIServer) error
}
