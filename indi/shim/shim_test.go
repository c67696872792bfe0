// The shim that links device pods into one indiserver: the drivers file it writes, the
// addresses a change starts and stops, and an indiserver that keeps its pid throughout.
package shim_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/shim"
)

func TestTheDriversFileGivesEachServiceAddressOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		want []string
	}{
		{"empty", "", nil},
		{"the annotation's lines", "east-mount:7625\nlab-dome:7625\n", []string{"east-mount:7625", "lab-dome:7625"}},
		{"sorted, without repeats or blanks", "b:1\n\n a:2 \nb:1\n", []string{"a:2", "b:1"}},
		{"a fully qualified name", "east-mount.observatory.svc:7625", []string{"east-mount.observatory.svc:7625"}},
		{"no port", "east-mount\n", nil},
		{"a path is no address", "../../bin/sh:1\n/x:1\n", nil},
		{"a port that is no number", "a:b\n", nil},
		{"upper case is no Service name", "East:7625\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, shim.ParseDrivers([]byte(tc.file)))
		})
	}
}

func TestChangesStartTheNewAddressesAndStopTheGoneOnes(t *testing.T) {
	for _, tc := range []struct {
		name        string
		linked      []string
		want        []string
		start, stop []string
	}{
		{"nothing to do", []string{"a:1"}, []string{"a:1"}, nil, nil},
		{"a device joins", []string{"a:1"}, []string{"a:1", "b:1"}, []string{"b:1"}, nil},
		{"a device leaves", []string{"a:1", "b:1"}, []string{"b:1"}, nil, []string{"a:1"}},
		{"all go", []string{"b:1", "a:1"}, nil, nil, []string{"a:1", "b:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			linked := map[string]bool{}
			for _, a := range tc.linked {
				linked[a] = true
			}
			start, stop := shim.Changes(linked, tc.want)
			assert.Equal(t, tc.start, start)
			assert.Equal(t, tc.stop, stop)
		})
	}
}

