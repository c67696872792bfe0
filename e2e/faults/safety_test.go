// Safety with the runner gone: a site of two telescopes, both reserved and Ready, then every
// worker and the watcher SIGKILLed, Temporal and the API server stopped, with the dev mode's
// indiservers left running as pods would be. The site guard on the site's server parks both
// mounts, then closes the dome, on the weather station's Alert, once the runner's heartbeat
// has stopped, or at dawn (and keeps it closed while the Sun is up), read through INDI from
// outside the runner; a guard killed meanwhile and started again by its indiserver resumes
// what the runner armed it with. When the runner comes back, the Observatory, the Dome and
// the Mounts say what the guard did, and the reservations end as usual.
package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

// west is a second telescope of the example's site, with a mount of its own and a
// reservation for it.
const west = `
kind: Telescope
metadata: {name: west}
spec: {observatory: lab}
---
kind: Mount
metadata: {name: west}
spec:
  telescope: west
  driver: {name: indi_simulator_telescope}
  deactivation: [{state: Parked}]
---
kind: Reservation
metadata: {name: west}
spec: {telescope: west, holder: grace}
`

func TestWindParksBothMountsThenTheDomeWithTheRunnerGone(t *testing.T) {
	ctx := timeout(t, 12*time.Minute)
	r := startGuardedSite(t, ctx, "", "tonight", "west")
	r.runnerGoes(t, ctx)

	// The runner is away: no heartbeat for three beats.
	require.Eventually(t, func() bool { return r.report(t).RunnerAway }, time.Minute, 200*time.Millisecond, "the guard sees the runner away")
	// The guard is killed as an OOM kill would; its indiserver starts it again, with no runner
	// to arm it.
	r.killGuard(t)
	require.Eventually(t, func() bool { rep := r.report(t); return rep.ConfigVersion == 0 && len(rep.Mounts) == 2 && rep.Armed },
		time.Minute, 200*time.Millisecond, "a guard started again resumes both mounts it was armed with")
	w := r.watch(ctx)
	_, err := r.site.SetNumber(ctx, "Weather Simulator", "WEATHER_CONTROL", map[string]float64{"Wind": 40}, 0)
	require.NoError(t, err)
	require.NoError(t, r.site.Press(ctx, "Weather Simulator", "WEATHER_REFRESH", "REFRESH"))
	_, err = r.site.Wait(ctx, "Weather Simulator", guard.WeatherProp, func(p prop.Property) bool { return p.State == prop.Alert })
	require.NoError(t, err)
	alert := time.Now()
	mounts, closed := w.ParkedThenClosed(t, alert, 60*time.Second)
	t.Logf("runner gone and the guard restarted, from the Alert: both mounts parked in %.1f s, the dome closed in %.1f s", mounts, closed)

	r.runnerComesBack(t, ctx)
	r.reported(t, ctx, kube.ReasonWeather, "because Weather Simulator reports Alert, while the runner was away")
	r.released(t, ctx)
}

func TestAStoppedHeartbeatParksTheSiteWithinItsTimeout(t *testing.T) {
	ctx := timeout(t, 12*time.Minute)
	const heartbeat = 20 * time.Second
	r := startGuardedSite(t, ctx, heartbeat.String(), "tonight")
	t.Cleanup(func() {
		if t.Failed() {
			p, _ := r.site.Property(guard.Device, guard.PropStatus)
			text, _ := p.Text(guard.ElemReport)
			t.Logf("the site guard's report: %s", text)
		}
	})
	w := r.watch(ctx)
	gone := time.Now()
	r.runnerGoes(t, ctx)
	mounts, closed := w.ParkedThenClosed(t, gone, heartbeat+30*time.Second)
	t.Logf("heartbeat timeout %s, from the runner's kill: the mount parked in %.1f s, the dome closed in %.1f s", heartbeat, mounts, closed)

	r.runnerComesBack(t, ctx)
	r.reported(t, ctx, kube.ReasonHeartbeat, "because no heartbeat from the runner for Telescope east in 20s")
	r.released(t, ctx)
}

func TestTheSunParksTheSiteWithTheRunnerGoneAndNothingOpensItWhileItIsUp(t *testing.T) {
	ctx := timeout(t, 12*time.Minute)
	r := startGuardedSite(t, ctx, "", "tonight")
	dawn := r.dawnIn(t, ctx, 40*time.Second)
	r.runnerGoes(t, ctx)
	w := r.watch(ctx)
	mounts, closed := w.ParkedThenClosed(t, dawn, time.Until(dawn)+time.Minute)
	t.Logf("runner gone, from the Sun passing -6°: the mount parked in %.1f s, the dome closed in %.1f s", mounts, closed)

	// A client opens the dome while the Sun is up: the guard closes it again, in a new trip.
	trips := len(r.finishedTrips(t, 0))
	require.NoError(t, r.site.Press(ctx, "Dome Simulator", guard.DomeParkProp, "UNPARK"))
	again := r.finishedTrips(t, trips)
	last := again[len(again)-1]
	assert.Equal(t, guard.CauseSun, last.Kind)
	assert.Len(t, last.Closed, 1, "the guard closed the dome: %+v", last)

	r.runnerComesBack(t, ctx)
	r.reported(t, ctx, kube.ReasonSunUp, "because the Sun is above the site's limit of -6°, while the runner was away")
	r.released(t, ctx)
}

