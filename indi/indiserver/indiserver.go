// Package indiserver runs Debian's indiserver on this machine: the worker's dev mode runs its
// stand-in INDI servers with it, and the tests their simulators (through indi/inditest). Each
// server listens on a free port of 127.0.0.1 only (indiserver listens on every interface, so
// loopback.so is preloaded: see hack/loopback) with its own HOME (drivers keep their config
// under ~/.indi) and its own local socket (indiserver's default one allows a single server per
// machine). A driver indiserver cannot run shows only in indiserver's log, so Launch reads that
// log and fails with it instead of waiting for a device that never comes. A machine without
// indiserver fails, saying how to install it.
//
// The dev mode's servers run detached: such a server outlives the process that started it, as a
// pod outlives a worker, and Attach lets the next process take it over and stop it.
package indiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
)

// Server is an indiserver started by Launch, or found by Attach.
type Server struct {
	Addr string // 127.0.0.1:<port>
	Home string // HOME of the server and its drivers
	Pid  int    // indiserver's; its process group's too

	cmd     *exec.Cmd // nil when attached: another process started it
	log     *logBuffer
	logFile string // a detached server's log, which outlives this process
	exited  chan struct{}
}

// Options change how Launch runs indiserver.
type Options struct {
	// Detached: the server outlives this process. indiserver gets a session of its own and
	// no parent-death signal, and logs to a file in HOME rather than to a pipe, which would
	// break (SIGPIPE) when this process dies.
	Detached bool
	// Started, when set, hears of each indiserver as soon as it runs, before Launch waits
	// for its drivers, so a caller that records its servers loses none if it dies meanwhile.
	// It may hear of a second one when the first could not bind its port.
	Started func(*Server)
	// Port is the port to listen on when it is free (a server started again keeps the
	// address its clients were told); 0, or a port taken, means a free one.
	Port int
	// Env is more of the drivers' environment, as KEY=value.
	Env []string
}

// Launch starts indiserver on a free 127.0.0.1 port with the given drivers (names on PATH,
// such as "indi_simulator_dome"), using dir as HOME, and returns once every driver has defined
// its devices. It fails with indiserver's log when a driver cannot run. Stop it when done.
func Launch(ctx context.Context, dir string, drivers ...string) (*Server, error) {
	return LaunchWith(ctx, dir, Options{}, drivers...)
}

// LaunchWith is Launch with Options.
func LaunchWith(ctx context.Context, dir string, opts Options, drivers ...string) (*Server, error) {
	if _, err := exec.LookPath("indiserver"); err != nil {
		return nil, errors.New("indiserver is not installed: run hack/tools.sh indi (it installs Debian's indi-bin)")
	}
	for _, d := range drivers {
		if strings.Contains(d, "@") {
			continue // a remote device: device@host:port
		}
		if _, err := exec.LookPath(d); err != nil {
			return nil, fmt.Errorf("INDI driver %s is not installed: run hack/tools.sh indi, or check its name", d)
		}
	}
	preload, err := loopback()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 3 { // another process may take the free port before indiserver binds it
		s, err := launch(ctx, dir, opts, preload, drivers)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !errors.Is(err, errBind) || ctx.Err() != nil {
			break
		}
		opts.Port = 0
	}
	return nil, lastErr
}

// LoopbackEnv names the environment variable that points at loopback.so (hack/tools.sh
// loopback builds it), which makes indiserver, a program with no listen-address option, listen
// on 127.0.0.1 only. make run's processes and the tests have it set.
const LoopbackEnv = "LIKEN_INDI_LOOPBACK"

// loopback is the loopback.so to preload.
func loopback() (string, error) {
	path := os.Getenv(LoopbackEnv)
	if path == "" {
		return "", fmt.Errorf("indiserver listens on every interface unless loopback.so is preloaded: set %s to it (hack/tools.sh loopback builds it)", LoopbackEnv)
	}
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("indiserver listens on every interface unless loopback.so is preloaded, and %s is missing: run hack/tools.sh loopback", path)
	}
	return path, nil
}

var errBind = errors.New("indiserver could not bind its port")

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func launch(ctx context.Context, dir string, opts Options, preload string, drivers []string) (*Server, error) {
	port, err := opts.Port, error(nil)
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	sock, err := os.MkdirTemp(dir, "sock")
	if err != nil {
		return nil, err
	}
	args := []string{"-v", "-p", strconv.Itoa(port), "-u", filepath.Join(sock, "indiserver")}
	cmd := exec.Command("indiserver", append(args, drivers...)...)
	cmd.Dir = dir
	// The site guard, a driver, dials the server that runs it: tell it the port.
	cmd.Env = append(os.Environ(), "HOME="+dir, "LD_PRELOAD="+preload, guard.PortEnv+"="+strconv.Itoa(port))
	cmd.Env = append(cmd.Env, opts.Env...)
	log := newLogBuffer()
	var logFile *os.File
	if opts.Detached {
		// Its own session: no terminal's signal reaches it, and no parent takes it along.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if logFile, err = os.CreateTemp(dir, "indiserver-*.log"); err != nil {
			return nil, err
		}
		defer logFile.Close() // indiserver has its own copy
		cmd.Stdout, cmd.Stderr = logFile, logFile
	} else {
		// Stop ends the drivers with it (own group); a killed parent takes it along (Pdeathsig).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmd.Stdout, cmd.Stderr = log, log
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting indiserver: %w", err)
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Home: dir, Pid: cmd.Process.Pid, cmd: cmd,
		log: log, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(s.exited)
		log.poke()
	}()
	if logFile != nil {
		s.logFile = logFile.Name()
		// ready waits on the log as it grows: follow the file until then.
		stop := make(chan struct{})
		defer close(stop)
		go s.follow(stop)
	}
	if opts.Started != nil {
		opts.Started(s)
	}
	if err := s.ready(ctx, drivers); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// ready waits until the server listens and every driver has defined its devices.
