// This test talks to the mount over its pty directly, byte for byte as INDI 1.9.9's LX200 drivers
// do, for what the drivers' own tests cannot show: the replies without '#', the precision
// toggle, silence for unknown commands, the port left openable after a driver that set
// TIOCEXCL lets it go, and nothing left behind by Close.

package lx200_test

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"liken.sh/runner/indi/inditest/lx200"
)

// openPort opens the slave as tty_connect does: no controlling tty, exclusive.
func openPort(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	control(t, f, func(fd int) error { return unix.IoctlSetInt(fd, unix.TIOCEXCL, 0) })
	return f
}

func control(t *testing.T, f *os.File, op func(fd int) error) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var oerr error
	if err := rc.Control(func(fd uintptr) { oerr = op(int(fd)) }); err != nil || oerr != nil {
		t.Fatal(errors.Join(err, oerr))
	}
}

func TestSerialConversation(t *testing.T) {
	t.Parallel()
	m, err := lx200.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.SetSlewTime(200 * time.Millisecond)
	port := openPort(t, m.Slave())
	ask := func(cmd, want string) {
		t.Helper()
		if _, err := port.WriteString(cmd); err != nil {
			t.Fatal(err)
		}
		if want == "" {
			return
		}
		port.SetReadDeadline(time.Now().Add(2 * time.Second))
		got := make([]byte, len(want))
		if _, err := io.ReadFull(port, got); err != nil || string(got) != want {
			t.Fatalf("%q: got %q (%v), want %q", cmd, got, err, want)
		}
	}
	ask("\x06", "P")
	ask(":GR#", "00:00:00#")
	ask(":GD#", "+90*00:00#")
	ask(":U#", "")
	ask(":GR#", "00:00.0#")
	ask(":GD#", "+90*00#")
	ask(":U#", "")
	ask(":Sr05:30:00#", "1")
	ask(":Sd-12*30:15#", "1")
	ask(":Sd+95*00:00#", "0")
	ask(":MS#", "0")
	ask(":D#", "|#")
	time.Sleep(300 * time.Millisecond)
	ask(":D#", "#")
	ask(":GR#", "05:30:00#")
	ask(":GD#", "-12*30:15#")
	ask(":XY#", "") // unknown: silence, so the ACK's answer comes next
	ask("\x06", "P")
	ask(":SC12/07/26#", "1Updating Planetary Data#"+strings.Repeat(" ", 32)+"#")
	if u := m.Unknown(); len(u) != 1 || u[0] != ":XY#" {
		t.Fatalf("unknown commands: %q", u)
	}

	port.Close()
	waitOpenable(t, m.Slave())

	slave := m.Slave()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(slave); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s should be gone after Close: %v", slave, err)
	}
}

// waitOpenable waits until the slave is no longer exclusive, as the mount leaves it once the
// driver let it go. Root may open it anyway, and then asks.
func waitOpenable(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		f, err := os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
		if err != nil && !errors.Is(err, unix.EBUSY) {
			t.Fatal(err)
		}
		excl := 1
		if err == nil {
			control(t, f, func(fd int) (err error) {
				excl, err = unix.IoctlGetInt(fd, unix.TIOCGEXCL)
				return err
			})
			f.Close()
		}
		if excl == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the slave stays exclusive after the port was closed")
		}
	}
}
