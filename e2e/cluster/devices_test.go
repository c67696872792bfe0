// A mount on a USB serial adapter, on the real node, without hardware: the adapter is a
// pseudo-terminal plugged into the node's /dev/serial/by-id and /sys with an FTDI FT232R's
// attributes, and on its far side lx200 answers as an Astro-Electronic FS-2 controller. A Mount
// claims it by its serial number through the project's DRA driver; the scheduler places the
// driver pod; the kubelet hands the device to its container through CDI (no hostPath, no
// privilege); Debian's stock indi_lx200fs2 connects through it and slews it, and at dawn the
// site guard parks it with the runner gone: a site of a mount alone, with no device of its own,
// runs its server for the guard. Pulled out, the device leaves the node's slice and
// the Mount says so.
package cluster

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/dra"
	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/inditest/lx200"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

const (
	hwNS    = "hardware"
	fs2     = "Astro-Electronic FS-2" // indi_lx200fs2's device
	dialout = 20                      // the group udev gives serial ports
)

func TestAMountOnAUSBSerialAdapterIsClaimedAndDrivenThroughIt(t *testing.T) {
	install(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	mount, err := lx200.Open()
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the mount's log:\n%s\nunknown: %q", strings.Join(mount.Log(), "\n"), mount.Unknown())
		}
		mount.Close()
	})
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := env.Kubectl(context.Background(), "-n", localstack.DevicesNamespace, "logs", "daemonset/serial-devices")
			t.Logf("the DRA driver's log:\n%s", out)
		}
	})
	// As udev leaves a USB serial port: the dialout group's, not the world's.
	require.NoError(t, os.Chown(mount.Slave(), 0, dialout))
	require.NoError(t, os.Chmod(mount.Slave(), 0o660))
	adapter := testenv.FTDIAdapter("LK0001")
	unplug := env.PlugSerial(t, adapter, mount.Slave())
	device := awaitSlice(t, ctx, func(d resourceapi.Device) bool { return attribute(d, "serial") == "LK0001" }, "the adapter is published")
	assert.Equal(t, "0403", attribute(device, "vendorID"))
	assert.Equal(t, "/dev/serial/by-id/"+adapter.Link(), attribute(device, "link"))

	_, err = env.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hwNS, Labels: restricted}}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { env.Kube.CoreV1().Namespaces().Delete(context.Background(), hwNS, metav1.DeleteOptions{}) })
	// The node has no storage provisioner: the config's volume is a folder of the node, made
	// beforehand for the claim, as a user of local volumes makes one.
	configDir := hostPathVolume(t, ctx, "hardware-west-mount-config", hwNS, "west-mount-config", 1, 1000)
	env.CreateObservatoryYAML(t, hwNS, `
kind: Observatory
metadata: {name: roof}
spec:
  location: {latitude: 52.5, longitude: 13.4, elevation: 34}
  safety: {sunAltitude: 90}
---
kind: Telescope
metadata: {name: west}
spec: {observatory: roof}
---
kind: Mount
metadata: {name: west}
spec:
  telescope: west
  driver: {name: indi_lx200fs2}
  claim:
    devices:
      requests:
        - name: port
          exactly:
            deviceClassName: serial.liken.sh
            selectors:
              - cel:
                  expression: >-
                    device.attributes["serial.liken.sh"].kind == "serial" &&
                    device.attributes["serial.liken.sh"].serial == "LK0001"
  connection:
    port: /dev/serial/by-id/`+adapter.Link()+`
    baudRate: 9600
    settings:
      - property: DEVICE_AUTO_SEARCH
        values: {INDI_DISABLED: "On"}
  config: {storageClassName: ""}
  deactivation:
    - state: Parked
`)
	createHolder(t, ctx)
	createReservationFor(t, ctx, hwNS, "first-light", "west", holder)
	awaitPhaseIn(t, hwNS, "first-light", obsv1.ReservationReady, 4*time.Minute)

	t.Run("the claim got the adapter and the driver's pod holds it without hostPath or privilege", func(t *testing.T) {
		claim, err := env.Kube.ResourceV1().ResourceClaims(hwNS).Get(ctx, "west-mount", metav1.GetOptions{})
		require.NoError(t, err)
		require.NotNil(t, claim.Status.Allocation)
		require.Len(t, claim.Status.Allocation.Devices.Results, 1)
		assert.Equal(t, device.Name, claim.Status.Allocation.Devices.Results[0].Device)
		pod, err := env.Kube.CoreV1().Pods(hwNS).Get(ctx, "west-mount", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "liken-node", pod.Spec.NodeName)
		for _, v := range pod.Spec.Volumes {
			assert.Nil(t, v.HostPath, "volume %s", v.Name)
		}
		for _, c := range pod.Spec.Containers {
			assert.False(t, c.SecurityContext != nil && c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged, c.Name)
		}
		assert.Positive(t, mount.Commands()[":GR#"], "the driver reads the mount's position through the adapter")
		// The package's first INDI pods: the node pulled the server image from the registry.
		pulled(t, hwNS, nodeServerImage())
	})
	t.Run("the mount slews through the adapter", func(t *testing.T) {
		c := dialServiceIn(ctx, hwNS, "west-telescope")
		require.NotNil(t, c, "dial west-telescope")
		defer c.Close()
		require.NoError(t, c.Sync(ctx, fs2))
		_, err := c.SetMountParked(ctx, fs2, false)
		require.NoError(t, err)
		err = c.Send(ctx, prop.Property{Device: fs2, Name: "EQUATORIAL_EOD_COORD",
			Elements: []prop.Element{{Name: "RA", Number: 5.5}, {Name: "DEC", Number: 22.25}}})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			s := mount.Status()
			return !s.Slewing && abs(s.RA-5.5) < 1e-3 && abs(s.Dec-22.25) < 1e-3
		}, time.Minute, 250*time.Millisecond, "the mount reached the target")
	})
	t.Run("its holder reaches the telescope's and the site's servers through kubectl port-forward, and no one else", func(t *testing.T) {
		theHolderReachesTheServers(t, ctx, hwNS, map[string]string{
			"west-telescope": fs2 + ".CONNECTION", "roof-observatory-0": guard.Device + "." + guard.PropStatus})
	})
	t.Run("what the driver saves outlives its pod", func(t *testing.T) {
		savedConfigOutlivesThePod(t, ctx, configDir)
	})
	t.Run("with the runner gone, the site guard parks it through the adapter at dawn", func(t *testing.T) {
		guardParksThroughTheAdapter(t, ctx, mount)
	})
	t.Run("the DRA driver restarts and publishes the adapter again", func(t *testing.T) {
		out, err := env.Kubectl(ctx, "-n", localstack.DevicesNamespace, "delete", "pods", "-l", "app.kubernetes.io/component=serial-devices", "--wait=true")
		require.NoError(t, err, out)
		out, err = env.Kubectl(ctx, "-n", localstack.DevicesNamespace, "rollout", "status", "daemonset/serial-devices", "--timeout=120s")
		require.NoError(t, err, out)
		awaitSlice(t, ctx, func(d resourceapi.Device) bool { return d.Name == device.Name }, "the new driver publishes the adapter")
	})
	t.Run("pulled out, the adapter leaves the node's slice and the Mount says so", func(t *testing.T) {
		require.Eventually(t, func() bool {
			return conditionIn(t, ctx, hwNS, obsv1.KindMount, "west", obsv1.ConditionPlugged) == "True"
		},
			time.Minute, 250*time.Millisecond, "the Mount says its hardware is plugged in")
		unplug()
		require.Eventually(t, func() bool {
			return !sliceHas(t, ctx, func(d resourceapi.Device) bool { return attribute(d, "serial") == "LK0001" })
		}, time.Minute, 250*time.Millisecond, "the adapter leaves the slice")
		require.Eventually(t, func() bool {
			return conditionIn(t, ctx, hwNS, obsv1.KindMount, "west", obsv1.ConditionPlugged) == "False"
		},
			time.Minute, 250*time.Millisecond, "the Mount says its hardware is pulled out")
		events, err := env.Kube.CoreV1().Events(hwNS).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + kube.ReasonUnplugged})
		require.NoError(t, err)
		require.Len(t, events.Items, 1)
		assert.Equal(t, corev1.EventTypeWarning, events.Items[0].Type)
		assert.Equal(t, "Mount west: the hardware of claim west-mount is no longer plugged in: "+device.Name+" (serial.liken.sh) on node liken-node; "+
			"its driver cannot reach it until it is plugged back into that node", events.Items[0].Message)
	})
	t.Run("the end releases it", func(t *testing.T) {
		end := time.Now().UTC().Format(time.RFC3339)
		_, err := objectsIn(hwNS, obsv1.KindReservation).Patch(ctx, "first-light", types.MergePatchType, []byte(`{"spec":{"end":"`+end+`"}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		r := awaitPhaseIn(t, hwNS, "first-light", obsv1.ReservationReleased, 3*time.Minute)
		theWayInGoes(t, ctx, hwNS, "first-light")
		for _, step := range r.Status.Steps {
			assert.Contains(t, []obsv1.RunState{obsv1.RunDone, obsv1.RunSkipped}, step.State, "%s: %s", step.Name, step.Summary)
			if step.Name == kube.StepConnect {
				// The record says what the mount ran with.
				assert.Contains(t, step.Summary, "Mount west ("+fs2+") on /dev/serial/by-id/"+adapter.Link()+" at 9600 baud with DEVICE_AUTO_SEARCH")
			}
		}
	})
}

// savedConfigOutlivesThePod sets the FS-2's slew accuracy on the driver and saves its
// configuration, which lands in the device's config volume; then the driver's pod is deleted,
// the runner starts it again and connects it, and the new driver loads it back.
func savedConfigOutlivesThePod(t *testing.T, ctx context.Context, dir string) {
	c := dialServiceIn(ctx, hwNS, "west-telescope")
	require.NotNil(t, c, "dial west-telescope")
	require.NoError(t, c.Sync(ctx, fs2))
	_, err := c.SetNumber(ctx, fs2, "Slew Accuracy", map[string]float64{"SlewRA": 5, "SlewDEC": 5}, 0.01)
	require.NoError(t, err)
	require.NoError(t, c.Press(ctx, fs2, "CONFIG_PROCESS", "CONFIG_SAVE"))
	saved := regexp.MustCompile(`name='SlewRA'>\s*5\s*<`)
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(filepath.Join(dir, fs2+"_config.xml"))
		return err == nil && saved.Match(b)
	}, 30*time.Second, 250*time.Millisecond, "the driver saves its configuration to the device's volume")
	c.Close()

	podComesBack(t, ctx, hwNS, "west-mount", "the runner starts the mount's pod again")
	// The new driver, connected again by the runner, loads what the old one saved.
	var c2 *indi.Client
	require.Eventually(t, func() bool { c2 = dialServiceIn(ctx, hwNS, "west-telescope"); return c2 != nil },
		time.Minute, 250*time.Millisecond, "dial west-telescope")
	defer c2.Close()
	require.Eventually(t, func() bool {
		conn, ok := c2.Property(fs2, "CONNECTION")
		return ok && conn.SwitchOn("CONNECT") && conn.State == prop.Ok
	}, 2*time.Minute, 250*time.Millisecond, "the runner connects the new driver")
	require.NoError(t, c2.Press(ctx, fs2, "CONFIG_PROCESS", "CONFIG_LOAD"))
	testenv.Eventually(t, 30*time.Second, "the new driver loads the saved slew accuracy", func() (bool, string) {
		p, _ := c2.Property(fs2, "Slew Accuracy")
		ra, ok := p.Number("SlewRA")
		return ok && ra == 5, p.Summary()
	})
}

// guardParksThroughTheAdapter stages dawn at the site, takes the runner away (the workers and
// Temporal), and sees the site guard park the mount at dawn: the FS-2 parks with a goto to its
// park position, which the mount goes to. When the runner is back, the Mount says the guard
// parked it, and the site goes back to a sky without a Sun limit.
func guardParksThroughTheAdapter(t *testing.T, ctx context.Context, mount *lx200.Mount) {
	site := dialServiceIn(ctx, hwNS, "roof-observatory")
	require.NotNil(t, site, "dial roof-observatory")
	defer site.Close()
	require.NoError(t, site.Sync(ctx, guard.Device))
	observatories := objectsIn(hwNS, obsv1.KindObservatory)
	dawn := testenv.StageDawn(t, ctx, observatories, "roof", site, 45*time.Second)
	temporal := scaleDown(t, ctx, "temporal")
	workers := scaleDown(t, ctx, "liken-worker-main")
	require.True(t, time.Now().Before(dawn), "the runner was gone before dawn")
	require.Eventually(t, func() bool {
		r := guardReport(site)
		return len(r.Trips) == 1 && r.Trips[0].Finished && r.Trips[0].Kind == guard.CauseSun
	}, time.Until(dawn)+time.Minute, 250*time.Millisecond, "the site guard parks the mount at dawn")
	s := mount.Status()
	assert.False(t, s.Slewing)
	assert.False(t, abs(s.TargetRA-5.5) < 1e-3 && abs(s.TargetDec-22.25) < 1e-3, "the mount went on from its target to park: %+v", s)
	t.Logf("the site guard parked the mount %s after dawn", time.Since(dawn).Round(100*time.Millisecond))

	temporal()
	workers()
	workerLogsOnFailure(t)
	require.Eventually(t, func() bool {
		return conditionIn(t, ctx, hwNS, obsv1.KindMount, "west", obsv1.ConditionParkedBySafety) == "True"
	}, 4*time.Minute, 250*time.Millisecond, "the Mount says the site guard parked it")
	_, err := observatories.Patch(ctx, "roof", types.MergePatchType, []byte(`{"spec":{"location":{"latitude":52.5,"longitude":13.4},"safety":{"sunAltitude":90}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
}

func abs(x float64) float64 { return max(x, -x) }

func attribute(d resourceapi.Device, name string) string {
	if a, ok := d.Attributes[resourceapi.QualifiedName(name)]; ok && a.StringValue != nil {
		return *a.StringValue
	}
	return ""
}

// awaitSlice waits for the node's slice of serial.liken.sh to hold a device that matches.
func awaitSlice(t *testing.T, ctx context.Context, match func(resourceapi.Device) bool, what string) resourceapi.Device {
	t.Helper()
	var found resourceapi.Device
	require.Eventually(t, func() bool {
		var ok bool
		found, ok = inSlice(t, ctx, match)
		return ok
	}, time.Minute, 250*time.Millisecond, what)
	return found
}

func sliceHas(t *testing.T, ctx context.Context, match func(resourceapi.Device) bool) bool {
	_, ok := inSlice(t, ctx, match)
	return ok
}

// inSlice is the first device of the driver's slices that matches.
func inSlice(t *testing.T, ctx context.Context, match func(resourceapi.Device) bool) (resourceapi.Device, bool) {
	slices, err := env.Kube.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: "spec.driver=" + dra.DriverName})
	require.NoError(t, err)
	for _, s := range slices.Items {
		for _, d := range s.Spec.Devices {
			if match(d) {
				return d, true
			}
		}
	}
	return resourceapi.Device{}, false
}
