// Package upgrade runs a mid-night upgrade as make run's stack runs the runner: the watcher and
// the dev-mode worker binaries of build a, a reservation Ready on a, then build b's worker
// started and b's watcher in place of a's, which makes b current. The night under way stays on
// a (Temporal pins it) and still parks the mount in a storm; the next night runs on b; the
// long-lived workflows move to b; and a's workers leave once Temporal says a has drained.
package upgrade

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	testenv.Run(m, testenv.Options{Kube: true, CRDs: true, Temporal: true, SearchAttributes: contract.SearchAttributes}, &env)
}

// site is one runner installation on the stack: its task queue (and so its Worker
// Deployment), the dev mode's folder of local indiservers, and the binaries.
type site struct {
	t                     *testing.T
	queue, indiDir        string
	workerBin, watcherBin string
	c                     client.Client
}

// start runs the worker or the watcher (bin) as build; each ignores the other's variables.
func (s *site) start(bin, build string) *testenv.Program {
	p := env.StartProgram(s.t, bin, "LIKEN_TASK_QUEUE="+s.queue, "LIKEN_BUILD_ID="+build,
		"LIKEN_DEV_LOCAL_INDI=true", "LIKEN_DEV_LOCAL_INDI_DIR="+s.indiDir, "LIKEN_WATCHER_SIDE=all", "LIKEN_LOG_LEVEL=warn")
	p.WaitReady()
	return p
}

func TestANightUnderWayEndsOnItsBuildWhileTheNextRunsOnTheNew(t *testing.T) {
	env.EnsureNamespace(t, "liken-system")
	s := &site{t: t, queue: "upgrade-" + utilrand.String(5), indiDir: t.TempDir(),
		workerBin: env.Build(t, "./cmd/worker"), watcherBin: env.Build(t, "./cmd/watcher"), c: env.Temporal(t)}
	workerA := s.start(s.workerBin, "a")
	watcherA := s.start(s.watcherBin, "a")
	ns := "upgrade-" + utilrand.String(5)
	env.EnsureNamespace(t, ns)
	env.ApplyObservatory(t, "examples/observatory.yaml", ns)
	parkInAStorm(t, ns)
	tonight := contract.ReservationID(ns, "tonight")
	awaitPhase(t, ns, "tonight", obsv1.ReservationReady)
	testenv.RequireRunsOn(t, s.c, tonight, enumspb.VERSIONING_BEHAVIOR_PINNED, "a")

	// The upgrade: b's worker beside a's, then b's watcher in place of a's.
	workerB := s.start(s.workerBin, "b")
	watcherA.Stop()
	s.start(s.watcherBin, "b")
	testenv.AwaitCurrentBuild(t, s.c, s.queue, "b", time.Minute)
	t.Logf("b is current; a's pid %d, b's %d", workerA.Cmd.Process.Pid, workerB.Cmd.Process.Pid)

	upgraded := time.Now()
	storm(t, s.indiDir, ns)
	testenv.RequireRunsOn(t, s.c, tonight, enumspb.VERSIONING_BEHAVIOR_PINNED, "a")
	pid := strconv.Itoa(workerA.Cmd.Process.Pid) + "@"
	testenv.RequireActivitiesSince(t, s.c, tonight, upgraded, func(id string) bool { return strings.HasPrefix(id, pid) })

	remove(t, ns, "tonight")
	env.CreateObservatoryYAML(t, ns, "kind: Reservation\nmetadata: {name: next}\nspec: {telescope: east, holder: ada}")
	awaitPhase(t, ns, "next", obsv1.ReservationReady)
	testenv.RequireRunsOn(t, s.c, contract.ReservationID(ns, "next"), enumspb.VERSIONING_BEHAVIOR_PINNED, "b")
	testenv.RequireRunsOn(t, s.c, contract.TelescopeLockID(ns, "east"), enumspb.VERSIONING_BEHAVIOR_AUTO_UPGRADE, "b")
	remove(t, ns, "next")

	// Nothing runs on a any more: Temporal says so, and its worker leaves.
	awaitDrained(t, s.c, s.queue, "a")
	workerA.Stop()
}

