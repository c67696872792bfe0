// The serial line: a Linux pseudo-terminal whose slave stands for the mount's port. The master
// is read through Go's poller, so Close wakes a pending read. Two pty habits differ from a
// serial port and are handled here: reading the master fails with EIO while no process holds
// the slave (before the driver opens it the read just waits), so the reader then waits and
// tries again; and the TIOCEXCL a driver sets on the slave outlives its close (the slave's tty
// lives as long as the master), so a driver without CAP_SYS_ADMIN could not open the port
// again after a disconnect. On a real port the flag goes with the last close, so the reader
// clears it when the slave is let go.

package lx200

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ack is the single byte (no ':' and no '#') that asks an LX200 for its alignment mode.
const ack = "\x06"

// maxCommand bounds a command's length: the longest LX200 command is well under it, so more is
// line noise.
const maxCommand = 64

// hangupRetry is how often the reader looks again for a driver while none holds the slave.
const hangupRetry = 20 * time.Millisecond

// openPTY opens a new pty master, unlocks its slave and returns the slave's path.
func openPTY() (*os.File, string, error) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, "", fmt.Errorf("opening a pty: %w", err)
	}
	rc, err := master.SyscallConn()
	if err != nil {
		master.Close()
		return nil, "", err
	}
	var n uint32
	var ierr error
	err = rc.Control(func(fd uintptr) {
		if ierr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ierr != nil {
			return
		}
		if n, ierr = unix.IoctlGetUint32(int(fd), unix.TIOCGPTN); ierr != nil {
			return
		}
		ierr = makeRaw(int(fd))
	})
	if err = errors.Join(err, ierr); err != nil {
		master.Close()
		return nil, "", fmt.Errorf("setting up a pty: %w", err)
	}
	return master, fmt.Sprintf("/dev/pts/%d", n), nil
}

// makeRaw sets the slave's line discipline raw (termios calls on a master act on its slave):
// the default one echoes, so replies would come back as commands until the driver sets up
// the port.
func makeRaw(master int) error {
	t, err := unix.IoctlGetTermios(master, unix.TCGETS)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR |
		unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag = t.Cflag&^(unix.CSIZE|unix.PARENB) | unix.CS8
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	return unix.IoctlSetTermios(master, unix.TCSETS, t)
}

// serve reads commands from the master and writes the replies until Close.
func (m *Mount) serve() {
	defer close(m.done)
	var p parser
	buf := make([]byte, 256)
	held := true // assume a driver held the slave: the first EIO then clears its TIOCEXCL
	for {
		n, err := m.master.Read(buf)
		if n > 0 {
			held = true
			p.feed(buf[:n], func(cmd string) {
				if reply := m.answer(cmd); reply != "" {
					m.master.Write([]byte(reply))
				}
			})
		}
		switch {
		case err == nil:
		case errors.Is(err, syscall.EIO): // nobody holds the slave
			p = parser{}
			if held {
				held = false
				m.release()
			}
			select {
			case <-m.stop:
				return
			case <-time.After(hangupRetry):
			}
		default: // closed: the only other way a pty master read ends
			return
		}
	}
}

// release clears the exclusive mode a driver left on the slave. Opening the slave while it is
// set needs CAP_SYS_ADMIN; without it the next opener must have it too, so failing is no
// worse than not trying.
func (m *Mount) release() {
	fd, err := unix.Open(m.slave, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	unix.IoctlSetInt(fd, unix.TIOCNXCL, 0)
	unix.Close(fd)
}

// parser splits the byte stream into commands: ":<body>#" gives its body, the lone ACK byte
// gives ack. Bytes outside a command are dropped, as a mount's controller drops them.
type parser struct {
	buf []byte
	in  bool
}

func (p *parser) feed(b []byte, each func(string)) {
	for _, c := range b {
		switch {
		case !p.in: // ':' inside a command is data: times and coordinates have it
			if c == ':' {
				p.in, p.buf = true, p.buf[:0]
			} else if c == ack[0] {
				each(ack)
			}
		case c == '#':
			p.in = false
			each(string(p.buf))
		case len(p.buf) < maxCommand:
			p.buf = append(p.buf, c)
		default:
			p.in = false
		}
	}
}
