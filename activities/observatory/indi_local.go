// The worker's dev mode (`make run`, or worker --dev-local-indi): a local indiserver stands in
// for each INDI server pod, since kwok's pods run nothing. It serves the same drivers the pod
// would link, so a telescope made of simulators connects, configures and reports as it would
// in a cluster. Dev mode only: the drivers run on the worker's machine, as the worker's user.
//
// Pods outlive the worker that created them, so with a state folder (Dir) the indiservers do
// too: each is recorded there, runs in a session of its own, and a worker that died abruptly
// leaves them to the next worker on that folder, which adopts them as it would find the pods.
// A graceful stop (Close) ends them all, so `make run`'s Ctrl-C leaves nothing behind.
package observatory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/indiserver"
	"liken.sh/runner/kube"
)

// LocalINDI resolves each INDI server (namespace and name) to an indiserver it starts on a
// free 127.0.0.1 port, once, with the drivers asked for. A server that died is started again;
// a server asked for a driver it lacks is restarted with the union of both sets (its clients
// reconnect). A server started again keeps its port while it can, so the address a person was
// told stays good. Close stops them all.
type LocalINDI struct {
	// Dir records the servers (LocalINDIRecord) so that they outlive this process, and a
	// later LocalINDI on the same Dir adopts those that still answer. Empty: the servers are
	// remembered in memory only and die with this process. Workers that share a Dir (as
	// workers share the pods they create) take its record as the truth, since another may
	// have restarted a server; the first to Close stops every server recorded there.
	Dir string

	// Guard is the program that serves the site guard (indi/guard) when started under the
	// guard's driver name: each site's indiserver runs it through a link of that name. Empty:
	// this process's own program, which must then serve it (the worker does, and test
	// binaries do through testenv.Run).
	Guard string

	// mu guards the maps and closed, and is held only to read or change them. What is done to
	// one server (its start, which waits for its drivers, a restart, an adoption, a stop)
	// holds that server's own lock (lockKey) instead, so twenty telescopes' servers start side
	// by side and a dial of a running server never waits for another's start.
	mu      sync.Mutex
	servers map[string]*localINDIServer
	// ports are the ports each server last listened on, kept after it stops.
	ports map[string]int
	// keys are the servers' own locks (lockKey), one per server ever asked for.
	keys   map[string]*sync.Mutex
	closed bool
}

type localINDIServer struct {
	srv     *indiserver.Server
	drivers []string
}

// LocalINDIRecord is what Dir holds of one server, one JSON file per server.
type LocalINDIRecord struct {
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Address   string   `json:"address"`
	Drivers   []string `json:"drivers"`
	// Pid is indiserver's, which leads the process group of its drivers.
	Pid int `json:"pid"`
	// Home is the server's HOME, removed with it.
	Home string `json:"home"`
}

// errLocalINDIClosed is an Address after Close.
var errLocalINDIClosed = errors.New("the local INDI servers are stopped")

// homePrefix names the servers' HOMEs, which are short: indiserver's local socket lives under
// HOME, and a socket path is limited to about 100 bytes. Only such folders are removed.
const homePrefix = "liken-indi-"

