// A driver restarted by indiserver during a Ready reservation is connected and configured
// again, while a device a person disconnected stays disconnected.
package reservation

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/indi"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TestARestartedDriverIsConnectedAgainAndADeviceAPersonDisconnectedStaysSo kills the camera's
// driver during a Ready reservation; indiserver starts it again, and it comes back
// disconnected at 0 °C. The runner connects and configures it again and sends it its first
// cool setpoint again. A flat panel that a person disconnected meanwhile stays disconnected.
func TestARestartedDriverIsConnectedAgainAndADeviceAPersonDisconnectedStaysSo(t *testing.T) {
	dir := t.TempDir()
	ns, queue, c := startReservation(t, func(ns string) {
		_, err := env.Dynamic.Resource(obsv1.KindCamera.GroupVersionResource()).Namespace(ns).Patch(context.Background(), "east-main",
			types.MergePatchType, []byte(`{"spec":{"activation":[{"cool":{"celsius":-1.5,"within":0.5}}]}}`), metav1.PatchOptions{})
		require.NoError(t, err)
	})
	local := &observatory.LocalINDI{Dir: dir}
	t.Cleanup(func() { local.Close() })
	t.Cleanup(newWorker(t, c, queue, local).Stop)
	awaitReady(t, ns, "tonight")

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const camera, panel = "CCD Simulator", "Light Panel Simulator"
	addr, err := local.Address(ctx, observatory.INDIServer{Namespace: ns, Name: "east-telescope", Drivers: []string{"indi_simulator_ccd"}})
	require.NoError(t, err)
	tel, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	defer tel.Close()
	for _, dev := range []string{camera, panel} {
		require.NoError(t, tel.Sync(ctx, dev))
	}

	// A person disconnects the flat panel; the observer shows it (no longer Connected).
	_, err = tel.Disconnect(ctx, panel)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return devicePhase(t, ns, obsv1.KindFlatPanel, "east-main") == obsv1.DeviceConnecting },
		time.Minute, 200*time.Millisecond, "the observer saw the flat panel disconnected")

	// The camera's driver dies; indiserver starts it again, disconnected.
	var server int
	recs, err := observatory.ReadLocalINDIRecords(dir)
	require.NoError(t, err)
	for _, r := range recs {
		if r.Namespace == ns && r.Name == "east-telescope" {
			server = r.Pid
		}
	}
	require.NotZero(t, server, "the local indiserver of east-telescope is recorded")
	driver := childRunning(t, server, "indi_simulator_ccd")
	require.NoError(t, syscall.Kill(driver, syscall.SIGKILL))

	connected := func(dev string) bool {
		p, ok := tel.Property(dev, "CONNECTION")
		return ok && p.SwitchOn("CONNECT")
	}
	temperature := func() float64 {
		p, _ := tel.Property(camera, "CCD_TEMPERATURE")
		v, ok := p.Number("CCD_TEMPERATURE_VALUE")
		if !ok {
			return 99
		}
		return v
	}
	require.Eventually(t, func() bool { return childRunning(t, server, "indi_simulator_ccd") != driver },
		time.Minute, 200*time.Millisecond, "indiserver restarted the driver")
	require.Eventually(t, func() bool { return connected(camera) && temperature() <= -1 },
		time.Minute, 200*time.Millisecond, "the camera was connected again and cools again")
	const restarted = "Its driver restarted; connected it again (connected, active devices, gain, offset, optics, cool setpoint -1.5 °C)"
	require.Eventually(t, func() bool {
		return len(eventMessages(t, ns, "east-main", observatory.ReasonDriverRestarted)) > 0
	}, 30*time.Second, 200*time.Millisecond, "the camera's Event")
	assert.Equal(t, []string{restarted}, eventMessages(t, ns, "east-main", observatory.ReasonDriverRestarted))
	assert.False(t, connected(panel), "the flat panel a person disconnected stays disconnected")
}

// devicePhase is a device's status.phase.
func devicePhase(t *testing.T, ns string, kind obsv1.Kind, name string) obsv1.DevicePhase {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var st obsv1.DeviceStatus
	if m, ok := u.Object["status"].(map[string]any); ok {
		require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st))
	}
	return st.Phase
}

// eventMessages are the messages of the Events with the reason about objects named name.
func eventMessages(t *testing.T, ns, name, reason string) []string {
	t.Helper()
	l, err := env.Kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, e := range l.Items {
		if e.InvolvedObject.Name == name && e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	return out
}

// childRunning is the pid of parent's child process that runs program; 0 when none does.
func childRunning(t *testing.T, parent int, program string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(parent) {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && filepath.Base(strings.Split(string(cmd), "\x00")[0]) == program {
			return pid
		}
	}
	return 0
}
