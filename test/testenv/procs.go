// Processes as Linux shows them in /proc, for the tests that prove nothing is left behind
// and that every local stand-in listens on 127.0.0.1 only: which processes a run left (by
// their command lines and environments), and on which addresses a process listens.
package testenv

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is one running process.
type Proc struct {
	Pid     int
	Cmdline string // its arguments, joined by spaces
	Environ []string
}

func (p Proc) String() string { return fmt.Sprintf("%d %s", p.Pid, p.Cmdline) }

// Processes lists the running processes (zombies aside) for which match holds. A process
// that exits while it is read is left out.
func Processes(match func(Proc) bool) []Proc {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []Proc
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); err != nil || i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || len(cmd) == 0 {
			continue
		}
		env, _ := os.ReadFile(filepath.Join(d, "environ"))
		p := Proc{Pid: pid, Cmdline: strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " ")}
		if len(env) > 0 {
			p.Environ = strings.Split(strings.TrimRight(string(env), "\x00"), "\x00")
		}
		if match(p) {
			out = append(out, p)
		}
	}
	return out
}

// Mentions is a match for Processes: the command line or the environment names s.
func Mentions(s string) func(Proc) bool {
	return func(p Proc) bool {
		if strings.Contains(p.Cmdline, s) {
			return true
		}
		for _, e := range p.Environ {
			if strings.Contains(e, s) {
				return true
			}
		}
		return false
	}
}

// Listening returns the TCP addresses (host:port) a process listens on.
func Listening(pid int) ([]string, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if ino, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" || !inodes[fields[9]] {
				continue
			}
			if addr, err := procAddr(fields[1]); err == nil {
				out = append(out, addr)
			}
		}
		f.Close()
	}
	return out, nil
}

// procAddr decodes /proc/net/tcp's "0100007F:1DC8": the address in the kernel's byte order
// (little-endian 32-bit words), then the port.
func procAddr(s string) (string, error) {
	hostHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return "", fmt.Errorf("no port in %q", s)
	}
	b, err := hex.DecodeString(hostHex)
	if err != nil || len(b)%4 != 0 {
		return "", fmt.Errorf("address %q", hostHex)
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(net.IP(b).String(), strconv.Itoa(int(port))), nil
}

// Loopback says whether a listen address is on the loopback interface only.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}