// Address starts, reuses or adopts the local indiserver of s and returns its address.
func (l *LocalINDI) Address(ctx context.Context, s INDIServer) (string, error) {
	if s.Name == "" || s.Namespace == "" {
		return "", fmt.Errorf("an INDI server needs a name and a namespace, got %q in %q", s.Name, s.Namespace)
	}
	// A site's server runs its guard, with or without devices.
	if kube.IsSiteServer(s.Name) {
		s.Drivers = append(slices.Clone(s.Drivers), guard.Driver)
	}
	if len(s.Drivers) == 0 {
		return "", fmt.Errorf("the INDI server %s/%s runs no drivers", s.Namespace, s.Name)
	}
	for _, d := range s.Drivers {
		if d == guard.Driver {
			continue // a link to Guard, made at launch
		}
		if strings.ContainsAny(d, "/@ ") {
			return "", fmt.Errorf("dev mode runs drivers by name, not %q", d)
		}
		if _, err := exec.LookPath(d); err != nil {
			return "", fmt.Errorf("dev mode runs the INDI server %s/%s on this machine, where its driver %s is not installed: "+
				"use the simulators (indi_simulator_*, from Debian's indi-bin: hack/tools.sh indi) or install the driver", s.Namespace, s.Name, d)
		}
	}
	key := s.Namespace + "/" + s.Name
	unlock, err := l.lockKey(key)
	if err != nil {
		return "", err
	}
	defer unlock()
	covers := func(have []string) bool {
		return !slices.ContainsFunc(s.Drivers, func(d string) bool { return !slices.Contains(have, d) })
	}
	cur := l.current(ctx, key)
	// Alive is the process's word, not a dial's: indiserver listens with a backlog of 5, so
	// a busy one (twenty reservations dialling it at once) drops new connections for a
	// second or more, and a server taken for dead then was killed under its clients.
	if cur != nil && cur.srv.Running() && covers(cur.drivers) {
		return cur.srv.Addr, nil
	}
	drivers := slices.Clone(s.Drivers)
	if l.Dir != "" {
		if cur == nil {
			// A server this worker has no memory of may be one a dead worker left running.
			adopted, had := l.recorded(ctx, key)
			if adopted != nil && covers(adopted.drivers) {
				if err := l.setServer(key, adopted); err != nil {
					return "", err
				}
				l.remember(key, adopted.srv.Addr)
				logFor(ctx).Info("adopted a local indiserver (dev mode)", "server", key, "address", adopted.srv.Addr, "pid", adopted.srv.Pid)
				return adopted.srv.Addr, nil
			}
			if adopted != nil {
				l.stop(key, adopted)
			}
			drivers = append(drivers, had...)
		}
	}
	if cur != nil {
		l.stop(key, cur)
		if err := l.setServer(key, nil); err != nil {
			return "", err
		}
		drivers = append(drivers, cur.drivers...)
	}
	return l.launch(ctx, s, drivers)
}

// lockKey takes the lock of one server (key), which every start, restart, adoption and stop
// of it holds; with a Dir, that server's lock file there too, which keeps another worker on
// the folder from starting it twice. It fails once the servers are stopped.
func (l *LocalINDI) lockKey(key string) (unlock func(), err error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, errLocalINDIClosed
	}
	l.init()
	m := l.keys[key]
	if m == nil {
		m = &sync.Mutex{}
		l.keys[key] = m
	}
	l.mu.Unlock()
	m.Lock()
	if l.Dir == "" {
		return m.Unlock, nil
	}
	unlockFile, err := l.lockDir(strings.Replace(key, "/", "_", 1) + ".lock")
	if err != nil {
		m.Unlock()
		return nil, err
	}
	return func() { unlockFile(); m.Unlock() }, nil
}

// lockedServer takes the lock of key's server and returns the server: this worker's, or one
// an earlier worker recorded in Dir; nil when none runs.
func (l *LocalINDI) lockedServer(ctx context.Context, key string) (cur *localINDIServer, unlock func(), err error) {
	if unlock, err = l.lockKey(key); err != nil {
		return nil, nil, err
	}
	cur = l.current(ctx, key)
	if l.Dir != "" && cur == nil {
		cur, _ = l.recorded(ctx, key)
	}
	return cur, unlock, nil
}

// current is the server of key this worker knows of, or nil; its key's lock is held. With a
// Dir, it is the one recorded there or none: another worker on the folder may have restarted
// it (with a driver more) or stopped it since, and a server taken from this worker's memory
// then would be restarted with the drivers this worker knew of, under the other's clients.
func (l *LocalINDI) current(ctx context.Context, key string) *localINDIServer {
	cur := l.server(key)
	if cur == nil || l.Dir == "" {
		return cur
	}
	if r, err := l.readRecord(key); err == nil && r.Pid == cur.srv.Pid && r.Address == cur.srv.Addr {
		return cur
	}
	logFor(ctx).Info("another worker on the folder restarted or stopped a local indiserver (dev mode)", "server", key, "pid", cur.srv.Pid)
	l.mu.Lock()
	delete(l.servers, key)
	l.mu.Unlock()
	return nil
}

// server is the server of key this worker runs, or nil.
func (l *LocalINDI) server(key string) *localINDIServer {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.servers[key]
}

// setServer makes s the server of key (nil: none); once the servers are stopped, it fails.
func (l *LocalINDI) setServer(key string, s *localINDIServer) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errLocalINDIClosed
	}
	if s == nil {
		delete(l.servers, key)
	} else {
		l.servers[key] = s
	}
	return nil
}

