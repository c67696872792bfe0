// The guard against Debian's real simulators: a site's indiserver (dome, weather station and
// the guard, which this test binary serves when indiserver runs it through a link) and one
// indiserver per telescope, as the pods would be, with nothing else running. Each test's guard
// keeps its state beside its link, as a pod's keeps it on its own volume.
package guard_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/indiserver"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/sky/skytest"
)

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == guard.Driver {
		os.Setenv(guard.StateEnv, filepath.Join(filepath.Dir(os.Args[0]), "site-guard.state"))
		os.Setenv(guard.ArmedEnv, filepath.Join(filepath.Dir(os.Args[0]), "site-guard.armed"))
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
	site    *indi.Client
	tels    []*indi.Client
	servers []*indiserver.Server // the telescopes'
	cfg     guard.Config
	link    string // the guard's program, as its indiserver runs it
	beats   *beats
}

// startSite starts a site of n telescopes with the locks set as the runner sets them, tells
// the guard the telescopes (and what shape adds to its config), opens the dome and unparks
// every mount. With a heartbeat timeout,
// a runner beats for every telescope from the config on, until s.beats.stop.
func startSite(t *testing.T, ctx context.Context, n int, heartbeat time.Duration, shape ...func(*guard.Config)) *site {
	self, err := os.Executable()
	require.NoError(t, err)
	link := filepath.Join(t.TempDir(), guard.Driver)
	require.NoError(t, os.Symlink(self, link))

	s := &site{site: dial(t, ctx, inditest.Start(t, "indi_simulator_dome", "indi_simulator_weather", link)), link: link}
	s.cfg = guard.Config{HeartbeatTimeoutSeconds: heartbeat.Seconds(), BeatEverySeconds: 1}
	for _, f := range shape {
		f(&s.cfg)
	}
	for i := range n {
		srv := inditest.StartServer(t, "indi_simulator_telescope")
		c := dial(t, ctx, srv.Addr)
		s.servers = append(s.servers, srv)
		s.tels = append(s.tels, c)
		s.cfg.Telescopes = append(s.cfg.Telescopes, guard.Telescope{Name: string(rune('a' + i)), Address: srv.Addr, Mounts: []string{mount}})
		lockToTheDome(t, ctx, c)
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
	s.arm(t, ctx)
	if heartbeat > 0 {
		s.beats = s.beat(t, ctx)
	}

	_, err = s.site.SetDomeParked(ctx, dome, false)
	require.NoError(t, err)
	for _, c := range s.tels {
		// The guard relays the dome's unpark to the mount's lock within moments.
		require.Eventually(t, func() bool { _, err := c.SetMountParked(ctx, mount, false); return err == nil },
			20*time.Second, 200*time.Millisecond, "the mount unparks once the dome is open")
	}
	return s
}

// lockToTheDome connects a telescope's mount and makes it heed the site's dome.
func lockToTheDome(t *testing.T, ctx context.Context, c *indi.Client) {
	_, err := c.Connect(ctx, mount)
	require.NoError(t, err)
	_, err = c.SetDomePolicy(ctx, mount, true)
	require.NoError(t, err)
	_, err = c.SetActiveDevices(ctx, mount, map[string]string{indi.ActiveDome: dome})
	require.NoError(t, err)
}

// arm tells the guard the site's config, as the runner does.
func (s *site) arm(t *testing.T, ctx context.Context) {
	_, err := s.site.SetText(ctx, guard.Device, guard.PropConfig, map[string]string{guard.ElemConfig: s.cfg.Encode()})
	require.NoError(t, err)
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

// report is the guard's report as the site's server last sent it; empty while the guard
// defines none (it is restarting).
func (s *site) report(t *testing.T) guard.Report {
	p, ok := s.site.Property(guard.Device, guard.PropStatus)
	if !ok {
		return guard.Report{}
	}
	text, _ := p.Text(guard.ElemReport)
	r, err := guard.DecodeReport(text)
	assert.NoError(t, err)
	return r
}

// beats is a runner's heartbeat for every telescope of the site, once a second.
type beats struct {
	cancel context.CancelFunc
	done   chan struct{}
	last   time.Time
}

func (s *site) beat(t *testing.T, ctx context.Context) *beats {
	ctx, cancel := context.WithCancel(ctx)
	b := &beats{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for ctx.Err() == nil {
			for _, tel := range s.cfg.Telescopes {
				p := prop.Property{Device: guard.Device, Name: guard.PropHeartbeat, Type: prop.Text, Elements: []prop.Element{
					{Name: guard.ElemTelescope, Value: tel.Name}, {Name: guard.ElemBeatState, Value: guard.BeatState}}}
				if s.site.Send(ctx, p) == nil {
					b.last = time.Now()
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}()
	t.Cleanup(func() { b.stop() })
	return b
}

// stop ends the beats and returns when the last was sent.
func (b *beats) stop() time.Time {
	b.cancel()
	<-b.done
	return b.last
}

// storm turns the weather station to Alert and returns when it reports it.
func (s *site) storm(t *testing.T, ctx context.Context) time.Time {
	_, err := s.site.SetNumber(ctx, weather, "WEATHER_CONTROL", map[string]float64{"Wind": 40}, 0)
	require.NoError(t, err)
	require.NoError(t, s.site.Press(ctx, weather, "WEATHER_REFRESH", "REFRESH"))
	_, err = s.site.Wait(ctx, weather, guard.WeatherProp, func(p prop.Property) bool { return p.State == prop.Alert })
	require.NoError(t, err)
	return time.Now()
}

// lastTrip waits until the guard's last trip has ended and returns it.
func (s *site) lastTrip(t *testing.T, trips int) guard.Trip {
	var r guard.Report
	require.Eventually(t, func() bool { r = s.report(t); return len(r.Trips) == trips && r.Trips[trips-1].Finished },
		60*time.Second, 100*time.Millisecond, "the guard's trip %d ends: %+v", trips, r.Trips)
	return r.Trips[trips-1]
}

func TestWindParksEveryMountThenTheDome(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSite(t, ctx, 2, 0)
	// No runner beats here: once its config is three beats old, it is away.
	require.Eventually(t, func() bool { return s.report(t).RunnerAway }, 10*time.Second, 100*time.Millisecond)
	w := s.watch(ctx)

	alert := s.storm(t, ctx)
	mounts, closed := w.ParkedThenClosed(t, alert, 90*time.Second)
	t.Logf("from the Alert: every mount parked in %.1f s, the dome closed in %.1f s", mounts, closed)
	trip := s.lastTrip(t, 1)
	assert.Equal(t, guard.CauseWeather, trip.Kind)
	assert.Equal(t, "Weather Simulator reports Alert", trip.Reason)
	assert.True(t, trip.RunnerAway, "no word came from a runner: it was away")
	assert.Len(t, trip.Parked, 2)
	assert.Len(t, trip.Closed, 1)
	assert.Empty(t, trip.Failed)
}

func TestTheLocksHoldAcrossServers(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const timeout = 3 * time.Second
	s := startSite(t, ctx, 1, timeout)

	// A runner that beats every second, for longer than the timeout: nothing happens.
	time.Sleep(2 * timeout)
	assert.Empty(t, s.report(t).Trips, "the guard did nothing while the heartbeat went on")

	w := s.watch(ctx)
	last := s.beats.stop()
	mounts, closed := w.ParkedThenClosed(t, last, timeout+30*time.Second)
	t.Logf("from the last heartbeat (timeout %s): the mount parked in %.1f s, the dome closed in %.1f s", timeout, mounts, closed)
	trip := s.lastTrip(t, 1)
	assert.Equal(t, guard.CauseHeartbeat, trip.Kind)
	assert.Contains(t, trip.Reason, "Telescope a")
	assert.True(t, trip.RunnerAway)
}

func TestARunnerLostBeforeItsFirstBeatParksTheSite(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSite(t, ctx, 1, 0)
	w := s.watch(ctx)

	// The runner arms the guard as it starts the devices, and is lost before it ever beats.
	const timeout = 3 * time.Second
	s.cfg.HeartbeatTimeoutSeconds = timeout.Seconds()
	s.arm(t, ctx)
	armed := time.Now()
	mounts, closed := w.ParkedThenClosed(t, armed, timeout+30*time.Second)
	t.Logf("from the config (timeout %s): the mount parked in %.1f s, the dome closed in %.1f s", timeout, mounts, closed)
	assert.Equal(t, guard.CauseHeartbeat, s.lastTrip(t, 1).Kind)
}

func TestAGuardThatRestartsKeepsWhatItWasArmedWith(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSite(t, ctx, 2, 0)
	require.Eventually(t, func() bool { return s.report(t).Sees(s.cfg) }, 20*time.Second, 100*time.Millisecond)

	// Killed as an OOM kill would; its indiserver starts it again, with no runner to arm it.
	inditest.KillProcess(t, inditest.Runs(s.link))
	require.Eventually(t, func() bool { r := s.report(t); return r.ConfigVersion == 0 && len(r.Mounts) == 2 && r.Sees(s.cfg) },
		30*time.Second, 100*time.Millisecond, "a new guard reaches the mounts it was armed with")

	w := s.watch(ctx)
	alert := s.storm(t, ctx)
	mounts, closed := w.ParkedThenClosed(t, alert, 60*time.Second)
	t.Logf("from the Alert, after the guard's restart: every mount parked in %.1f s, the dome closed in %.1f s", mounts, closed)
	trip := s.lastTrip(t, 1)
	assert.Len(t, trip.Parked, 2)
	assert.Empty(t, trip.Failed)
}

// A guard in a new pod (the one before it evicted or deleted, its volume gone with it) arms the
// site as the runner last did, from the pod template's config, and with the runner away parks
// the site once the timeout has passed.
func TestAGuardInANewPodArmsTheSiteAsTheRunnerLastDid(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSite(t, ctx, 1, 0)
	const timeout = 3 * time.Second
	last := s.cfg
	last.HeartbeatTimeoutSeconds = timeout.Seconds()
	dir := filepath.Dir(s.link)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "site-guard.armed"), []byte(last.Encode()), 0o644))

	// The new pod: no state of its own, and a guard started by its indiserver.
	require.NoError(t, os.Remove(filepath.Join(dir, "site-guard.state")))
	inditest.KillProcess(t, inditest.Runs(s.link))
	started := time.Now()
	w := s.watch(ctx)
	require.Eventually(t, func() bool { r := s.report(t); return r.ConfigVersion == 1 && r.Sees(last) && r.RunnerAway },
		30*time.Second, 100*time.Millisecond, "the new guard reaches the mounts the runner last armed it with, and has not heard the runner")
	mounts, closed := w.ParkedThenClosed(t, started, timeout+30*time.Second)
	t.Logf("from the new guard's start (timeout %s): the mount parked in %.1f s, the dome closed in %.1f s", timeout, mounts, closed)
	assert.Equal(t, guard.CauseHeartbeat, s.lastTrip(t, 1).Kind)
}

// The site's drivers start again disconnected when its server does (a device pod's socat runs a
// driver per connection). While the runner beats, the guard leaves them as they are; once it is
// away, the guard connects them, so it reads the weather and can close the dome.
func TestWithTheRunnerAwayTheGuardConnectsTheSitesDevices(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSite(t, ctx, 1, time.Minute)
	for _, d := range []string{weather, dome} {
		_, err := s.site.Disconnect(ctx, d)
		require.NoError(t, err)
	}
	connected := func(d string) bool { p, ok := s.site.Property(d, "CONNECTION"); return ok && p.SwitchOn("CONNECT") }
	time.Sleep(5 * time.Second) // five beats
	assert.False(t, connected(weather), "with the runner there, the guard leaves a device it disconnected alone")

	gone := s.beats.stop()
	require.Eventually(t, func() bool { return connected(weather) && connected(dome) }, 30*time.Second, 100*time.Millisecond,
		"with the runner away, the guard connects the site's devices")
	t.Logf("connected %.1f s after the runner's last beat", time.Since(gone).Seconds())
	_, err := s.site.Wait(ctx, weather, guard.WeatherProp, func(prop.Property) bool { return true })
	require.NoError(t, err, "the station reports the weather again")
}

func TestAFailedParkIsRetriedAndALateCauseJoinsTheTrip(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const timeout = 3 * time.Second
	s := startSite(t, ctx, 1, timeout)
	require.Eventually(t, func() bool { return s.report(t).Sees(s.cfg) }, 20*time.Second, 100*time.Millisecond)

	// The telescope's server is down when the storm comes: its mount cannot be parked, so the
	// dome stays open over it, and the guard says what fails.
	addr := s.servers[0].Addr
	s.servers[0].Stop()
	s.storm(t, ctx)
	var r guard.Report
	require.Eventually(t, func() bool {
		r = s.report(t)
		return len(r.Trips) == 1 && strings.Contains(r.Trips[0].Failing, "Telescope Simulator of Telescope a does not answer")
	}, 20*time.Second, 100*time.Millisecond, "the trip names the silent mount: %+v", r.Trips)
	assert.False(t, r.Trips[0].Finished, "the guard keeps trying while the storm holds")

	// Then the runner goes too: its cause joins the trip under way.
	s.beats.stop()
	require.Eventually(t, func() bool { r = s.report(t); return len(r.Trips) == 1 && len(r.Trips[0].Causes) == 2 },
		timeout+10*time.Second, 100*time.Millisecond, "the stopped heartbeat joins the trip: %+v", r.Trips)

	// The server comes back at its address, its mount connected as a power cut leaves it: the
	// guard parks it, then closes the dome.
	port, err := strconv.Atoi(addr[strings.LastIndex(addr, ":")+1:])
	require.NoError(t, err)
	srv, err := indiserver.LaunchWith(ctx, t.TempDir(), indiserver.Options{Port: port}, "indi_simulator_telescope")
	require.NoError(t, err)
	t.Cleanup(srv.Stop)
	require.Equal(t, addr, srv.Addr)
	c := dial(t, ctx, addr)
	lockToTheDome(t, ctx, c)
	w := inditest.WatchParks(ctx, s.site, dome, []*indi.Client{c}, mount)
	back := time.Now()
	mounts, closed := w.ParkedThenClosed(t, back, 60*time.Second)
	t.Logf("from the server's return: the mount parked in %.1f s, the dome closed in %.1f s", mounts, closed)
	trip := s.lastTrip(t, 1)
	assert.Empty(t, trip.Failed)
	assert.Len(t, trip.Closed, 1)
	assert.Equal(t, []string{"Weather Simulator reports Alert", "no heartbeat from the runner for Telescope a in 3s"}, trip.Causes)
	assert.True(t, trip.RunnerAway, "a stopped heartbeat is the runner away")
}

func TestAMountUnparkedUnderTheStormIsParkedAgain(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startSite(t, ctx, 1, 0)
	alert := s.storm(t, ctx)
	s.watch(ctx).ParkedThenClosed(t, alert, 60*time.Second)
	s.lastTrip(t, 1)

	// Someone takes the mount off the dome's lock and unparks it while the Alert holds.
	_, err := s.tels[0].SetDomePolicy(ctx, mount, false)
	require.NoError(t, err)
	_, err = s.tels[0].SetMountParked(ctx, mount, false)
	require.NoError(t, err)
	trip := s.lastTrip(t, 2)
	assert.Equal(t, "Weather Simulator reports Alert", trip.Reason)
	assert.Equal(t, []string{mount}, []string{trip.Parked[0].Device}, "the guard parked it again")
	p, ok := s.tels[0].Property(mount, guard.MountParkProp)
	require.True(t, ok)
	assert.True(t, p.SwitchOn("PARK"))
}

// TestDawnParksEveryMountThenTheDomeAndKeepsThemSo places the site on the equator where the
// Sun passes the limit half a minute after the test starts: with no runner, the guard parks
// every mount, then closes the dome, and parks again a mount unparked while the Sun is up.
func TestDawnParksEveryMountThenTheDomeAndKeepsThemSo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The site opens first, and only then learns where it stands: dawn comes a fixed time after
	// the arming, however long a busy machine took to open the site.
	s := startSite(t, ctx, 1, 0)
	limit := -6.0
	dawn := time.Now().Add(30 * time.Second)
	lon, err := skytest.Longitude(limit, dawn, true)
	require.NoError(t, err)
	s.cfg.Latitude, s.cfg.Longitude, s.cfg.SunAltitudeLimit = 0, lon, &limit
	s.arm(t, ctx)
	require.Eventually(t, func() bool { return strings.Contains(s.report(t).ArmedMessage, "the Sun watch") },
		20*time.Second, 100*time.Millisecond, "the guard took the Sun's limit")
	require.Empty(t, s.report(t).Trips, "the guard parked the site before dawn")
	w := s.watch(ctx)
	mounts, closed := w.ParkedThenClosed(t, dawn, 90*time.Second)
	t.Logf("from the Sun passing %g°: the mount parked in %.1f s, the dome closed in %.1f s", limit, mounts, closed)
	trip := s.lastTrip(t, 1)
	assert.Equal(t, guard.CauseSun, trip.Kind)
	assert.Equal(t, "the Sun is above the site's limit of -6°", trip.Reason)

	_, err = s.tels[0].SetDomePolicy(ctx, mount, false)
	require.NoError(t, err)
	_, err = s.tels[0].SetMountParked(ctx, mount, false)
	require.NoError(t, err)
	trip = s.lastTrip(t, 2)
	assert.Equal(t, guard.CauseSun, trip.Kind, "the Sun is still up: the guard parked it again")

	require.NoError(t, s.site.Press(ctx, dome, guard.DomeParkProp, "UNPARK"))
	trip = s.lastTrip(t, 3)
	assert.Equal(t, guard.CauseSun, trip.Kind, "the Sun is still up: the guard closed the dome again")
	require.Len(t, trip.Closed, 1)
	assert.Equal(t, dome, trip.Closed[0].Device)
}
