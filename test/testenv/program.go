// Program runs one of the project's binaries as a process against the stack, as users run
// it: configured through the environment, ready when /readyz says so, stopped by SIGTERM.
package testenv

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"liken.sh/runner/internal/localstack"
)

// Program is a running binary with health endpoints of its own.
type Program struct {
	t      testing.TB
	Cmd    *exec.Cmd
	Health string        // http://127.0.0.1:<port>
	done   chan struct{} // closed once the program exited
	err    error         // how it exited, set before done closes
	at     time.Time     // when
}

// StartProgram runs bin with the stack's kubeconfig and Temporal address, a free health
// port, and extra environment variables. It gets SIGTERM when the test ends, and SIGKILL if
// it has not exited 10 s later.
func (e *Env) StartProgram(t testing.TB, bin string, extraEnv ...string) *Program {
	t.Helper()
	port, err := localstack.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+e.Kubeconfig, "LIKEN_HEALTH_ADDRESS="+addr, "LIKEN_LOG_FORMAT=text")
	cmd.Env = append(cmd.Env, e.TemporalEnv()...)
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Program{t: t, Cmd: cmd, Health: "http://" + addr, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		p.at = time.Now()
		close(p.done)
	}()
	// Stopped at the end as users stop it, so it cleans up after itself: a dev-mode worker
	// stops its local indiservers, which outlive a killed worker as pods would.
	t.Cleanup(func() {
		if cmd.Process.Signal(syscall.SIGTERM) != nil {
			return // it has exited already
		}
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// Status is the HTTP status of one of the program's health endpoints (0 when it does not
// answer).
func (p *Program) Status(path string) int {
	resp, err := http.Get(p.Health + path)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Get returns the body of one of the program's endpoints ("" when it does not answer 200).
func (p *Program) Get(path string) string {
	resp, err := http.Get(p.Health + path)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return string(b)
}

// WaitReady waits (30 s at most) until /readyz answers 200.
func (p *Program) WaitReady() {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for p.Status("/readyz") != http.StatusOK {
		if time.Now().After(deadline) {
			p.t.Fatalf("%s never reported ready", p.Cmd.Path)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop sends SIGTERM and fails the test unless the program exits 0 within 30 s.
func (p *Program) Stop() {
	p.t.Helper()
	if err := p.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.WaitExit(30 * time.Second); err != nil {
		p.t.Fatalf("%s should exit 0 on SIGTERM: %v", p.Cmd.Path, err)
	}
}

// Kill ends the program with SIGKILL, as a node that dies or an OOM kill does, and waits
// until it is gone.
func (p *Program) Kill() {
	p.t.Helper()
	if err := p.Cmd.Process.Kill(); err != nil {
		p.t.Fatal(err)
	}
	p.WaitExit(10 * time.Second)
}

// Done is closed once the program has exited.
func (p *Program) Done() <-chan struct{} { return p.done }

// WaitExit waits until the program exits and returns when and how (nil for exit 0); it
// fails the test if that takes longer than within.
func (p *Program) WaitExit(within time.Duration) (time.Time, error) {
	p.t.Helper()
	select {
	case <-p.done:
		return p.at, p.err
	case <-time.After(within):
		p.t.Fatalf("%s did not exit within %s", p.Cmd.Path, within)
		return time.Time{}, nil
	}
}
