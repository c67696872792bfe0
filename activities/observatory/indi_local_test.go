// Tests of the dev-mode resolver against real indiservers and the simulator drivers.
package observatory

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/indiserver"
)

// devicesAt dials an INDI server and waits until it has defined the named devices.
func devicesAt(t *testing.T, addr string, want ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	defer c.Close()
	for _, d := range want {
		require.NoError(t, c.Sync(ctx, d), "device %s at %s", d, addr)
	}
}

func TestTheLocalResolverStartsOneServerPerINDIServerAndRestartsItWhenNeeded(t *testing.T) {
	l := &LocalINDI{}
	t.Cleanup(func() { l.Close() })
	ctx := testContext(t)
	tel := INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}}

	addr, err := l.Address(ctx, tel)
	require.NoError(t, err)
	devicesAt(t, addr, "Telescope Simulator")
	again, err := l.Address(ctx, tel)
	require.NoError(t, err)
	assert.Equal(t, addr, again, "the same server for the same name")

	other, err := l.Address(ctx, INDIServer{Namespace: "dev", Name: "lab-observatory", Drivers: []string{"indi_simulator_dome"}})
	require.NoError(t, err)
	assert.NotEqual(t, addr, other, "each server its own indiserver")
	devicesAt(t, other, "Dome Simulator")

	// A driver that appears later: the server runs both after a restart.
	tel.Drivers = append(tel.Drivers, "indi_simulator_ccd")
	addr, err = l.Address(ctx, tel)
	require.NoError(t, err)
	devicesAt(t, addr, "Telescope Simulator", "CCD Simulator")

	// A server that died is started again.
	l.mu.Lock()
	l.servers["dev/east-telescope"].srv.Kill()
	l.mu.Unlock()
	addr, err = l.Address(ctx, INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_ccd"}})
	require.NoError(t, err)
	devicesAt(t, addr, "Telescope Simulator", "CCD Simulator")

	require.NoError(t, l.Close())
	assert.True(t, localRefused(addr), "Close stops the servers")
	_, err = l.Address(ctx, tel)
	assert.ErrorIs(t, err, errLocalINDIClosed)
}

func TestABusyLocalServerIsNotTakenForDeadAndRestarted(t *testing.T) {
	l := &LocalINDI{}
	t.Cleanup(func() { l.Close() })
	ctx := testContext(t)
	tel := INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}}
	addr, err := l.Address(ctx, tel)
	require.NoError(t, err)
	l.mu.Lock()
	pid := l.servers["dev/east-telescope"].srv.Pid
	l.mu.Unlock()

	// A server too busy to accept: stopped, with its listen queue (indiserver's backlog is 5)
	// full, so that a new connection is neither accepted nor refused.
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
	for range 8 {
		d := net.Dialer{Timeout: 200 * time.Millisecond}
		if c, err := d.DialContext(ctx, "tcp", addr); err == nil {
			t.Cleanup(func() { c.Close() })
		}
	}
	again, err := l.Address(ctx, tel)
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, syscall.SIGCONT), "the busy server runs on, not a new one")
	assert.Equal(t, addr, again)
	l.mu.Lock()
	assert.Equal(t, pid, l.servers["dev/east-telescope"].srv.Pid, "the busy server runs on, not a new one")
	l.mu.Unlock()
	devicesAt(t, addr, "Telescope Simulator")
}

func TestTheLocalResolverStopsTheDriversOfADeviceThatLeft(t *testing.T) {
	l := &LocalINDI{}
	t.Cleanup(func() { l.Close() })
	ctx := testContext(t)
	tel := INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_telescope", "indi_simulator_focus"}}
	addr, err := l.Address(ctx, tel)
	require.NoError(t, err)
	devicesAt(t, addr, "Telescope Simulator", "Focuser Simulator")

	require.NoError(t, l.StopDrivers(ctx, INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_focus"}}))
	addr, err = l.Address(ctx, INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}})
	require.NoError(t, err)
	devicesAt(t, addr, "Telescope Simulator")
	l.mu.Lock()
	assert.Equal(t, []string{"indi_simulator_telescope"}, l.servers["dev/east-telescope"].drivers, "the server runs the driver it keeps")
	l.mu.Unlock()

	require.NoError(t, l.StopDrivers(ctx, INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_focus"}}),
		"a driver the server does not run is no matter")
	require.NoError(t, l.StopDrivers(ctx, INDIServer{Namespace: "dev", Name: "lab-observatory", Drivers: []string{"indi_simulator_dome"}}),
		"nor is a server that does not run")
	require.NoError(t, l.StopDrivers(ctx, INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}}))
	assert.True(t, localRefused(addr), "a server left with no driver stops")
}