// parkInAStorm gives the example's mount a trigger that parks it when the weather is unsafe.
func parkInAStorm(t *testing.T, ns string) {
	unsafe := `{"kind":"WeatherStation","name":"lab","type":"Safe","status":"False"}`
	_, err := env.Dynamic.Resource(obsv1.KindMount.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "east",
		types.MergePatchType, []byte(`{"spec":{"triggers":[{"when":`+unsafe+`,"run":[{"state":"Parked"}]}]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
}

// storm blows wind on the site's weather simulator until the mount's storm trigger has parked
// it, then calms it again.
func storm(t *testing.T, indiDir, ns string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	recs, err := observatory.ReadLocalINDIRecords(indiDir)
	require.NoError(t, err)
	addr := ""
	for _, r := range recs {
		if r.Namespace == ns && r.Name == "lab-observatory" {
			addr = r.Address
		}
	}
	require.NotEmpty(t, addr, "the site's indiserver is recorded in %s: %+v", indiDir, recs)
	weather, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	defer weather.Close()
	wind := func(kph float64) {
		_, err := weather.SetNumber(ctx, "Weather Simulator", "WEATHER_CONTROL", map[string]float64{"Wind": kph}, 0)
		require.NoError(t, err)
		require.NoError(t, weather.Press(ctx, "Weather Simulator", "WEATHER_REFRESH", "REFRESH"))
	}
	wind(40)
	require.Eventually(t, func() bool {
		rec := kube.FindProcedureRecord(deviceStatus(t, ns, obsv1.KindMount, "east").Procedures, kube.TriggerRecord(0))
		return rec != nil && rec.State == obsv1.RunDone
	}, 2*time.Minute, 200*time.Millisecond, "the storm parked the mount during the upgrade")
	wind(0)
}

func deviceStatus(t *testing.T, ns string, kind obsv1.Kind, name string) obsv1.DeviceStatus {
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var st obsv1.DeviceStatus
	if m, ok := u.Object["status"].(map[string]any); ok {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st))
	}
	return st
}

// awaitPhase waits until the Reservation name is in phase.
func awaitPhase(t *testing.T, ns, name string, phase obsv1.ReservationPhase) {
	res := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
	testenv.Eventually(t, 3*time.Minute, "Reservation "+name+" became "+string(phase), func() (bool, string) {
		u, err := res.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		var r obsv1.Reservation
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r))
		return r.Status.Phase == phase, fmt.Sprintf("phase %s, step %s", r.Status.Phase, r.Status.Step)
	})
}

// remove deletes the Reservation and waits until it is gone: Released, its finalizer taken off.
func remove(t *testing.T, ns, name string) {
	res := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns)
	require.NoError(t, res.Delete(context.Background(), name, metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		_, err := res.Get(context.Background(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 3*time.Minute, 200*time.Millisecond, "Reservation %s was released and went", name)
}

// awaitDrained waits until Temporal says no pinned workflow is open on build.
func awaitDrained(t *testing.T, c client.Client, deployment, build string) {
	h := c.WorkerDeploymentClient().GetHandle(deployment)
	testenv.Eventually(t, 2*time.Minute, "build "+build+" drained", func() (bool, string) {
		v, err := h.DescribeVersion(context.Background(), client.WorkerDeploymentDescribeVersionOptions{BuildID: build})
		if err != nil || v.Info.DrainageInfo == nil {
			return false, fmt.Sprintf("no drainage yet (%v)", err)
		}
		d := v.Info.DrainageInfo.DrainageStatus
		return d == client.WorkerDeploymentVersionDrainageStatusDrained, fmt.Sprint(d)
	})
}