// TestTheShimLinksDevicePodsIntoOneIndiserverThatNeverRestarts runs what a server pod runs
// against two "device pods" (socat serving a real simulator on a port, as the device pods'
// command does): a device whose line comes is defined, one whose line goes is deleted, one
// whose socat dies and comes back is defined again, and indiserver keeps its pid throughout.
func TestTheShimLinksDevicePodsIntoOneIndiserverThatNeverRestarts(t *testing.T) {
	for _, p := range []string{"indiserver", "socat", "indi_simulator_telescope", "indi_simulator_dome"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed: run hack/tools.sh (it installs Debian's indi-bin and socat)", p)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "indi-shim")
	out, err := exec.Command("go", "build", "-o", bin, "liken.sh/runner/cmd/indi-shim").CombinedOutput()
	require.NoError(t, err, "%s", out)

	mount := startDevice(t, dir, "indi_simulator_telescope", 0)
	dome := startDevice(t, dir, "indi_simulator_dome", 0)
	drivers := filepath.Join(dir, "drivers")
	writeDrivers(t, drivers, mount.addr)

	port := freePort(t)
	serve := exec.Command(bin, "serve", drivers, filepath.Join(dir, "links"), filepath.Join(dir, "fifo"),
		"indiserver", "-v", "-r", "2147483647", "-p", strconv.Itoa(port), "-u", filepath.Join(dir, "sock"))
	serve.Env = append(os.Environ(), "HOME="+dir)
	logFile, err := os.Create(filepath.Join(dir, "serve.log"))
	require.NoError(t, err)
	defer logFile.Close()
	serve.Stdout, serve.Stderr = logFile, logFile
	log := func() string { b, _ := os.ReadFile(logFile.Name()); return string(b) }
	require.NoError(t, serve.Start())
	t.Cleanup(func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
		if t.Failed() {
			t.Logf("indi-shim and indiserver said:\n%s", log())
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := dialServer(t, ctx, port)
	waitDevices(t, c, []string{"Telescope Simulator"}, "the mount's line is linked")
	pid := indiserverPid(t, serve.Process.Pid)

	writeDrivers(t, drivers, mount.addr, dome.addr)
	waitDevices(t, c, []string{"Dome Simulator", "Telescope Simulator"}, "the dome joins")

	writeDrivers(t, drivers, dome.addr)
	waitDevices(t, c, []string{"Dome Simulator"}, "the mount leaves")

	// The dome's pod restarts: its socat goes, the link waits, and a new socat on the same
	// address serves the driver again.
	dome.stop()
	waitDevices(t, c, nil, "the dome's driver is gone with its pod")
	startDevice(t, dir, "indi_simulator_dome", dome.port)
	waitDevices(t, c, []string{"Dome Simulator"}, "the dome is back with its pod")

	assert.Equal(t, pid, indiserverPid(t, serve.Process.Pid), "indiserver was never restarted")
	assert.Contains(t, log(), "links/"+dome.addr, "indiserver names the driver after its Service address")
}

type device struct {
	addr string
	port int
	stop func()
}

// startDevice runs what a device pod runs, on 127.0.0.1 (port 0: a free one).
func startDevice(t *testing.T, dir, driver string, port int) device {
	t.Helper()
	if port == 0 {
		port = freePort(t)
	}
	cmd := exec.Command("socat", fmt.Sprintf("TCP-LISTEN:%d,bind=127.0.0.1,reuseaddr", port), "EXEC:"+driver+",pipes")
	cmd.Env = append(os.Environ(), "HOME="+dir)
	require.NoError(t, cmd.Start())
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	t.Cleanup(stop)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	require.Eventually(t, func() bool {
		// socat without fork serves one connection, so look without connecting.
		b, _ := exec.Command("ss", "-Hltn", "sport = :"+strconv.Itoa(port)).Output()
		return strings.Contains(string(b), "LISTEN")
	}, 10*time.Second, 20*time.Millisecond, "socat listens on %s", addr)
	return device{addr: addr, port: port, stop: stop}
}

func writeDrivers(t *testing.T, path string, addrs ...string) {
	t.Helper()
	// The downward API swaps the file whole; so does this.
	tmp := path + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte(strings.Join(addrs, "\n")+"\n"), 0o644))
	require.NoError(t, os.Rename(tmp, path))
}

func dialServer(t *testing.T, ctx context.Context, port int) *indi.Client {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	var c *indi.Client
	require.Eventually(t, func() bool {
		var err error
		c, err = indi.Dial(ctx, addr)
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "indiserver listens on %s", addr)
	t.Cleanup(func() { c.Close() })
	return c
}

func waitDevices(t *testing.T, c *indi.Client, want []string, what string) {
	t.Helper()
	var got []string
	ok := assert.Eventually(t, func() bool {
		got = slices.Sorted(slices.Values(c.Devices()))
		return slices.Equal(got, want)
	}, 30*time.Second, 50*time.Millisecond, what)
	if !ok {
		t.Fatalf("%s: the server has %v, want %v", what, got, want)
	}
}

// indiserverPid is the pid of the shim's child.
func indiserverPid(t *testing.T, shimPid int) string {
	t.Helper()
	b, _ := exec.Command("pgrep", "-P", strconv.Itoa(shimPid), "indiserver").Output()
	pids := strings.Fields(string(b))
	require.NotEmpty(t, pids, "the shim runs indiserver")
	return pids[0]
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// An Observatory's server names the site guard's link after indiserver's options, as its pod
// command does; the shim puts its own option (the fifo) first, so both the guard and the
// drivers it links through the fifo run.
func TestTheShimRunsTheSiteGuardNamedAfterTheOptions(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "indi-shim")
	out, err := exec.Command("go", "build", "-o", bin, "liken.sh/runner/cmd/indi-shim").CombinedOutput()
	require.NoError(t, err, "%s", out)
	dome := startDevice(t, dir, "indi_simulator_dome", 0)
	drivers := filepath.Join(dir, "drivers")
	writeDrivers(t, drivers, dome.addr)
	port := freePort(t)
	links := filepath.Join(dir, "links")
	serve := exec.Command(bin, "serve", drivers, links, filepath.Join(dir, "fifo"),
		"indiserver", "-v", "-p", strconv.Itoa(port), "-u", filepath.Join(dir, "sock"), filepath.Join(links, guard.Driver))
	serve.Env = append(os.Environ(), "HOME="+dir)
	require.NoError(t, serve.Start())
	t.Cleanup(func() { serve.Process.Signal(syscall.SIGTERM); serve.Wait() })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := dialServer(t, ctx, port)
	waitDevices(t, c, []string{"Dome Simulator", guard.Device}, "the site guard runs, and the dome is linked")
}
