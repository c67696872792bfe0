// The guard against Debian's real simulators: a site's indiserver (dome, weather station and
// the guard, which this test binary serves when indiserver runs it through a link) and one
// indiserver per telescope, as the pods would be, with nothing else running.
package guard_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
)

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == guard.Driver {
		if err := guard.Serve(context.Background()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const (
	dome    = "Dome Simulator"
	weather = "Weather Simulator"
	mount   = "Telescope Simulator"
)

// site is a running site: its own server's client and one client per telescope's server.
type site struct {
	site *indi.Client
	tels []*indi.Client
	cfg  guard.Config
}

// startSite starts a site of n telescopes with the locks set as the runner sets them, tells
// the guard the telescopes, opens the dome and unparks every mount.
func startSite(t *testing.T, ctx context.Context, n int, heartbeat time.Duration) *site {
	self, err := os.Executable()
	require.NoError(t, err)
	link := filepath.Join(t.TempDir(), guard.Driver)
	require.NoError(t, os.Symlink(self, link))

	s := &site{site: dial(t, ctx, inditest.Start(t, "indi_simulator_dome", "indi_simulator_weather", link))}
	s.cfg = guard.Config{HeartbeatTimeoutSeconds: heartbeat.Seconds(), BeatEverySeconds: 1}
	for i := range n {
		addr := inditest.Start(t, "indi_simulator_telescope")
		c := dial(t, ctx, addr)
		s.tels = append(s.tels, c)
		s.cfg.Telescopes = append(s.cfg.Telescopes, guard.Telescope{Name: string(rune('a' + i)), Address: addr, Mounts: []string{mount}})
		_, err := c.Connect(ctx, mount)
		require.NoError(t, err)
		_, err = c.SetDomePolicy(ctx, mount, true)
		require.NoError(t, err)
		_, err = c.SetActiveDevices(ctx, mount, map[string]string{indi.ActiveDome: dome})
		require.NoError(t, err)
	}
	for _, d := range []string{dome, weather} {
		_, err := s.site.Connect(ctx, d)
		require.NoError(t, err)
	}
	_, err = s.site.SetMountPolicy(ctx, dome, true)
	require.NoError(t, err)
	_, err = s.site.SetShutterParkPolicy(ctx, dome, true, true)
	require.NoError(t, err)
	_, err = s.site.SetActiveDevices(ctx, dome, map[string]string{indi.ActiveTelescope: guard.Device})
	require.NoError(t, err)
	_, err = s.site.SetText(ctx, guard.Device, guard.PropConfig, map[string]string{guard.ElemConfig: s.cfg.Encode()})
	require.NoError(t, err)

	_, err = s.site.SetDomeParked(ctx, dome, false)
	require.NoError(t, err)
	for _, c := range s.tels {
		// The guard relays the dome's unpark to the mount's lock within moments.
		require.Eventually(t, func() bool { _, err := c.SetMountParked(ctx, mount, false); return err == nil },
			20*time.Second, 200*time.Millisecond, "the mount unparks once the dome is open")
	}
	return s
}

func dial(t *testing.T, ctx context.Context, addr string) *indi.Client {
	c, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

func (s *site) watch(ctx context.Context) *inditest.Parks {
	return inditest.WatchParks(ctx, s.site, dome, s.tels, mount)
}

func (s *site) report(t *testing.T) guard.Report {
	p, ok := s.site.Property(guard.Device, guard.PropStatus)
	require.True(t, ok)
	text, _ := p.Text(guard.ElemReport)
	r, err := guard.DecodeReport(text)
	require.NoError(t, err)
	return r
}

func (s *site) beat(t *testing.T, telescope string) {
	p := prop.Property{Device: guard.Device, Name: guard.PropHeartbeat, Type: prop.Text, Elements: []prop.Element{
		{Name: guard.ElemTelescope, Value: telescope}, {Name: guard.ElemBeatState, Value: guard.BeatState}}}
	require.NoError(t, s.site.Send(context.Background(), p))
}

func TestWindParksEveryMountThenTheDome(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSite(t, ctx, 2, 0)
	// No runner beats here: once its config is three beats old, it is away.
	require.Eventually(t, func() bool { return s.report(t).RunnerAway }, 10*time.Second, 100*time.Millisecond)
	w := s.watch(ctx)

	_, err := s.site.SetNumber(ctx, weather, "WEATHER_CONTROL", map[string]float64{"Wind": 40}, 0)
	require.NoError(t, err)
	require.NoError(t, s.site.Press(ctx, weather, "WEATHER_REFRESH", "REFRESH"))
	_, err = s.site.Wait(ctx, weather, guard.WeatherProp, func(p prop.Property) bool { return p.State == prop.Alert })
	require.NoError(t, err)
	alert := time.Now()

	mounts, closed := w.ParkedThenClosed(t, alert, 90*time.Second)
	t.Logf("from the Alert: every mount parked in %.1f s, the dome closed in %.1f s", mounts, closed)
	require.Eventually(t, func() bool { r := s.report(t); return len(r.Trips) == 1 && r.Trips[0].Finished }, 10*time.Second, 100*time.Millisecond)
	trip := s.report(t).Trips[0]
	assert.Equal(t, guard.CauseWeather, trip.Kind)
	assert.Equal(t, "Weather Simulator reports Alert", trip.Reason)
	assert.True(t, trip.RunnerAway, "no word came from a runner: it was away")
	assert.Len(t, trip.Parked, 2)
	assert.Len(t, trip.Closed, 1)
	assert.Empty(t, trip.Failed)
}

func TestTheLocksHoldAcrossServers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSite(t, ctx, 2, 0)
	_, err := s.tels[0].SetMountParked(ctx, mount, true)
	require.NoError(t, err)

	// The second telescope's mount is still unparked: the dome's own lock refuses.
	_, err = s.site.SetDomeParked(ctx, dome, true)
	var alert *indi.AlertError
	require.True(t, errors.As(err, &alert), "the dome refused to park: %v", err)
	assert.Contains(t, alert.Message, "mount is locking")

	_, err = s.tels[1].SetMountParked(ctx, mount, true)
	require.NoError(t, err)
	require.Eventually(t, func() bool { _, err := s.site.SetDomeParked(ctx, dome, true); return err == nil },
		20*time.Second, 200*time.Millisecond, "the dome parks once every mount is parked")

	// The dome is parked: the guard tells the mounts, whose own lock refuses to unpark.
	require.Eventually(t, func() bool {
		_, err := s.tels[0].SetMountParked(ctx, mount, false)
		return errors.As(err, &alert)
	}, 20*time.Second, 200*time.Millisecond, "the mount refuses to unpark under a parked dome")
	assert.Contains(t, alert.Message, "dome is locking")
}

func TestAStoppedHeartbeatParksTheSite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const timeout = 3 * time.Second
	s := startSite(t, ctx, 1, timeout)

	// A runner that beats every second, for longer than the timeout: nothing happens.
	for range 6 {
		s.beat(t, "a")
		time.Sleep(time.Second)
	}
	assert.Empty(t, s.report(t).Trips, "the guard did nothing while the heartbeat went on")

	w := s.watch(ctx)
	s.beat(t, "a")
	last := time.Now()
	mounts, closed := w.ParkedThenClosed(t, last, timeout+30*time.Second)
	t.Logf("from the last heartbeat (timeout %s): the mount parked in %.1f s, the dome closed in %.1f s", timeout, mounts, closed)
	require.Eventually(t, func() bool { r := s.report(t); return len(r.Trips) == 1 && r.Trips[0].Finished }, 10*time.Second, 100*time.Millisecond)
	trip := s.report(t).Trips[0]
	assert.Equal(t, guard.CauseHeartbeat, trip.Kind)
	assert.Contains(t, trip.Reason, "Telescope a")
	assert.True(t, trip.RunnerAway)
}
