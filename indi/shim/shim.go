// Package shim is indi-shim, the program in front of indiserver in an INDI server pod. The
// runner links a device into a running server by listing the device's Service in the pod's
// drivers annotation, which the downward API keeps current in a file; the shim reads that
// file and tells indiserver, through its fifo, to start or stop a driver for each line that
// comes or goes. indiserver is never restarted, so the other devices stay connected.
//
// A driver that indiserver starts is a link: a symlink named after the Service address
// (`east-mount:7625`) in the shim's own folder, pointing at the shim. indiserver runs it as a
// local driver, and the shim, called by that name, carries the driver's stdio over TCP to the
// device pod, where socat runs the real driver. indiserver's own remote drivers
// (`@host:port`) would do the same without a link, but indiserver exits when one cannot
// connect, which a device pod that restarts would make it do; a link waits for its pod
// instead, and exits when the connection drops, so indiserver restarts it and the device is
// defined again.
package shim

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"liken.sh/runner/indi/guard"
)

// Server is what `indi-shim serve` runs.
type Server struct {
	// DriversFile lists one <service>:<port> per line (the downward API's file).
	DriversFile string
	// LinkDir holds a link per running driver; it is emptied at start.
	LinkDir string
	// Fifo is where indiserver reads its start and stop commands; the shim makes it.
	Fifo string
	// Command is indiserver and its flags; the shim adds -f Fifo.
	Command []string
	// Self is the shim's own binary, which every link points at.
	Self string
	// Poll is how often the drivers file is read (the downward API replaces it whole).
	Poll time.Duration
	Log  *slog.Logger
}

// Run starts indiserver and keeps its drivers in step with the drivers file until ctx ends
// (then it stops indiserver with SIGTERM) or indiserver exits, which is an error: the
// container's restart policy starts both again.
func (s *Server) Run(ctx context.Context) error {
	if err := s.prepare(); err != nil {
		return err
	}
	// Options before drivers: indiserver takes every word after the first driver (such as
	// the site guard's link) as one more driver.
	args := append([]string{"-f", s.Fifo}, s.Command[1:]...)
	cmd := exec.Command(s.Command[0], args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.Command[0], err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s.Log.Info("started indiserver", "pid", cmd.Process.Pid, "fifo", s.Fifo, "drivers", s.DriversFile)

	linked := map[string]bool{}
	tick := time.NewTicker(s.Poll)
	defer tick.Stop()
	for {
		if err := s.sync(linked); err != nil {
			s.Log.Warn("could not bring the drivers in step; trying again", "error", err)
		}
		select {
		case err := <-exited:
			return fmt.Errorf("indiserver exited: %v", err)
		case <-ctx.Done():
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
			return nil
		case <-tick.C:
		}
	}
}

func (s *Server) prepare() error {
	if len(s.Command) == 0 {
		return errors.New("no indiserver command given")
	}
	if err := os.RemoveAll(s.LinkDir); err != nil {
		return err
	}
	if err := os.MkdirAll(s.LinkDir, 0o755); err != nil {
		return err
	}
	// An Observatory's server runs the site guard through this link (its command names it).
	if err := os.Symlink(s.Self, filepath.Join(s.LinkDir, guard.Driver)); err != nil {
		return err
	}
	if err := os.Remove(s.Fifo); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := syscall.Mkfifo(s.Fifo, 0o600); err != nil {
		return fmt.Errorf("make the fifo %s: %w", s.Fifo, err)
	}
	return nil
}

// sync reads the drivers file and starts and stops drivers until linked matches it. A
// command that could not be sent leaves linked as it was, so the next poll sends it again.
func (s *Server) sync(linked map[string]bool) error {
	b, err := os.ReadFile(s.DriversFile)
	if err != nil {
		return err
	}
	start, stop := Changes(linked, ParseDrivers(b))
	for _, addr := range stop {
		if err := s.send("stop " + s.link(addr)); err != nil {
			return err
		}
		os.Remove(s.link(addr))
		delete(linked, addr)
		s.Log.Info("stopped a driver", "link", addr)
	}
	for _, addr := range start {
		if err := os.Symlink(s.Self, s.link(addr)); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
		if err := s.send("start " + s.link(addr)); err != nil {
			return err
		}
		linked[addr] = true
		s.Log.Info("started a driver", "link", addr)
	}
	return nil
}

func (s *Server) link(addr string) string { return filepath.Join(s.LinkDir, addr) }

// send writes one command to indiserver's fifo. Until indiserver has opened the fifo, an
// open for writing that must not block fails with ENXIO; it is tried again for a while.
func (s *Server) send(line string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, err := os.OpenFile(s.Fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			_, err = f.WriteString(line + "\n")
			f.Close()
			return err
		}
		if !errors.Is(err, syscall.ENXIO) || time.Now().After(deadline) {
			return fmt.Errorf("indiserver does not read its fifo %s: %w", s.Fifo, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ParseDrivers reads the drivers file: one <service>:<port> per line. Blank lines and lines
// that are no address (they would become a path outside the links' folder) are skipped.
func ParseDrivers(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if IsLinkName(line) && !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}

// IsLinkName says whether name is a driver link's name: host:port, where the host is a
// DNS name and the port a number. The shim called by such a name is a link.
func IsLinkName(name string) bool {
	host, port, ok := strings.Cut(name, ":")
	if !ok || host == "" || port == "" || strings.Trim(port, "0123456789") != "" {
		return false
	}
	return strings.Trim(host, "abcdefghijklmnopqrstuvwxyz0123456789-.") == "" && !strings.Contains(host, "..")
}

// Changes says which addresses to start and which to stop so that linked becomes want.
func Changes(linked map[string]bool, want []string) (start, stop []string) {
	for _, a := range want {
		if !linked[a] {
			start = append(start, a)
		}
	}
	for a := range linked {
		if !slices.Contains(want, a) {
			stop = append(stop, a)
		}
	}
	slices.Sort(stop)
	return start, stop
}
