// The worker's dev mode (`make run`, or worker --dev-local-indi): a local indiserver stands in
// for each INDI server pod, since kwok's pods run nothing. It serves the same drivers the pod
// would link, so a telescope made of simulators connects, configures and reports as it would
// in a cluster. Dev mode only: the drivers run on the worker's machine, as the worker's user.
package activities

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"liken.sh/runner/indi/inditest"
)

// LocalINDI resolves each INDI server (namespace and name) to an indiserver it starts on a
// free 127.0.0.1 port, once, with the drivers asked for. A server that died is started again;
// a server asked for a driver it lacks is restarted with the union of both sets (its clients
// reconnect). Close stops them all.
type LocalINDI struct {
	mu      sync.Mutex
	servers map[string]*localINDIServer
	closed  bool
}

type localINDIServer struct {
	srv     *inditest.Server
	dir     string
	drivers []string
}

// errLocalINDIClosed is an Address after Close.
var errLocalINDIClosed = errors.New("the local INDI servers are stopped")

// Address starts or reuses the local indiserver of s and returns its address.
func (l *LocalINDI) Address(ctx context.Context, s INDIServer) (string, error) {
	if s.Name == "" || s.Namespace == "" {
		return "", fmt.Errorf("an INDI server needs a name and a namespace, got %q in %q", s.Name, s.Namespace)
	}
	if len(s.Drivers) == 0 {
		return "", fmt.Errorf("the INDI server %s/%s runs no drivers", s.Namespace, s.Name)
	}
	for _, d := range s.Drivers {
		if strings.ContainsAny(d, "/@ ") {
			return "", fmt.Errorf("dev mode runs drivers by name, not %q", d)
		}
		if _, err := exec.LookPath(d); err != nil {
			return "", fmt.Errorf("dev mode runs the INDI server %s/%s on this machine, where its driver %s is not installed: "+
				"use the simulators (indi_simulator_*, from Debian's indi-bin: hack/tools.sh indi) or install the driver", s.Namespace, s.Name, d)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return "", errLocalINDIClosed
	}
	if l.servers == nil {
		l.servers = map[string]*localINDIServer{}
	}
	key := s.Namespace + "/" + s.Name
	drivers := slices.Clone(s.Drivers)
	if cur := l.servers[key]; cur != nil {
		if localAlive(cur.srv.Addr) && !slices.ContainsFunc(s.Drivers, func(d string) bool { return !slices.Contains(cur.drivers, d) }) {
			return cur.srv.Addr, nil
		}
		cur.stop()
		delete(l.servers, key)
		drivers = append(drivers, cur.drivers...)
	}
	slices.Sort(drivers)
	drivers = slices.Compact(drivers)
	// A short HOME: indiserver's local socket lives under it, and a socket path is limited
	// to about 100 bytes.
	dir, err := os.MkdirTemp("", "liken-indi-")
	if err != nil {
		return "", err
	}
	srv, err := inditest.Launch(ctx, dir, drivers...)
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("start a local indiserver for %s: %w", key, err)
	}
	l.servers[key] = &localINDIServer{srv: srv, dir: dir, drivers: drivers}
	logFor(ctx).Info("started a local indiserver (dev mode)", "server", key, "address", srv.Addr, "drivers", drivers)
	return srv.Addr, nil
}

// Close stops every local indiserver and its drivers.
func (l *LocalINDI) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for k, s := range l.servers {
		s.stop()
		delete(l.servers, k)
	}
	return nil
}

func (s *localINDIServer) stop() {
	s.srv.Stop()
	os.RemoveAll(s.dir)
}

// localAlive says whether something still listens at addr: a killed indiserver refuses.
func localAlive(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}