// port is the port the server of key last listened on, or 0.
func (l *LocalINDI) port(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ports[key]
}

// Lookup returns the address of the local indiserver of a server (namespace and name) when
// one runs, without starting one: where a person points an INDI client, such as KStars.
func (l *LocalINDI) Lookup(namespace, name string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.servers[namespace+"/"+name]
	if cur == nil || l.closed || !cur.srv.Running() {
		return "", false
	}
	return cur.srv.Addr, true
}

// init makes the maps; l.mu is held.
func (l *LocalINDI) init() {
	if l.servers == nil {
		l.servers = map[string]*localINDIServer{}
		l.ports = map[string]int{}
		l.keys = map[string]*sync.Mutex{}
	}
}

// remember keeps the port a server listens on, for the next server of that key.
func (l *LocalINDI) remember(key, addr string) {
	if _, p, err := net.SplitHostPort(addr); err == nil {
		if port, err := strconv.Atoi(p); err == nil {
			l.mu.Lock()
			l.ports[key] = port
			l.mu.Unlock()
		}
	}
}

// StopDrivers stops drivers of a local indiserver when a device leaves it: the server starts
// again with the drivers it keeps (its clients reconnect), or stops when none is left.
func (l *LocalINDI) StopDrivers(ctx context.Context, s INDIServer) error {
	key := s.Namespace + "/" + s.Name
	cur, unlock, err := l.lockedServer(ctx, key)
	if err != nil {
		return err
	}
	defer unlock()
	if cur == nil || !slices.ContainsFunc(cur.drivers, func(d string) bool { return slices.Contains(s.Drivers, d) }) {
		return nil
	}
	keep := slices.DeleteFunc(slices.Clone(cur.drivers), func(d string) bool { return slices.Contains(s.Drivers, d) })
	l.stop(key, cur)
	if err := l.setServer(key, nil); err != nil {
		return err
	}
	logFor(ctx).Info("stopped drivers of a local indiserver (dev mode)", "server", key, "drivers", s.Drivers)
	if len(keep) == 0 {
		l.forgetGuard(key)
		return nil
	}
	_, err = l.launch(ctx, s, keep)
	return err
}

// launch starts the local indiserver of s with drivers, and records it; its key's lock is held.
func (l *LocalINDI) launch(ctx context.Context, s INDIServer, drivers []string) (string, error) {
	key := s.Namespace + "/" + s.Name
	slices.Sort(drivers)
	drivers = slices.Compact(drivers)
	home, err := os.MkdirTemp("", homePrefix)
	if err != nil {
		return "", err
	}
	programs, err := l.programs(home, drivers)
	if err != nil {
		os.RemoveAll(home)
		return "", err
	}
	var recErr error
	srv, err := indiserver.LaunchWith(ctx, home, indiserver.Options{
		Detached: l.Dir != "",
		Port:     l.port(key),
		Env:      []string{guard.StateEnv + "=" + l.guardState(key, home)},
		Started: func(srv *indiserver.Server) {
			// Recorded before its drivers are up: a worker killed meanwhile leaves no server
			// that no one knows of.
			if l.Dir != "" && recErr == nil {
				recErr = l.record(LocalINDIRecord{Namespace: s.Namespace, Name: s.Name, Address: srv.Addr,
					Drivers: drivers, Pid: srv.Pid, Home: home})
			}
		},
	}, programs...)
	if err == nil && recErr != nil {
		srv.Stop()
		err = recErr
	}
	if err != nil {
		l.forget(key)
		os.RemoveAll(home)
		return "", fmt.Errorf("start a local indiserver for %s: %w", key, err)
	}
	if err := l.setServer(key, &localINDIServer{srv: srv, drivers: drivers}); err != nil {
		// Stopped meanwhile: this one goes too.
		srv.Stop()
		l.forget(key)
		os.RemoveAll(home)
		return "", err
	}
	l.remember(key, srv.Addr)
	logFor(ctx).Info("started a local indiserver (dev mode)", "server", key, "address", srv.Addr, "drivers", drivers, "pid", srv.Pid)
	return srv.Addr, nil
}