func (s *Server) ready(ctx context.Context, drivers []string) error {
	fail := func(why string) error {
		return fmt.Errorf("indiserver with %s %s; its log:\n%s", strings.Join(drivers, " "), why, s.Log())
	}
	listening := "listening to port " + s.Addr[strings.LastIndexByte(s.Addr, ':')+1:]
	if err := s.log.waitFor(ctx, s.exited, func(log string) bool { return strings.Contains(log, listening) }); err != nil {
		if strings.Contains(s.Log(), "bind: Address already in use") {
			return fmt.Errorf("%w: %s", errBind, s.Log())
		}
		return fail("did not start listening: " + err.Error())
	}
	c, err := indi.Dial(ctx, s.Addr)
	if err != nil {
		return fail("did not answer: " + err.Error())
	}
	defer c.Close()
	sub := c.Subscribe(indi.Filter{})
	defer sub.Close()
	want := make(map[string]string) // DRIVER_EXEC: the name indiserver was given
	for _, d := range drivers {
		if !strings.Contains(d, "@") {
			want[filepath.Base(d)] = d
		}
	}
	defined := func() {
		for _, dev := range c.Devices() {
			if p, ok := c.Property(dev, "DRIVER_INFO"); ok {
				exec, _ := p.Text("DRIVER_EXEC")
				delete(want, exec)
			}
		}
	}
	// Wake up on events and on log lines, so a driver that dies is noticed at once.
	logged := make(chan struct{}, 1)
	stop := s.log.notify(logged)
	defer stop()
	evctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan struct{}, 1)
	go func() {
		for {
			if _, err := sub.Next(evctx); err != nil {
				return
			}
			select {
			case events <- struct{}{}:
			default:
			}
		}
	}()
	for defined(); len(want) > 0; defined() {
		log := s.Log()
		for _, d := range want {
			if strings.Contains(log, "Driver "+d+": Terminated after") || strings.Contains(log, "Driver "+d+": execlp") {
				return fail("could not run driver " + d)
			}
		}
		select {
		case <-ctx.Done():
			return fail(fmt.Sprintf("did not define the devices of %v in time", keys(want)))
		case <-s.exited:
			return fail("exited")
		case <-c.Done():
			return fail("dropped the connection: " + c.Err().Error())
		case <-logged:
		case <-events:
		}
	}
	return nil
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Kill ends indiserver abruptly, as a crash or a deleted pod would; its drivers then exit on
// their own when their pipes close. Clients see their connection drop.
func (s *Server) Kill() {
	if s.cmd == nil {
		if s.same() {
			syscall.Kill(s.Pid, syscall.SIGKILL)
		}
		s.awaitGone()
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
}

// Stop ends indiserver and its drivers and waits for indiserver to exit. It is safe to call
// more than once, and after Kill.
func (s *Server) Stop() {
	if s.cmd == nil {
		// Attach checked that the group is this server's; a server that has since exited
		// may have left its pid to another program.
		if s.same() {
			syscall.Kill(-s.Pid, syscall.SIGKILL)
		}
		s.awaitGone()
		return
	}
	// The group was created by this process for this server alone: it holds indiserver and
	// the drivers it started.
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

// leaving): the indiserver with that pid, listening at addr, with HOME home. It fails when that
// process is no longer that indiserver: it exited, and its pid may belong to another program.
func Attach(addr, home string, pid int) (*Server, error) {
	s := &Server{Addr: addr, Home: home, Pid: pid, log: newLogBuffer(), exited: make(chan struct{})}
	if logs, _ := filepath.Glob(filepath.Join(home, "indiserver-*.log")); len(logs) > 0 {
		s.logFile = logs[len(logs)-1]
	}
	if !s.same() {
		return nil, fmt.Errorf("process %d is not the indiserver of %s any more", pid, addr)
	}
	return s, nil
}

// Running says whether the server's indiserver still runs.
func (s *Server) Running() bool {
	if s.cmd == nil {
		return s.same()
	}
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// same says whether s.Pid is still a running indiserver on s's port that leads its own process
// group, as Launch started it.
func (s *Server) same() bool {
	if s.Pid <= 0 || !pidRunning(s.Pid) {
		return false
	}
	if pgid, err := syscall.Getpgid(s.Pid); err != nil || pgid != s.Pid {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", s.Pid))
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	_, port, _ := net.SplitHostPort(s.Addr)
	if filepath.Base(args[0]) != "indiserver" {
		return false
	}
	for i := 1; i+1 < len(args); i++ {
		if args[i] == "-p" && args[i+1] == port {
			return true
		}
	}
	return false
}

// pidRunning says whether pid exists and has not exited: a zombie (exited, not yet reaped by
// whichever process inherited it) does not count.
func pidRunning(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command's closing parenthesis: "pid (comm) S ...".
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// awaitGone waits (a few seconds at most) until an attached server's process group has
// exited: indiserver first, then its drivers, which may still hold the listening socket a
// moment after indiserver is gone, so that a dial right after Stop would still connect.
func (s *Server) awaitGone() {
	// indiserver leads the group, so the group's end is its end too.
	for deadline := time.Now().Add(5 * time.Second); groupRunning(s.Pid) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

// groupRunning says whether any process of group pgid is running (zombies do not count).
func groupRunning(pgid int) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid && pidRunning(pid) {
			return true
		}
	}
	return false
}
