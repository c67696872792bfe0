// One server's start does not hold another's: each server has its own lock, so twenty
// telescopes' servers start side by side and a running one is found while another starts.
package observatory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAServerStartingDoesNotHoldAnotherServersAddress(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		l := &LocalINDI{Dir: dir}
		ctx := testContext(t)
		dome := INDIServer{Namespace: "dev", Name: "lab-observatory", Drivers: []string{"indi_simulator_dome"}}
		addr, err := l.Address(ctx, dome)
		require.NoError(t, err)

		// east's start under way: its lock is held until the test lets go.
		unlock, err := l.lockKey("dev/east-telescope")
		require.NoError(t, err)
		again, err := l.Address(ctx, dome) // the test's deadline fails it if it waits for east
		require.NoError(t, err)
		assert.Equal(t, addr, again)
		west, err := l.Address(ctx, INDIServer{Namespace: "dev", Name: "west-telescope", Drivers: []string{"indi_simulator_telescope"}})
		require.NoError(t, err)
		devicesAt(t, west, "Telescope Simulator")
		unlock()

		require.NoError(t, l.Close())
		assert.True(t, localRefused(addr) && localRefused(west), "Close stops the servers")
		if dir != "" {
			assert.NoDirExists(t, dir, "Close leaves no lock file behind")
		}
	}
}