func TestTheLocalResolverRefusesADriverThisMachineDoesNotHave(t *testing.T) {
	l := &LocalINDI{}
	t.Cleanup(func() { l.Close() })
	_, err := l.Address(testContext(t), INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_asi_ccd_not_here"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "driver indi_asi_ccd_not_here is not installed")
	assert.Contains(t, err.Error(), "indi_simulator_*")
}

// recordOf returns the record of one server in dir.
func recordOf(t *testing.T, dir, name string) LocalINDIRecord {
	t.Helper()
	recs, err := ReadLocalINDIRecords(dir)
	require.NoError(t, err)
	for _, r := range recs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no record of %s in %v", name, recs)
	return LocalINDIRecord{}
}

func running(r LocalINDIRecord) bool {
	_, err := indiserver.Attach(r.Address, r.Home, r.Pid)
	return err == nil
}

func TestAResolverOnTheFolderOfAnotherAdoptsItsServersAndReplacesTheDeadOnes(t *testing.T) {
	dir := t.TempDir()
	ctx := testContext(t)
	tel := INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}}
	site := INDIServer{Namespace: "dev", Name: "lab-observatory", Drivers: []string{"indi_simulator_dome"}}

	// The first stands for a worker that dies abruptly: it is never closed.
	first := &LocalINDI{Dir: dir}
	addr, err := first.Address(ctx, tel)
	require.NoError(t, err)
	_, err = first.Address(ctx, site)
	require.NoError(t, err)
	before, dead := recordOf(t, dir, "east-telescope"), recordOf(t, dir, "lab-observatory")
	t.Cleanup(func() { // should the test fail before the second's Close
		syscall.Kill(-before.Pid, syscall.SIGKILL)
		syscall.Kill(-dead.Pid, syscall.SIGKILL)
	})
	assert.Equal(t, addr, before.Address)
	assert.Equal(t, []string{"indi_simulator_telescope"}, before.Drivers)
	// A client of the server notices any restart: its connection would drop.
	c, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Sync(ctx, "Telescope Simulator"))

	second := &LocalINDI{Dir: dir}
	t.Cleanup(func() { second.Close() })
	again, err := second.Address(ctx, tel)
	require.NoError(t, err)
	assert.Equal(t, addr, again, "the second adopts the first's server")
	assert.Equal(t, before, recordOf(t, dir, "east-telescope"), "the same server, not restarted")
	select {
	case <-c.Done():
		t.Fatalf("the adopted server dropped its client: %v", c.Err())
	case <-time.After(100 * time.Millisecond):
	}

	// A recorded server that died (its pod deleted, say) is replaced, with its drivers.
	require.NoError(t, syscall.Kill(-dead.Pid, syscall.SIGKILL))
	require.Eventually(t, func() bool { return !running(dead) }, 5*time.Second, 10*time.Millisecond)
	siteAddr, err := second.Address(ctx, INDIServer{Namespace: "dev", Name: "lab-observatory", Drivers: []string{"indi_simulator_weather"}})
	require.NoError(t, err)
	devicesAt(t, siteAddr, "Dome Simulator", "Weather Simulator")
	replaced := recordOf(t, dir, "lab-observatory")
	assert.NotEqual(t, dead.Pid, replaced.Pid)
	assert.Equal(t, siteAddr, replaced.Address)
	assert.Equal(t, []string{"indi_simulator_dome", "indi_simulator_weather", guard.Driver}, replaced.Drivers, "a site's server runs the site guard too")
	_, err = os.Stat(dead.Home)
	assert.ErrorIs(t, err, os.ErrNotExist, "the dead server's HOME is removed")

	// A graceful stop ends every recorded server and leaves no record.
	require.NoError(t, second.Close())
	for _, r := range []LocalINDIRecord{before, replaced} {
		assert.False(t, running(r), "%s stopped", r.Name)
		assert.True(t, localRefused(r.Address), "%s answers no more", r.Name)
		_, err := os.Stat(r.Home)
		assert.ErrorIs(t, err, os.ErrNotExist, "%s's HOME is removed", r.Name)
	}
	recs, err := ReadLocalINDIRecords(dir)
	require.NoError(t, err)
	assert.Empty(t, recs)
	_, err = os.Stat(dir)
	assert.ErrorIs(t, err, os.ErrNotExist, "the folder goes with its last record")
}

func TestAGracefulStopEndsTheServersAnEarlierWorkerLeftAndNoOneAdopted(t *testing.T) {
	dir := t.TempDir()
	ctx := testContext(t)
	left := &LocalINDI{Dir: dir}
	_, err := left.Address(ctx, INDIServer{Namespace: "dev", Name: "lab-observatory", Drivers: []string{"indi_simulator_dome"}})
	require.NoError(t, err)
	r := recordOf(t, dir, "lab-observatory")
	t.Cleanup(func() { syscall.Kill(-r.Pid, syscall.SIGKILL) })

	// What its site guard kept, once armed, goes with it, and so does a guard's state that
	// outlived its server's record.
	for _, f := range []string{"dev_lab-observatory.site-guard.state", "dev_west-observatory.site-guard.state"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o600))
	}

	next := &LocalINDI{Dir: dir}
	require.NoError(t, next.Close())
	assert.False(t, running(r), "stopped")
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "nothing is left in the folder, which goes too: %v", err)
}

func TestWorkersOnOneFolderTakeItsRecordOverTheirMemory(t *testing.T) {
	dir := t.TempDir()
	ctx := testContext(t)
	one := &LocalINDI{Dir: dir}
	other := &LocalINDI{Dir: dir}
	t.Cleanup(func() { one.Close(); other.Close() })
	mount := INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_telescope"}}
	all := INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_simulator_telescope", "indi_simulator_ccd"}}

	// One starts the server for a procedure on the mount; the other, asked for every
	// device, restarts it with the camera too.
	_, err := one.Address(ctx, mount)
	require.NoError(t, err)
	addr, err := other.Address(ctx, all)
	require.NoError(t, err)
	restarted := recordOf(t, dir, "east-telescope")
	c, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Sync(ctx, "CCD Simulator"))

	// The first, asked for the mount again, uses the other's server as it is.
	again, err := one.Address(ctx, mount)
	require.NoError(t, err)
	assert.Equal(t, addr, again)
	assert.Equal(t, restarted, recordOf(t, dir, "east-telescope"), "not restarted again")
	select {
	case <-c.Done():
		t.Fatalf("the server dropped its client: %v", c.Err())
	case <-time.After(100 * time.Millisecond):
	}
	devicesAt(t, again, "Telescope Simulator", "CCD Simulator")
}
