// Processes of the stack: started with their output in a log file, killed with the process
// that started them (so a test binary that dies leaves nothing behind), stopped with SIGTERM
// and, after a grace period, SIGKILL.
package localstack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// errPortTaken: a program could not bind a port chosen for it (another process took it).
var errPortTaken = errors.New("a port chosen for it was taken (address already in use)")

type proc struct {
	name  string
	path  string
	args  []string
	env   []string
	dir   string
	log   string
	ready func(context.Context) error
	// user runs the program as another user (PostgreSQL refuses root); nil: as we run.
	user *syscall.Credential
	// shutdown, when set, is the signal that makes the program stop cleanly by itself: stop
	// sends it to the program alone, and the kernel sends it when our process dies, instead
	// of SIGTERM to its process group and SIGKILL.
	shutdown syscall.Signal

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	// stopped says the last exit was asked for (stop), not one to restart after.
	stopped bool
	// next is closed when the program is started again.
	next chan struct{}
}

// run starts the process and waits until ready answers nil, the process exits, or ctx ends.
func (s *Stack) run(ctx context.Context, p *proc) error {
	p.log = s.Logs(p.name)
	if err := p.start(); err != nil {
		return err
	}
	s.add(p)
	s.log.Info("started", "process", p.name, "log", p.log)
	return p.waitReady(ctx)
}

func (p *proc) start() error {
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = f, f
	// Own process group, so a stop reaches the children too; killed if we die.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: p.user}
	if p.shutdown != 0 {
		cmd.SysProcAttr.Pdeathsig = p.shutdown
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); f.Close(); close(done) }()
	p.mu.Lock()
	if p.next != nil {
		close(p.next)
	}
	p.cmd, p.done, p.stopped, p.next = cmd, done, false, make(chan struct{})
	p.mu.Unlock()
	return nil
}

// exited returns a channel closed when the running program exits, whether that exit was
// asked for (stop) or not; one closed when it is started again; and how it exited, once it has.
func (p *proc) exited() (done, next <-chan struct{}, how func() (status string, asked bool)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd, d, n := p.cmd, p.done, p.next
	return d, n, func() (string, bool) {
		p.mu.Lock()
		defer p.mu.Unlock()
		select {
		case <-n: // started again already (StopProcess's restart): its exit was asked for
			return cmd.ProcessState.String(), true
		default:
			return cmd.ProcessState.String(), p.stopped
		}
	}
}

func (p *proc) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var last error
	for {
		if last = p.ready(ctx); last == nil {
			return nil
		}
		select {
		case <-p.done:
			// Go says "address already in use", PostgreSQL "Address already in use".
			if b, _ := os.ReadFile(p.log); strings.Contains(strings.ToLower(string(b)), "address already in use") {
				return fmt.Errorf("%s: %w; see %s", p.name, errPortTaken, p.log)
			}
			return fmt.Errorf("%s exited before it was ready; the end of %s:\n%s", p.name, p.log, tail(p.log, 2000))
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready in time (%v); the end of %s:\n%s", p.name, last, p.log, tail(p.log, 2000))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *proc) stop(grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.stopped = true
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	if p.shutdown != 0 {
		syscall.Kill(cmd.Process.Pid, p.shutdown)
	} else {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
	select {
	case <-done:
	case <-time.After(grace):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

func (p *proc) restart(ctx context.Context) error {
	if err := p.start(); err != nil {
		return err
	}
	return p.waitReady(ctx)
}

// runOnce runs a program to its end, as a Job or an init container runs, with its output in
// <name>.log and the environment env added to ours; as runs it as another user. It fails with
// the end of the log unless the program exits 0.
func (s *Stack) runOnce(ctx context.Context, name string, as *syscall.Credential, env []string, path string, args ...string) error {
	log := s.Logs(name)
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = s.opts.Dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: as}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	s.log.Info("running", "process", name, "log", log)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s failed: %v; the end of %s:\n%s", name, err, log, tail(log, 2000))
	}
	return nil
}

// tail returns the last n bytes of a file, for error messages.
func tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	off := max(st.Size()-n, 0)
	b := make([]byte, st.Size()-off)
	f.ReadAt(b, off)
	return strings.TrimSpace(string(b))
}

func mkdir(parts ...string) (string, error) {
	d := filepath.Join(parts...)
	return d, os.MkdirAll(d, 0o755)
}
