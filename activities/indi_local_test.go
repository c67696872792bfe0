// Tests of the dev-mode resolver against real indiservers and the simulator drivers.
package activities

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/indi"
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
	assert.False(t, localAlive(addr), "Close stops the servers")
	_, err = l.Address(ctx, tel)
	assert.ErrorIs(t, err, errLocalINDIClosed)
}

func TestTheLocalResolverRefusesADriverThisMachineDoesNotHave(t *testing.T) {
	l := &LocalINDI{}
	t.Cleanup(func() { l.Close() })
	_, err := l.Address(testContext(t), INDIServer{Namespace: "dev", Name: "east-telescope", Drivers: []string{"indi_asi_ccd_not_here"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "driver indi_asi_ccd_not_here is not installed")
	assert.Contains(t, err.Error(), "indi_simulator_*")
}