// Close stops every local indiserver and its drivers: this worker's, and those recorded in Dir
// by an earlier worker and never adopted. It removes their records, and Dir when empty.
func (l *LocalINDI) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.Dir != "" {
		unlock, err := l.lockDir("lock")
		if err != nil {
			return err
		}
		defer unlock()
	}
	for k, s := range l.servers {
		l.stop(k, s)
		l.forgetGuard(k)
		delete(l.servers, k)
	}
	if l.Dir == "" {
		return nil
	}
	recs, err := ReadLocalINDIRecords(l.Dir)
	for _, r := range recs {
		key := r.Namespace + "/" + r.Name
		if srv, err := indiserver.Attach(r.Address, r.Home, r.Pid); err == nil {
			srv.Stop()
		}
		removeHome(r.Home)
		l.forget(key)
		l.forgetGuard(key)
	}
	if err == nil {
		// Nothing is left to adopt: the folder goes too (if nothing else is in it), with the
		// servers' lock files.
		// Every server has stopped: no guard writes its state any more.
		locks, _ := filepath.Glob(filepath.Join(l.Dir, "*.lock"))
		states, _ := filepath.Glob(l.guardState("*/*", ""))
		for _, f := range append(locks, states...) {
			os.Remove(f)
		}
		os.Remove(filepath.Join(l.Dir, "lock"))
		os.Remove(l.Dir)
	}
	return err
}

// recorded finds the recorded server of key: running and answering, it is returned to adopt;
// otherwise it is stopped and forgotten, and only the drivers it ran are returned, so that
// the next server runs them too.
func (l *LocalINDI) recorded(ctx context.Context, key string) (*localINDIServer, []string) {
	r, err := l.readRecord(key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		logFor(ctx).Warn("ignored a broken local indiserver record (dev mode)", "server", key, "error", err)
		l.forget(key)
		return nil, nil
	}
	srv, err := indiserver.Attach(r.Address, r.Home, r.Pid)
	if err == nil && !localRefused(r.Address) {
		return &localINDIServer{srv: srv, drivers: r.Drivers}, r.Drivers
	}
	if err == nil {
		srv.Stop() // runs, but does not answer
	}
	logFor(ctx).Info("a recorded local indiserver is gone; starting another (dev mode)", "server", key, "pid", r.Pid)
	if l.port(key) == 0 {
		l.remember(key, r.Address)
	}
	removeHome(r.Home)
	l.forget(key)
	return nil, r.Drivers
}

// stop ends a server, removes its HOME and forgets its record.
func (l *LocalINDI) stop(key string, s *localINDIServer) {
	s.srv.Stop()
	removeHome(s.srv.Home)
	l.forget(key)
}

// removeHome removes a server's HOME, and nothing else a broken record might name.
func removeHome(home string) {
	if home != "" && strings.HasPrefix(filepath.Base(home), homePrefix) {
		os.RemoveAll(home)
	}
}

// localRefused says whether nothing listens at addr: a killed indiserver refuses. A dial that
// only times out is a busy server's full listen queue, not a dead one.
func localRefused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return errors.Is(err, syscall.ECONNREFUSED)
	}
	c.Close()
	return false
}

// guardState is the file a site guard keeps its state in (indi/guard): in Dir, where it outlives
// the server's restarts (a driver added starts the server again, in a new HOME), until the
// server stops for good; without a Dir, in the server's HOME.
func (l *LocalINDI) guardState(key, home string) string {
	if l.Dir == "" {
		return filepath.Join(home, "site-guard.state")
	}
	return filepath.Join(l.Dir, strings.Replace(key, "/", "_", 1)+".site-guard.state")
}

// forgetGuard removes a site guard's state once its server has stopped for good.
func (l *LocalINDI) forgetGuard(key string) {
	if l.Dir != "" {
		os.Remove(l.guardState(key, ""))
	}
}

// programs are what indiserver runs for drivers: each by its name, but the guard through a
// link in the server's home that names the program serving it.
func (l *LocalINDI) programs(home string, drivers []string) ([]string, error) {
	out := slices.Clone(drivers)
	i := slices.Index(out, guard.Driver)
	if i < 0 {
		return out, nil
	}
	program := l.Guard
	if program == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find the program that serves the site guard: %w", err)
		}
		program = self
	}
	out[i] = filepath.Join(home, guard.Driver)
	if err := os.Symlink(program, out[i]); err != nil {
		return nil, fmt.Errorf("link the site guard: %w", err)
	}
	return out, nil
}