// dawnIn stages a dawn after lead (testenv.StageDawn) and returns it.
func (r *guardedSite) dawnIn(t *testing.T, ctx context.Context, lead time.Duration) time.Time {
	dawn := testenv.StageDawn(t, ctx, env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(r.ns), "lab", r.site, lead)
	require.Empty(t, r.report(t).Trips, "the site guard parked before dawn")
	return dawn
}

// finishedTrips are the guard's trips once there are more than before and the last has ended.
func (r *guardedSite) finishedTrips(t *testing.T, before int) []guard.Trip {
	var trips []guard.Trip
	require.Eventually(t, func() bool {
		trips = r.report(t).Trips
		return len(trips) > before && trips[len(trips)-1].Finished
	}, time.Minute, 200*time.Millisecond, "the site guard parks the site again, and its trip ends")
	return trips
}

// guardedSite is the example's site run by one watcher and one dev-mode worker, whose local
// indiservers are recorded in dir and outlive the worker, and INDI clients of its servers.
type guardedSite struct {
	s            *system
	ns, dir      string
	reservations []string
	runner       runner
	site         *indi.Client
	tels         []*indi.Client // east's, then west's when it runs
	restart      []func(context.Context)
}

// runner is the watcher and the worker that run now.
type runner struct{ watcher, worker interface{ Kill() } }

func startGuardedSite(t *testing.T, ctx context.Context, heartbeat string, reservations ...string) *guardedSite {
	r := &guardedSite{s: newSystem(t), ns: "safety-" + utilrand.String(6), dir: t.TempDir(), reservations: reservations}
	// Whatever happens, no indiserver outlives the test.
	t.Cleanup(func() { (&observatory.LocalINDI{Dir: r.dir}).Close() })
	_, err := env.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	env.ApplyObservatory(t, "examples/observatory.yaml", r.ns)
	if heartbeat != "" {
		_, err := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(r.ns).Patch(ctx, "lab", types.MergePatchType,
			[]byte(`{"spec":{"safety":{"heartbeatTimeout":"`+heartbeat+`"}}}`), metav1.PatchOptions{})
		require.NoError(t, err)
	}
	if len(reservations) > 1 {
		env.CreateObservatoryYAML(t, r.ns, west)
	}
	r.start(t)
	for _, name := range reservations {
		awaitPhase(t, ctx, r.ns, name, obsv1.ReservationReady, 4*time.Minute)
	}
	r.site = r.dial(t, ctx, "lab-observatory", guard.Device, "Dome Simulator", "Weather Simulator")
	for _, tel := range []string{"east", "west"}[:len(reservations)] {
		r.tels = append(r.tels, r.dial(t, ctx, tel+"-telescope", "Telescope Simulator"))
	}
	require.Eventually(t, func() bool {
		rep := r.report(t)
		return rep.Armed && len(rep.Heartbeats) == len(reservations)
	}, time.Minute, 200*time.Millisecond, "the guard is armed and watches every Ready reservation's heartbeat")
	// As Activation left them: the dome open, the mounts unparked (the simulator starts so).
	for _, c := range r.tels {
		p, _ := c.Property("Telescope Simulator", guard.MountParkProp)
		require.True(t, p.SwitchOn("UNPARK"), "the mount is unparked: %s", p.Summary())
	}
	p, _ := r.site.Property("Dome Simulator", guard.DomeParkProp)
	require.True(t, p.SwitchOn("UNPARK"), "the dome is open: %s", p.Summary())
	return r
}

func (r *guardedSite) start(t *testing.T) {
	watcher := r.s.startWatcher("observatory")
	watcher.WaitReady()
	worker := r.s.startWorker("LIKEN_DEV_LOCAL_INDI=true", "LIKEN_DEV_LOCAL_INDI_DIR="+r.dir)
	r.runner = runner{watcher: watcher, worker: worker}
}

// dial reaches one of the local indiservers as their records name it, as any INDI client,
// once it has the definitions of devices.
func (r *guardedSite) dial(t *testing.T, ctx context.Context, server string, devices ...string) *indi.Client {
	recs, err := observatory.ReadLocalINDIRecords(r.dir)
	require.NoError(t, err)
	for _, rec := range recs {
		if rec.Name == server {
			c, err := indi.Dial(ctx, rec.Address)
			require.NoError(t, err)
			t.Cleanup(func() { c.Close() })
			for _, d := range devices {
				require.NoError(t, c.Sync(ctx, d))
			}
			return c
		}
	}
	t.Fatalf("no local indiserver %s in %s", server, r.dir)
	return nil
}

// runnerGoes kills the worker and the watcher and stops Temporal and the API server.
func (r *guardedSite) runnerGoes(t *testing.T, ctx context.Context) {
	r.runner.worker.Kill()
	r.runner.watcher.Kill()
	r.restart = append(r.restart, stopProcess(t, "temporal"), stopProcess(t, "kube-apiserver"))
}

