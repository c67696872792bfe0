// Tests of the shared relay: callers that ask at once share a relay that starts after they ask.
package observatory

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/kube"
)

func TestTwentyReservationsAskingAtOnceShareTwoRelaysEachStartedAfterTheyAsked(t *testing.T) {
	var runs atomic.Int32
	started := make(chan struct{})
	release := make(chan struct{})
	old := relayNow
	t.Cleanup(func() { relayNow = old })
	relayNow = func(_ *Activities, _ context.Context, ns, observatory string) (string, error) {
		n := runs.Add(1)
		if n == 1 {
			close(started)
			<-release // the first relay is under way while the others ask
		}
		return "relay " + strconv.Itoa(int(n)) + " of " + ns + "/" + observatory, nil
	}
	a := &Activities{}
	ctx := context.Background()

	first := make(chan string, 1)
	go func() {
		s, err := a.relayLocks(ctx, "bench", "site")
		assert.NoError(t, err)
		first <- s
	}()
	<-started
	var wg sync.WaitGroup
	got := make([]string, 19)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := a.relayLocks(ctx, "bench", "site")
			assert.NoError(t, err)
			got[i] = s
		}()
	}
	// Once every later caller waits for the next relay, the first may end.
	require.Eventually(t, func() bool {
		siteRelays.mu.Lock()
		defer siteRelays.mu.Unlock()
		s := siteRelays.sites[siteRelayKey{a: a, ns: "bench", observatory: "site"}]
		return s != nil && s.next != nil && s.next.callers == len(got)
	}, 10*time.Second, time.Millisecond)
	close(release)
	wg.Wait()
	assert.Equal(t, "relay 1 of bench/site", <-first)
	for _, s := range got {
		assert.Equal(t, "relay 2 of bench/site", s, "a caller that asked while a relay ran gets the next one")
	}
	assert.EqualValues(t, 2, runs.Load())

	s, err := a.relayLocks(ctx, "bench", "site")
	require.NoError(t, err)
	assert.Equal(t, "relay 3 of bench/site", s, "a caller after them all gets a relay of its own")
	other, err := a.relayLocks(ctx, "bench", "")
	require.NoError(t, err)
	assert.Empty(t, other, "no observatory, nothing to relay")
}

func TestARelayIsHeardBeforeAMoveOnAnOlderConnection(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := inditest.StartServer(t, "indi_simulator_dome")
	dial := func() *indi.Client {
		c, err := indi.Dial(ctx, srv.Addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		require.NoError(t, c.Sync(ctx, "Dome Simulator"))
		return c
	}
	mover := dial() // the procedure's connection: older, so indiserver serves it first
	relayer := dial()
	_, err := mover.Connect(ctx, "Dome Simulator")
	require.NoError(t, err)
	const mounts = "Mounts of lab"
	for _, set := range []func() (bool, error){
		func() (bool, error) { return mover.SetMountPolicy(ctx, "Dome Simulator", true) },
		func() (bool, error) {
			return mover.SetActiveDevices(ctx, "Dome Simulator", map[string]string{indi.ActiveTelescope: mounts})
		},
	} {
		_, err := set()
		require.NoError(t, err)
	}
	require.NoError(t, relayer.RelayPark(mounts, kube.MountParkVector, false)) // a mount is out
	require.NoError(t, relayHeard(ctx, relayer, "lab", "Dome Simulator"))
	_, err = mover.SetDomeParked(ctx, "Dome Simulator", false)
	require.NoError(t, err)
	_, err = mover.SetDomeParked(ctx, "Dome Simulator", true)
	require.Error(t, err, "the dome refuses to park while a mount is out")

	// Every mount parks. indiserver is held while the relay is written, so that the move, if
	// it did not wait for relayHeard, would be read in the same turn as the relay: first.
	require.NoError(t, syscall.Kill(srv.Pid, syscall.SIGSTOP))
	go func() { time.Sleep(300 * time.Millisecond); syscall.Kill(srv.Pid, syscall.SIGCONT) }()
	require.NoError(t, relayer.RelayPark(mounts, kube.MountParkVector, true))
	require.NoError(t, relayHeard(ctx, relayer, "lab", "Dome Simulator"))
	_, err = mover.SetDomeParked(ctx, "Dome Simulator", true)
	assert.NoError(t, err, "the dome parks on the state relayed just before")
}
