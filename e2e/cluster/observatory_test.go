// The example observatory on real pods of the installed runner, from Ready to Released: the
// pods are real, a client reads the mount, a deleted device pod comes back and dawn parks the
// site with the runner gone.
package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"liken.sh/runner/build/images"
	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

const obsNS = "observatory"

// TestTheExampleObservatoryRunsOnRealPodsFromReadyToReleased runs examples/observatory.yaml
// (it has no Guider: PHD2 has no Debian package) in a namespace that enforces the restricted
// standard, with a Job action in the dome's activation, and does to it what a night does:
// a client in a pod reads the mount, a device pod dies, the operator's pods roll and one
// crashes, dawn comes while the runner is gone, and the reservation ends.
func TestTheExampleObservatoryRunsOnRealPodsFromReadyToReleased(t *testing.T) {
	install(t)
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	_, err := env.Kube.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: obsNS, Labels: restricted}}, metav1.CreateOptions{})
	require.NoError(t, err)
	env.ApplyObservatory(t, "examples/observatory.yaml", obsNS, obsv1.KindReservation)
	_, err = objects(obsv1.KindDome).Patch(ctx, "lab", types.MergePatchType, []byte(`{"spec":{"activation":[`+
		`{"job":{"image":"`+images.JobImage+`","command":["sh","-c","echo job of $LIKEN_RESOURCE for $INDI_HOST:$INDI_PORT"]}},`+
		`{"state":"Unparked","timeout":"5m"}]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	createReservation(t, ctx, "tonight")

	r := awaitPhase(t, "tonight", obsv1.ReservationReady, 4*time.Minute)
	require.NotNil(t, r.Status.Endpoint, "a Ready reservation says where its INDI server is")
	t.Run("every pod runs real processes", func(t *testing.T) { podsAreReal(t, ctx) })
	t.Run("the simulators' and Job images were pulled from the registry", func(t *testing.T) {
		// The server image is pulled by the adapter's site (devices_test.go), which runs first.
		pulled(t, obsNS, kube.SimulatorImage, images.JobImage)
	})
	t.Run("a client in a pod reads the mount at the endpoint", func(t *testing.T) { clientReadsMount(t, ctx, r.Status.Endpoint) })
	t.Run("a deleted device pod comes back and is linked again", func(t *testing.T) { devicePodComesBack(t, ctx) })
	t.Run("the operator rolls and crashes without a step twice", func(t *testing.T) { operatorRollsAndCrashes(t, ctx) })
	t.Run("with the runner gone and the site's server pod deleted, it comes back; at dawn the mount parks, then the dome closes", func(t *testing.T) { sunParksWithTheRunnerGone(t, ctx) })
	t.Run("an upgrade to build b keeps tonight on its build, main, which parks the mount in a storm", func(t *testing.T) { upgradeKeepsTonight(t, ctx) })
	t.Run("the end releases it with no pod left", func(t *testing.T) { endReleases(t, ctx) })
	t.Run("the next night runs on build b", func(t *testing.T) { nextNightOnB(t, ctx) })
	t.Run("main's workers go once tonight has ended on them", func(t *testing.T) { oldWorkersGo(t, ctx) })
}

func objects(k obsv1.Kind) dynamic.ResourceInterface { return objectsIn(obsNS, k) }

func objectsIn(ns string, k obsv1.Kind) dynamic.ResourceInterface {
	return env.Dynamic.Resource(k.GroupVersionResource()).Namespace(ns)
}

func createReservation(t *testing.T, ctx context.Context, name string) {
	createReservationIn(t, ctx, obsNS, name, "east")
}

func createReservationIn(t *testing.T, ctx context.Context, ns, name, telescope string) {
	t.Helper()
	createReservationFor(t, ctx, ns, name, telescope, "ada")
}

func createReservationFor(t *testing.T, ctx context.Context, ns, name, telescope, holder string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": "Reservation",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"telescope": telescope, "holder": holder},
	}}
	_, err := objectsIn(ns, obsv1.KindReservation).Create(ctx, u, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		res := objectsIn(ns, obsv1.KindReservation)
		res.Patch(context.Background(), name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		res.Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

func reservation(t *testing.T, ctx context.Context, ns, name string) *obsv1.Reservation {
	t.Helper()
	u, err := objectsIn(ns, obsv1.KindReservation).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	var r obsv1.Reservation
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r))
	return &r
}

// awaitPhase waits, at most within, for the reservation's phase, and fails with its steps.
func awaitPhase(t *testing.T, name string, phase obsv1.ReservationPhase, within time.Duration) *obsv1.Reservation {
	t.Helper()
	return awaitPhaseIn(t, obsNS, name, phase, within)
}

func awaitPhaseIn(t *testing.T, ns, name string, phase obsv1.ReservationPhase, within time.Duration) *obsv1.Reservation {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(within)
	for {
		r := reservation(t, ctx, ns, name)
		if r.Status.Phase == phase {
			return r
		}
		if time.Now().After(deadline) {
			var steps []string
			for _, s := range r.Status.Steps {
				steps = append(steps, s.Name+"="+string(s.State)+": "+s.Summary)
			}
			t.Fatalf("the reservation is not %s within %s: phase %q, steps %q\n%s", phase, within, r.Status.Phase, steps, describe(ctx, ns))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// managed lists the pods the runner made for the observatory.
func managed(t *testing.T, ctx context.Context) []corev1.Pod {
	t.Helper()
	pods, err := env.Kube.CoreV1().Pods(obsNS).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=observatory-operator"})
	require.NoError(t, err)
	return pods.Items
}

// podsAreReal: each server and device pod runs on the node in a container of containerd,
// with an address of the pod network.
func podsAreReal(t *testing.T, ctx context.Context) {
	pods := managed(t, ctx)
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	require.ElementsMatch(t, []string{"lab-observatory-0", "lab-dome", "lab-weatherstation", "east-telescope", "east-mount",
		"east-main-camera", "east-main-focuser", "east-main-filterwheel", "east-main-flatpanel"}, names, "two servers and seven devices")
	for _, p := range pods {
		assert.Equal(t, corev1.PodRunning, p.Status.Phase, p.Name)
		assert.Equal(t, "liken-node", p.Spec.NodeName, p.Name)
		require.Len(t, p.Status.ContainerStatuses, 1, p.Name)
		assert.True(t, strings.HasPrefix(p.Status.ContainerStatuses[0].ContainerID, "containerd://"), "%s: %s", p.Name, p.Status.ContainerStatuses[0].ContainerID)
		assert.True(t, strings.HasPrefix(p.Status.PodIP, "10.247."), "%s: %s", p.Name, p.Status.PodIP)
	}
	out, err := env.Kubectl(ctx, "get", "pods", "-o", "wide", "-A")
	require.NoError(t, err)
	t.Logf("$ kubectl get pods -o wide -A\n%s", out)
	out, err = env.Stack.Node.Ctr(ctx, "containers", "ls")
	require.NoError(t, err)
	t.Logf("$ ctr -n k8s.io containers ls\n%s", out)
}

// clientReadsMount runs indi_getprop in a pod of the server image against the endpoint.
func clientReadsMount(t *testing.T, ctx context.Context, ep *obsv1.Endpoint) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "indi-client"},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			AutomountServiceAccountToken: ptr.To(false),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(1000)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name: "client", Image: nodeServerImage(),
				Command: []string{"indi_getprop", "-h", ep.Host, "-p", strconv.Itoa(int(ep.Port)), "-t", "10",
					"Telescope Simulator.EQUATORIAL_EOD_COORD.*"},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
					Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
	_, err := env.Kube.CoreV1().Pods(obsNS).Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	defer env.Kube.CoreV1().Pods(obsNS).Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))})
	require.Eventually(t, func() bool {
		p, err := env.Kube.CoreV1().Pods(obsNS).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && (p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed)
	}, time.Minute, 200*time.Millisecond, "the client pod ran")
	out, err := env.Kubectl(ctx, "-n", obsNS, "logs", pod.Name)
	require.NoError(t, err)
	assert.Contains(t, out, "Telescope Simulator.EQUATORIAL_EOD_COORD.RA=", "indi_getprop read the mount through %s:%d", ep.Host, ep.Port)
	assert.Contains(t, out, "Telescope Simulator.EQUATORIAL_EOD_COORD.DEC=")
}

// serviceClient talks INDI to a server through its Service's cluster address, as any pod
// (or the node itself, through kube-proxy's rules) does.
func serviceClient(t *testing.T, ctx context.Context, svc string) *indi.Client {
	t.Helper()
	c := dialService(ctx, svc)
	require.NotNil(t, c, "dial the Service %s", svc)
	t.Cleanup(func() { c.Close() })
	return c
}

// dialService is a client of a Service's INDI server, nil when it cannot be reached.
func dialService(ctx context.Context, svc string) *indi.Client { return dialServiceIn(ctx, obsNS, svc) }

func dialServiceIn(ctx context.Context, ns, svc string) *indi.Client {
	s, err := env.Kube.CoreV1().Services(ns).Get(ctx, svc, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	c, err := indi.Dial(ctx, net.JoinHostPort(s.Spec.ClusterIP, strconv.Itoa(int(s.Spec.Ports[0].Port))))
	if err != nil {
		return nil
	}
	return c
}

func devicePodComesBack(t *testing.T, ctx context.Context) {
	const name = "east-main-focuser"
	old, err := env.Kube.CoreV1().Pods(obsNS).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	server := serviceClient(t, ctx, "east-telescope")
	require.NoError(t, env.Kube.CoreV1().Pods(obsNS).Delete(ctx, name, metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		p, err := env.Kube.CoreV1().Pods(obsNS).Get(ctx, name, metav1.GetOptions{})
		return err == nil && p.UID != old.UID && p.Status.Phase == corev1.PodRunning
	}, 2*time.Minute, 250*time.Millisecond, "the focuser's pod is created again")
	require.Eventually(t, func() bool {
		p, ok := server.Property("Focuser Simulator", "CONNECTION")
		return ok && p.SwitchOn("CONNECT") && devicePhase(t, ctx, obsv1.KindFocuser, "east-main") == string(obsv1.DeviceConnected)
	}, 2*time.Minute, 250*time.Millisecond, "the focuser's driver is linked into east-telescope again and connected")
}

func devicePhase(t *testing.T, ctx context.Context, k obsv1.Kind, name string) string {
	u, err := objects(k).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	phase, _, _ := unstructured.NestedString(u.Object, "status", "phase")
	return phase
}

// condition is the status of a condition of an observatory object ("" when absent).
func condition(t *testing.T, ctx context.Context, k obsv1.Kind, name, typ string) string {
	return conditionIn(t, ctx, obsNS, k, name, typ)
}

func conditionIn(t *testing.T, ctx context.Context, ns string, k obsv1.Kind, name, typ string) string {
	u, err := objectsIn(ns, k).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return fmt.Sprint(m["status"])
		}
	}
	return ""
}

// sunParksWithTheRunnerGone: the site moved to where dawn is a minute and a half away (the
// runner tells its guard), then every worker gone (the Deployment scaled to 0, its pods
// killed) and Temporal too, the site's server pod deleted and made again by its StatefulSet,
// and at dawn the new pod's guard parks the mount, then closes the dome, and closes it again
// when a client opens it, read through INDI from outside the runner. When the runner is back,
// the Observatory says what the guard did, and the site goes back to the example's sky. (The
// weather with the runner gone is e2e/faults'; here the weather parks the mount in the
// upgrade's storm.)
func sunParksWithTheRunnerGone(t *testing.T, ctx context.Context) {
	site := serviceClient(t, ctx, "lab-observatory")
	tel := serviceClient(t, ctx, "east-telescope")
	for c, dev := range map[*indi.Client]string{site: guard.Device, tel: "Telescope Simulator"} {
		require.NoError(t, c.Sync(ctx, dev))
	}
	staged := stageDawn(t, ctx, site, 90*time.Second)
	workers := scaleDown(t, ctx, "liken-worker-main")
	temporal := scaleDown(t, ctx, "temporal")
	require.Eventually(t, func() bool { return guardReport(site).RunnerAway }, time.Minute, 250*time.Millisecond,
		"the site guard sees the runner away")

	site = sitePodComesBack(t, ctx)

	parks := inditest.WatchParks(ctx, site, "Dome Simulator", []*indi.Client{tel}, "Telescope Simulator")
	require.Empty(t, guardReport(site).Trips, "dawn came before the site's server pod was back: stage it later")
	t.Logf("the site's server pod is back %s before dawn", time.Until(staged.dawn).Round(time.Second))
	mounts, closed := parks.ParkedThenClosed(t, staged.dawn, time.Until(staged.dawn)+time.Minute)
	t.Logf("runner gone, from the Sun passing %g°: the mount parked in %.1f s, the dome closed in %.1f s", testenv.DawnLimit, mounts, closed)
	// A client opens the dome while the Sun is up: the guard closes it again, in a new trip.
	require.Eventually(t, func() bool { r := guardReport(site); return len(r.Trips) == 1 && r.Trips[0].Finished },
		time.Minute, 250*time.Millisecond, "the guard's park at dawn ends")
	require.NoError(t, site.Press(ctx, "Dome Simulator", guard.DomeParkProp, "UNPARK"))
	require.Eventually(t, func() bool {
		r := guardReport(site)
		return len(r.Trips) == 2 && r.Trips[1].Finished && r.Trips[1].Kind == guard.CauseSun && len(r.Trips[1].Closed) == 1
	}, time.Minute, 250*time.Millisecond, "the guard closes a dome opened while the Sun is up")

	// The workers come back before Temporal, as after a site's power cut: they wait for it,
	// unready, and none restarts.
	if out, err := env.Kubectl(ctx, "-n", system, "scale", "deployment/liken-worker-main", "--replicas=2"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	workersWaitForTemporal(t, ctx)
	temporal()
	workers()
	noWorkerRestarted(t, ctx)
	workerLogsOnFailure(t)
	var last any
	ok := assert.Eventually(t, func() bool {
		u, err := objects(obsv1.KindObservatory).Get(ctx, "lab", metav1.GetOptions{})
		require.NoError(t, err)
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == obsv1.ConditionParkedBySafety {
				last = m
				return m["reason"] == kube.ReasonSunUp && strings.Contains(fmt.Sprint(m["message"]), "while the runner was away")
			}
		}
		return false
	}, 4*time.Minute, 250*time.Millisecond, "the Observatory says the site guard parked it while the runner was away")
	if !ok {
		t.Fatalf("the Observatory's last ParkedBySafety: %v; %s", last, pendingActivities(t, contract.ReservationID(obsNS, "tonight")))
	}
	for k, name := range map[obsv1.Kind]string{obsv1.KindMount: "east", obsv1.KindDome: "lab"} {
		require.Eventually(t, func() bool { return condition(t, ctx, k, name, obsv1.ConditionParkedBySafety) == "True" },
			time.Minute, 250*time.Millisecond, "%s %s says the site guard parked it", k, name)
	}
	staged.sky(t, ctx, site)
}

// stagedDawn is a dawn staged at the site, and the site as it was before.
type stagedDawn struct {
	dawn  time.Time
	place obsv1.Location
	back  []byte // a merge patch back to the Observatory's place and safety
}

// stageDawn stages a dawn after lead (testenv.StageDawn), keeping the site as it was.
func stageDawn(t *testing.T, ctx context.Context, site *indi.Client, lead time.Duration) stagedDawn {
	u, err := objects(obsv1.KindObservatory).Get(ctx, "lab", metav1.GetOptions{})
	require.NoError(t, err)
	var obs obsv1.Observatory
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &obs))
	back, err := json.Marshal(map[string]any{"spec": map[string]any{"location": obs.Spec.Location, "safety": obs.Spec.Safety}})
	require.NoError(t, err)
	return stagedDawn{dawn: testenv.StageDawn(t, ctx, objects(obsv1.KindObservatory), "lab", site, lead), place: obs.Spec.Location, back: back}
}

// sky puts the Observatory back where it was, and waits until the runner has told the guard.
func (s stagedDawn) sky(t *testing.T, ctx context.Context, site *indi.Client) {
	_, err := objects(obsv1.KindObservatory).Patch(ctx, "lab", types.MergePatchType, s.back, metav1.PatchOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		cfg := testenv.GuardConfig(site)
		return cfg.Latitude == s.place.Latitude && cfg.Longitude == s.place.Longitude
	}, 30*time.Second, 250*time.Millisecond, "the runner tells the site guard the Observatory's place again")
}

// guardReport is the site guard's report as its server last sent it; empty while it has none.
func guardReport(site *indi.Client) guard.Report {
	p, _ := site.Property(guard.Device, guard.PropStatus)
	return guard.ReportOf(p)
}

// sitePodComesBack deletes the site's server pod, as an eviction or a person would: its
// StatefulSet makes it again, and the site guard in the new pod, whose volume is new, arms the
// site as the runner last did (the pod template's config). It returns a client of the new pod.
func sitePodComesBack(t *testing.T, ctx context.Context) *indi.Client {
	podComesBack(t, ctx, obsNS, "lab-observatory-0", "the StatefulSet makes the site's server pod again")
	// The Service reaches the new pod once its endpoints and the node's rules have it.
	var site *indi.Client
	require.Eventually(t, func() bool { site = dialService(ctx, "lab-observatory"); return site != nil },
		time.Minute, 250*time.Millisecond, "the site's Service reaches the new pod")
	t.Cleanup(func() { site.Close() })
	require.Eventually(t, func() bool {
		r := guardReport(site)
		return r.ConfigVersion == 1 && len(r.Mounts) == 1 && r.Mounts[0].Reported
	}, 2*time.Minute, 250*time.Millisecond, "the new pod's site guard reaches the mount the runner last armed it with")
	// The site's drivers started again with the new server, disconnected; the guard connects them.
	require.Eventually(t, func() bool {
		r := guardReport(site)
		_, weather := site.Property("Weather Simulator", "WEATHER_CONTROL")
		return len(r.Domes) == 1 && r.Domes[0].Reported && weather
	}, 2*time.Minute, 250*time.Millisecond, "the new pod's site guard connects the dome and the weather station")
	return site
}

// podComesBack deletes a pod, as an eviction or a person would, and waits until a new pod of
// that name is Ready, made again by its owner (what says who).
func podComesBack(t *testing.T, ctx context.Context, ns, name, what string) {
	t.Helper()
	pods := env.Kube.CoreV1().Pods(ns)
	old, err := pods.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, pods.Delete(ctx, old.Name, metav1.DeleteOptions{}))
	require.Eventually(t, func() bool {
		p, err := pods.Get(ctx, old.Name, metav1.GetOptions{})
		if err != nil || p.UID == old.UID {
			return false
		}
		ready, _ := kube.PodReady(p)
		return ready
	}, 2*time.Minute, 250*time.Millisecond, what)
}

// workerLogsOnFailure logs the workers' last lines when the test fails: what the runner did once
// it was back.
func workerLogsOnFailure(t *testing.T) {
	t.Cleanup(func() {
		if t.Failed() {
			out, err := env.Kubectl(context.Background(), "-n", system, "logs", "-l", "app.kubernetes.io/component=worker",
				"--tail=400", "--prefix")
			t.Logf("the workers' logs (%v):\n%s", err, out)
		}
	})
}

// scaleDown scales a Deployment of liken-system to 0 and kills its pods at once; the function
// returned scales it back and waits for the rollout. It runs when the test ends too, if it did
// not run before, so a failed test leaves the runner for the next ones.
func scaleDown(t *testing.T, ctx context.Context, name string) (back func()) {
	t.Helper()
	d, err := env.Kube.AppsV1().Deployments(system).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	replicas := strconv.Itoa(int(ptr.Deref(d.Spec.Replicas, 1)))
	if out, err := env.Kubectl(ctx, "-n", system, "scale", "deployment/"+name, "--replicas=0"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	sel := metav1.FormatLabelSelector(d.Spec.Selector)
	if out, err := env.Kubectl(ctx, "-n", system, "delete", "pods", "-l", sel, "--grace-period=0", "--force", "--wait=true"); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var once sync.Once
	back = func() {
		once.Do(func() {
			if out, err := env.Kubectl(ctx, "-n", system, "scale", "deployment/"+name, "--replicas="+replicas); err != nil {
				t.Errorf("%v: %s", err, out)
			}
			if out, err := env.Kubectl(ctx, "-n", system, "rollout", "status", "deployment/"+name, "--timeout=180s"); err != nil {
				t.Errorf("%v: %s", err, out)
			}
		})
	}
	t.Cleanup(back)
	return back
}

func endReleases(t *testing.T, ctx context.Context) {
	end := time.Now().UTC().Format(time.RFC3339)
	_, err := objects(obsv1.KindReservation).Patch(ctx, "tonight", types.MergePatchType, []byte(`{"spec":{"end":"`+end+`"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	r := awaitPhase(t, "tonight", obsv1.ReservationReleased, 3*time.Minute)
	require.Eventually(t, func() bool { return len(managed(t, ctx)) == 0 }, time.Minute, 250*time.Millisecond, "no pod is left")
	svcs, err := env.Kube.CoreV1().Services(obsNS).List(ctx, metav1.ListOptions{LabelSelector: kube.LabelManagedBy + "=observatory-operator"})
	require.NoError(t, err)
	assert.Empty(t, svcs.Items, "no Service is left")

	// No step ran twice: each has one record and one Event, however the operator went.
	seen := map[string]bool{}
	for _, s := range r.Status.Steps {
		assert.False(t, seen[s.Name], "the step %s is recorded twice", s.Name)
		seen[s.Name] = true
		assert.Contains(t, []obsv1.RunState{obsv1.RunDone, obsv1.RunSkipped}, s.State, "%s: %s", s.Name, s.Summary)
	}
	events, err := env.Kube.CoreV1().Events(obsNS).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Reservation"})
	require.NoError(t, err)
	for _, e := range events.Items {
		if seen[e.Reason] {
			assert.EqualValues(t, 1, max(e.Count, 1), "the step %s ended %d times: %s", e.Reason, e.Count, e.Message)
		}
	}

	// The dome's Job ran for real, told its device and where that device's INDI server listens.
	jobs, err := env.Kube.BatchV1().Jobs(obsNS).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, jobs.Items, 1, "the dome's activation ran one Job")
	assert.EqualValues(t, 1, jobs.Items[0].Status.Succeeded)
	out, err := env.Kubectl(ctx, "-n", obsNS, "logs", "job/"+jobs.Items[0].Name)
	require.NoError(t, err)
	assert.Contains(t, out, "job of Dome/lab for lab-observatory."+obsNS+".svc:7624")
}