// runnerComesBack starts the API server and Temporal again, then a new watcher and worker
// (which adopt the indiservers).
func (r *guardedSite) runnerComesBack(t *testing.T, ctx context.Context) {
	for i := len(r.restart) - 1; i >= 0; i-- {
		r.restart[i](ctx)
	}
	r.start(t)
}

// killGuard SIGKILLs the site guard's process: the driver that the site's indiserver runs
// through the link in its HOME.
func (r *guardedSite) killGuard(t *testing.T) {
	recs, err := observatory.ReadLocalINDIRecords(r.dir)
	require.NoError(t, err)
	for _, rec := range recs {
		if rec.Name == "lab-observatory" {
			inditest.KillProcess(t, inditest.Runs(filepath.Join(rec.Home, guard.Driver)))
			return
		}
	}
	t.Fatalf("no local indiserver lab-observatory in %s", r.dir)
}

// report is the guard's report; empty while its server defines none (the guard restarts).
func (r *guardedSite) report(t *testing.T) guard.Report {
	p, ok := r.site.Property(guard.Device, guard.PropStatus)
	if !ok {
		return guard.Report{}
	}
	text, _ := p.Text(guard.ElemReport)
	rep, err := guard.DecodeReport(text)
	require.NoError(t, err)
	return rep
}

// reported checks what the runner says once it is back: ParkedBySafety on the Observatory,
// the Dome and each Mount, a Warning Event on each for every trip of the guard that touched it
// (on the Observatory, every trip), and the guard's words in each reservation's history.
func (r *guardedSite) reported(t *testing.T, ctx context.Context, reason, words string) {
	mounts := []string{"east", "west"}[:len(r.reservations)]
	objects := append([][2]string{{string(obsv1.KindObservatory), "lab"}, {string(obsv1.KindDome), "lab"}},
		func() (out [][2]string) {
			for _, m := range mounts {
				out = append(out, [2]string{string(obsv1.KindMount), m})
			}
			return out
		}()...)
	for _, o := range objects {
		eventually(t, 3*time.Minute, o[0]+" "+o[1]+" says the site guard parked it", func() (bool, string) {
			c := conditionOf(t, ctx, r.ns, obsv1.Kind(o[0]), o[1], obsv1.ConditionParkedBySafety)
			return c != nil && c.Reason == reason && strings.Contains(c.Message, words), fmt.Sprintf("%+v", c)
		})
	}
	want := map[string]int32{}
	for _, trip := range r.report(t).Trips {
		if !trip.RunnerAway {
			continue // the triggers' own Events tell those
		}
		want["Observatory/lab"]++
		for _, p := range trip.Parked {
			want["Mount/"+p.Telescope]++ // each telescope's mount has its name
		}
		for range trip.Closed {
			want["Dome/lab"]++
		}
	}
	eventually(t, time.Minute, "a ParkedBySafety Warning Event on each object for each of the guard's trips that touched it", func() (bool, string) {
		events, err := env.Kube.CoreV1().Events(r.ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + kube.ReasonSafetyPark})
		require.NoError(t, err)
		got := map[string]int32{}
		for _, e := range events.Items {
			assert.Equal(t, corev1.EventTypeWarning, e.Type)
			got[e.InvolvedObject.Kind+"/"+e.InvolvedObject.Name] += max(e.Count, 1)
		}
		return maps.Equal(got, want), fmt.Sprintf("got %v, want %v", got, want)
	})
	c := temporal(t)
	for _, name := range r.reservations {
		id := contract.ReservationID(r.ns, name)
		eventually(t, time.Minute, "the history of "+name+" keeps the guard's words", func() (bool, string) {
			it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					return false, err.Error()
				}
				if s := ev.GetWorkflowExecutionSignaledEventAttributes(); s != nil && strings.Contains(s.GetInput().String(), "The site guard") {
					return true, ""
				}
			}
			return false, "no signal says what the guard did"
		})
	}
}

// released ends the reservations; they are Released as usual.
func (r *guardedSite) released(t *testing.T, ctx context.Context) {
	end := time.Now().Add(time.Second).UTC().Format(time.RFC3339)
	for _, name := range r.reservations {
		_, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(r.ns).Patch(ctx, name,
			types.MergePatchType, []byte(`{"spec":{"end":"`+end+`"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
	}
	for _, name := range r.reservations {
		awaitPhase(t, ctx, r.ns, name, obsv1.ReservationReleased, 4*time.Minute)
	}
}

func conditionOf(t *testing.T, ctx context.Context, ns string, kind obsv1.Kind, name, typ string) *obsv1.Condition {
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	var st struct {
		Status struct{ Conditions []obsv1.Condition } `json:"status"`
	}
	b, _ := u.MarshalJSON()
	require.NoError(t, json.Unmarshal(b, &st))
	for _, c := range st.Status.Conditions {
		if c.Type == typ {
			return &c
		}
	}
	return nil
}

func (r *guardedSite) watch(ctx context.Context) *inditest.Parks {
	return inditest.WatchParks(ctx, r.site, "Dome Simulator", r.tels, "Telescope Simulator")
}
