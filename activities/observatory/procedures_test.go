// Integration tests of the Activation and Deactivation steps against the real API server, its
// Job controller and kwok's fake node (which completes a Job's pod by itself), and, for the
// device actions, against a real INDI simulator. What the steps create and write is read back
// from the server. (The package's TestMain, in main_test.go, starts the stack.)
package observatory

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// procWait bounds every wait of these tests: a Job completes on the fake node in seconds.
const procWait = 90 * time.Second

var procStarted = time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)

func jobAction(image string, env ...obsv1.EnvVar) obsv1.Action {
	return obsv1.Action{ActionBase: obsv1.ActionBase{Job: &obsv1.Job{Image: image, Env: env}}}
}

func parkJob(image string) obsv1.ParkAction {
	return obsv1.ParkAction{ActionBase: obsv1.ActionBase{Job: &obsv1.Job{Image: image}}}
}

func procInput(ns string, step string, site bool) StepInput {
	return StepInput{Namespace: ns, Reservation: "ada-east", Holder: "ada", Telescope: "east",
		Observatory: "lab", Step: step, Started: procStarted, SiteTiers: site}
}

func procActivities() *Activities {
	jobPollEvery = 200 * time.Millisecond
	return newActivities()
}

func readObject(t *testing.T, kind obsv1.Kind, ns, name string, into any) {
	t.Helper()
	u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into))
}

// eventReasons are the reasons of the Events about kind/name, each with its type.
func eventReasons(t *testing.T, ns string, kind obsv1.Kind, name string) map[string]string {
	t.Helper()
	list, err := env.Kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.Set{"involvedObject.kind": string(kind), "involvedObject.name": name}.String()})
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range list.Items {
		out[e.Reason] = e.Type
	}
	return out
}

func jobsOf(t *testing.T, ns string, kind obsv1.Kind, name string) []batchv1.Job {
	t.Helper()
	list, err := env.Kube.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{
		LabelSelector: labels.Set{kube.LabelKind: string(kind), kube.LabelResource: name}.String()})
	require.NoError(t, err)
	return list.Items
}

func envOf(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		out[e.Name] = e.Value
	}
	return out
}

func TestAJobActionCreatesOneJobAndARestartAdoptsItInsteadOfDuplicatingIt(t *testing.T) {
	ns := observatoryNamespace(t, "proc-job")
	createLab(t, ns)
	tel := createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Activation: []obsv1.Action{jobAction("example.com/open-roof:1",
				obsv1.EnvVar{Name: "ROOF", Value: "north"}, obsv1.EnvVar{Name: kube.EnvTrigger, Value: "mine"})},
		}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	res, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	require.NoError(t, err)
	require.Len(t, res.Actions, 1)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State, res.Actions[0].Summary)
	assert.Equal(t, obsv1.KindTelescope, res.Actions[0].Kind)
	assert.Equal(t, "job", res.Actions[0].Action)
	assert.Equal(t, "Activated Telescope east", res.Summary)

	name := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, procStarted, 0)
	jobs := jobsOf(t, ns, obsv1.KindTelescope, "east")
	require.Len(t, jobs, 1)
	job := jobs[0]
	assert.Equal(t, name, job.Name)
	assert.Equal(t, kube.JobLabels(name, kube.ResourceIDOf(obsv1.KindTelescope, tel)), job.Labels)
	assert.Equal(t, kube.TriggerActivation, job.Annotations[kube.AnnotationTrigger])
	require.NotNil(t, metav1.GetControllerOf(&job))
	assert.Equal(t, tel.GetUID(), metav1.GetControllerOf(&job).UID)
	e := envOf(job.Spec.Template.Spec.Containers[0])
	assert.Equal(t, "north", e["ROOF"])
	assert.Equal(t, kube.TriggerActivation, e[kube.EnvTrigger], "the user's LIKEN_TRIGGER is dropped")
	assert.Equal(t, "lab", e[kube.EnvObservatory])
	assert.Equal(t, "east", e[kube.EnvTelescope])
	assert.Equal(t, "Telescope/east", e[kube.EnvResource])
	assert.Equal(t, "east-telescope."+ns+".svc", e[kube.EnvINDIHost])
	assert.Equal(t, "7624", e[kube.EnvINDIPort])

	// A worker that restarts runs the same input again: it adopts the Job.
	res, err = a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	require.NoError(t, err)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	again := jobsOf(t, ns, obsv1.KindTelescope, "east")
	require.Len(t, again, 1)
	assert.Equal(t, job.UID, again[0].UID)

	var got obsv1.Telescope
	readObject(t, obsv1.KindTelescope, ns, "east", &got)
	require.Len(t, got.Status.Procedures, 1)
	rec := got.Status.Procedures[0]
	assert.Equal(t, kube.TriggerActivation, rec.Trigger)
	assert.Equal(t, obsv1.RunDone, rec.State)
	require.NotNil(t, rec.Since)
	assert.True(t, rec.Since.Time.Equal(procStarted))
	assert.NotNil(t, rec.StartTime)
	assert.NotNil(t, rec.StopTime)
	require.Len(t, rec.Actions, 1)
	assert.Equal(t, obsv1.RunDone, rec.Actions[0].State)
	var active *obsv1.Condition
	for i := range got.Status.Conditions {
		if got.Status.Conditions[i].Type == obsv1.ConditionActive {
			active = &got.Status.Conditions[i]
		}
	}
	require.NotNil(t, active)
	assert.Equal(t, metav1.ConditionTrue, active.Status)
	assert.Equal(t, "Activated by Reservation ada-east", active.Message)

	reasons := eventReasons(t, ns, obsv1.KindTelescope, "east")
	assert.Equal(t, corev1.EventTypeNormal, reasons[kube.ReasonProcedureStarted])
	assert.Equal(t, corev1.EventTypeNormal, reasons[kube.ReasonProcedureDone])
	assert.Equal(t, corev1.EventTypeNormal, reasons[kube.ReasonActive])
}

// holdJob creates the Telescope's first activation Job before the step starts, as a run
// before a restart would have (the step adopts it), with a pod no node takes: kwok would
// complete the pod at once, and the test wants to end it otherwise.
func holdJob(t *testing.T, tel *unstructured.Unstructured, image string, timeout time.Duration) {
	t.Helper()
	holdJobAt(t, tel, 0, image, timeout)
}

// holdJobAt is holdJob for the action at index.
func holdJobAt(t *testing.T, tel *unstructured.Unstructured, index int, image string, timeout time.Duration) {
	t.Helper()
	held, err := kube.ProcedureJob(kube.JobInput{
		Resource: kube.ResourceIDOf(obsv1.KindTelescope, tel), Trigger: kube.TriggerActivation, Since: procStarted, Index: index,
		Job: obsv1.Job{Image: image}, Timeout: timeout, Observatory: "lab", Telescope: "east", Server: "east-telescope",
	})
	require.NoError(t, err)
	held.Spec.Template.Spec.NodeSelector = map[string]string{"example.com/no-such-node": "true"}
	_, err = env.Kube.BatchV1().Jobs(tel.GetNamespace()).Create(context.Background(), held, metav1.CreateOptions{})
	require.NoError(t, err)
}

// failJobPod waits for the Job's pod and ends it with exit code 3, as a failed script would.
func failJobPod(t *testing.T, ns, job string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	var pod corev1.Pod
	require.Eventually(t, func() bool {
		list, err := env.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{
			LabelSelector: labels.Set{batchv1.JobNameLabel: job}.String()})
		if err != nil || len(list.Items) == 0 {
			return false
		}
		pod = list.Items[0]
		return true
	}, procWait, 100*time.Millisecond, "the Job's pod never appeared")
	now := metav1.Now()
	status := map[string]any{"status": map[string]any{
		"phase": "Failed",
		"containerStatuses": []any{map[string]any{
			"name": kube.JobContainer, "image": pod.Spec.Containers[0].Image, "imageID": "", "ready": false, "restartCount": 0,
			"state": map[string]any{"terminated": map[string]any{
				"exitCode": 3, "reason": "Error", "message": "the roof motor is stuck\n",
				"startedAt": now.UTC().Format(time.RFC3339), "finishedAt": now.UTC().Format(time.RFC3339),
			}},
		}},
	}}
	raw, err := json.Marshal(status)
	require.NoError(t, err)
	_, err = env.Kube.CoreV1().Pods(ns).Patch(ctx, pod.Name, types.StrategicMergePatchType, raw, metav1.PatchOptions{}, "status")
	require.NoError(t, err)
}

func TestAJobWhosePodExitsWithCodeThreeFailsTheStepAndARetryReplacesIt(t *testing.T) {
	ns := observatoryNamespace(t, "proc-job-fail")
	createLab(t, ns)
	tel := createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Activation: []obsv1.Action{jobAction("example.com/open-roof:1")},
		}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	holdJob(t, tel, "example.com/open-roof:1", 0)

	in := procInput(ns, kube.StepActivation, false)
	type result struct {
		res StepResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := a.Activation(ctx, in)
		done <- result{res, err}
	}()
	first := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, procStarted, 0)
	failJobPod(t, ns, first)
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		t.Fatal("the step did not end after its Job failed")
	}
	var app *temporal.ApplicationError
	require.True(t, errors.As(r.err, &app), "%v", r.err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.True(t, app.NonRetryable())
	assert.Regexp(t, `^Failed: Job `+first+` failed: exit code 3 \(Error\): the roof motor is stuck$`, app.Message())
	var failed StepResult
	require.NoError(t, app.Details(&failed))
	require.Len(t, failed.Actions, 1)
	assert.Equal(t, obsv1.RunFailed, failed.Actions[0].State)
	assert.Contains(t, failed.Actions[0].Summary, "exit code 3")
	assert.Equal(t, corev1.EventTypeWarning, eventReasons(t, ns, obsv1.KindTelescope, "east")[kube.ReasonProcedureFailed])
	var got obsv1.Telescope
	readObject(t, obsv1.KindTelescope, ns, "east", &got)
	require.Len(t, got.Status.Procedures, 1)
	assert.Equal(t, obsv1.RunFailed, got.Status.Procedures[0].State)
	assert.Contains(t, got.Status.Procedures[0].Summary, "exit code 3")

	// The retry: the step starts again later, with the failed run's records.
	retry := in
	retry.Started = procStarted.Add(time.Minute)
	retry.Actions = failed.Actions
	res, err := a.Activation(ctx, retry)
	require.NoError(t, err)
	require.Len(t, res.Actions, 1)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	second := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, retry.Started, 0)
	require.NotEqual(t, first, second)
	jobs := jobsOf(t, ns, obsv1.KindTelescope, "east")
	var names []string
	for _, j := range jobs {
		if j.DeletionTimestamp == nil {
			names = append(names, j.Name)
		}
	}
	assert.Equal(t, []string{second}, names, "the failed Job is deleted and one new Job runs")
}

// jobOrder watches the namespace's Jobs and returns the resources whose Jobs were created, in
// the order the API server created them.
func jobOrder(t *testing.T, ns string) (stop func() []string) {
	t.Helper()
	// From the list's resourceVersion, so the Jobs already there do not count.
	list, err := env.Kube.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	w, err := env.Kube.BatchV1().Jobs(ns).Watch(context.Background(), metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	require.NoError(t, err)
	var (
		mu    sync.Mutex
		order []string
		seen  = map[string]bool{}
	)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for ev := range w.ResultChan() {
			j, ok := ev.Object.(*batchv1.Job)
			if !ok || ev.Type != watch.Added || seen[j.Name] {
				continue
			}
			mu.Lock()
			seen[j.Name] = true
			order = append(order, j.Labels[kube.LabelKind]+"/"+j.Labels[kube.LabelResource])
			mu.Unlock()
		}
	}()
	return func() []string {
		w.Stop()
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return order
	}
}

func TestTiersRunInOrderAndTheObservatorysOnlyWhenTheReservationRunsTheSite(t *testing.T) {
	ns := observatoryNamespace(t, "proc-tiers")
	img := "example.com/step:1"
	createObject(t, obsv1.KindObservatory, ns, &obsv1.Observatory{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.ObservatorySpec{Location: obsv1.Location{Latitude: 52, Longitude: 4}, Procedures: obsv1.Procedures{
			Activation: []obsv1.Action{jobAction(img)}, Deactivation: []obsv1.Action{jobAction(img)},
		}},
	})
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Activation: []obsv1.Action{jobAction(img)}, Deactivation: []obsv1.Action{jobAction(img)},
		}},
	})
	createObject(t, obsv1.KindDome, ns, &obsv1.Dome{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}},
			ParkProcedures: obsv1.ParkProcedures{Activation: []obsv1.ParkAction{parkJob(img)}, Deactivation: []obsv1.ParkAction{parkJob(img)}}},
	})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Activation: []obsv1.ParkAction{parkJob(img)}, Deactivation: []obsv1.ParkAction{parkJob(img)}}},
	})
	createObject(t, obsv1.KindOpticalTrain, ns, &obsv1.OpticalTrain{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec:       obsv1.OpticalTrainSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}},
	})
	camJob := obsv1.CameraAction{ActionBase: obsv1.ActionBase{Job: &obsv1.Job{Image: img}}}
	createObject(t, obsv1.KindCamera, ns, &obsv1.Camera{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec: obsv1.CameraSpec{OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "east-main"},
			DeviceSpec:       obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_ccd"}},
			CameraProcedures: obsv1.CameraProcedures{Activation: []obsv1.CameraAction{camJob}, Deactivation: []obsv1.CameraAction{camJob}}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	// Another telescope activated the site already: only the telescope's tiers run.
	stop := jobOrder(t, ns)
	res, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	require.NoError(t, err)
	assert.Equal(t, []string{"Telescope/east", "Mount/east", "Camera/east-main"}, stop())
	assert.Equal(t, "Activated Telescope east, Mount east, Camera east-main", res.Summary)

	// The last telescope there deactivates the site too, in reverse.
	stop = jobOrder(t, ns)
	in := procInput(ns, kube.StepDeactivation, true)
	in.Started = procStarted.Add(time.Hour)
	res, err = a.Deactivation(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, []string{"Camera/east-main", "Mount/east", "Telescope/east", "Dome/lab", "Observatory/lab"}, stop())
	require.Len(t, res.Actions, 5)
	for _, r := range res.Actions {
		assert.Equal(t, obsv1.RunDone, r.State, "%s %s", r.Kind, r.Name)
	}

	for _, kind := range []obsv1.Kind{obsv1.KindTelescope, obsv1.KindObservatory} {
		name := "east"
		if kind == obsv1.KindObservatory {
			name = "lab"
		}
		u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		require.Len(t, conds, 1, "%s %s", kind, name)
		c := conds[0].(map[string]any)
		assert.Equal(t, "False", c["status"], "%s %s", kind, name)
		assert.Equal(t, kube.ReasonInactive, c["reason"])
		assert.Equal(t, "Deactivated by Reservation ada-east", c["message"])
	}
	var dome obsv1.Dome
	readObject(t, obsv1.KindDome, ns, "lab", &dome)
	require.Len(t, dome.Status.Procedures, 1, "the Dome ran only its deactivation")
	assert.Equal(t, kube.TriggerDeactivation, dome.Status.Procedures[0].Trigger)
	var mount obsv1.Mount
	readObject(t, obsv1.KindMount, ns, "east", &mount)
	require.Len(t, mount.Status.Procedures, 2, "the Mount keeps its activation and its deactivation")
}

// fixedResolver is where a test's indiserver listens, whatever server is asked for; it
// remembers what was asked.
type fixedResolver struct {
	addr  string
	mu    sync.Mutex
	asked []INDIServer
}

func (r *fixedResolver) Address(_ context.Context, s INDIServer) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, s)
	return r.addr, nil
}

// connectedSimulator starts a real indiserver with one simulator driver and connects its
// device, as the Connect step would have before Activation.
func connectedSimulator(t *testing.T, driver, device string) (context.Context, *indi.Client, string) {
	t.Helper()
	addr := inditest.Start(t, driver)
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	t.Cleanup(cancel)
	c, err := indi.Dial(ctx, addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	_, err = c.Connect(ctx, device)
	require.NoError(t, err)
	return ctx, c, addr
}

// driverPod creates the pod a device's driver would run in, so the device counts as running.
func driverPod(t *testing.T, ns string, kind obsv1.Kind, name string) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: kube.ObjectName(kind, name), Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "driver", Image: "example.com/driver:1"}}}}
	_, err := env.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = env.Kube.CoreV1().Pods(ns).Delete(context.Background(), pod.Name, *metav1.NewDeleteOptions(0))
	})
}

// (The name is short: indiserver's socket lives under the test's temporary folder, and a
// socket path has at most 108 bytes.)
func TestADomeReachesItsTargetAndARepeatSendsNothing(t *testing.T) {
	const device = "Dome Simulator"
	ctx, c, addr := connectedSimulator(t, "indi_simulator_dome", device)

	ns := observatoryNamespace(t, "proc-dome")
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec:       obsv1.TelescopeSpec{Observatory: "lab"},
	})
	dome := createObject(t, obsv1.KindDome, ns, &obsv1.Dome{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}},
			ParkProcedures: obsv1.ParkProcedures{
				Activation:   []obsv1.ParkAction{{State: obsv1.Unparked}},
				Deactivation: []obsv1.ParkAction{{State: obsv1.Parked}},
			}},
	})
	// The driver defined its device: StartDevices records its name.
	require.NoError(t, unstructured.SetNestedField(dome.Object, device, "status", "indiDevice"))
	_, err := env.Dynamic.Resource(obsv1.KindDome.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, dome, metav1.UpdateOptions{})
	require.NoError(t, err)
	driverPod(t, ns, obsv1.KindDome, "lab")

	resolver := &fixedResolver{addr: addr}
	a := procActivities()
	a.INDI = resolver
	parked := func() bool {
		p, ok := c.Property(device, "DOME_PARK")
		return ok && p.SwitchOn("PARK")
	}

	res, err := a.Activation(ctx, procInput(ns, kube.StepActivation, true))
	require.NoError(t, err)
	require.Len(t, res.Actions, 1)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	assert.Equal(t, "state: Unparked", res.Actions[0].Action)
	assert.False(t, parked())
	require.NotEmpty(t, resolver.asked)
	assert.Equal(t, INDIServer{Namespace: ns, Name: "lab-observatory", Drivers: []string{"indi_simulator_dome"}}, resolver.asked[0])

	deact := procInput(ns, kube.StepDeactivation, true)
	deact.Started = procStarted.Add(time.Hour)
	res, err = a.Deactivation(ctx, deact)
	require.NoError(t, err)
	assert.Equal(t, "Dome lab state: Parked", res.Actions[0].Summary)
	assert.True(t, parked())
	shutter, ok := c.Property(device, "DOME_SHUTTER")
	require.True(t, ok)
	assert.True(t, shutter.SwitchOn("SHUTTER_CLOSE"), "the shutter closes with the park")

	// The dome is parked already: the run reads it and sends nothing.
	deact.Started = deact.Started.Add(time.Hour)
	res, err = a.Deactivation(ctx, deact)
	require.NoError(t, err)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	assert.Equal(t, "Dome lab state: Parked (already there)", res.Actions[0].Summary)

	var got obsv1.Dome
	readObject(t, obsv1.KindDome, ns, "lab", &got)
	require.Len(t, got.Status.Procedures, 2)
	reasons := eventReasons(t, ns, obsv1.KindDome, "lab")
	assert.Contains(t, reasons, kube.ReasonProcedureStarted)
	assert.Contains(t, reasons, kube.ReasonProcedureDone)
}

func TestADriversRefusalFailsDeactivationWithItsMessageAfterTheLaterTiersRan(t *testing.T) {
	const device = "Telescope Simulator"
	f := inditest.NewFake(t)
	f.Device(device)
	f.Define(inditest.Switches(device, "TELESCOPE_PARK", indi.OneOfMany, []string{"UNPARK"}, "PARK", "UNPARK"))
	f.Handle(device, "TELESCOPE_PARK", func(f *inditest.Fake, _ indi.Property) {
		f.Update(device, "TELESCOPE_PARK", func(p *indi.Property) {
			p.State = indi.Alert
			p.Message = "[ERROR] the mount is held by its dome lock"
		})
	})

	ns := observatoryNamespace(t, "proc-refused")
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Deactivation: []obsv1.Action{jobAction("example.com/close-roof:1")},
		}},
	})
	mount := createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Deactivation: []obsv1.ParkAction{{State: obsv1.Parked}}}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	require.NoError(t, unstructured.SetNestedField(mount.Object, device, "status", "indiDevice"))
	_, err := env.Dynamic.Resource(obsv1.KindMount.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, mount, metav1.UpdateOptions{})
	require.NoError(t, err)

	a := procActivities()
	a.INDI = &fixedResolver{addr: f.Addr}
	driverPod(t, ns, obsv1.KindMount, "east")
	_, err = a.Deactivation(ctx, procInput(ns, kube.StepDeactivation, false))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: the mount is held by its dome lock", app.Message())
	require.Len(t, f.Received(device, "TELESCOPE_PARK"), 1)

	var res StepResult
	require.NoError(t, app.Details(&res))
	require.Len(t, res.Actions, 2)
	assert.Equal(t, obsv1.KindMount, res.Actions[0].Kind)
	assert.Equal(t, obsv1.RunFailed, res.Actions[0].State)
	assert.Equal(t, obsv1.KindTelescope, res.Actions[1].Kind, "the telescope's tier runs after the mount's failed")
	assert.Equal(t, obsv1.RunDone, res.Actions[1].State)
	assert.Len(t, jobsOf(t, ns, obsv1.KindTelescope, "east"), 1)
	assert.Equal(t, corev1.EventTypeWarning, eventReasons(t, ns, obsv1.KindMount, "east")[kube.ReasonProcedureFailed])
	var got obsv1.Mount
	readObject(t, obsv1.KindMount, ns, "east", &got)
	require.Len(t, got.Status.Procedures, 1)
	assert.Equal(t, obsv1.RunFailed, got.Status.Procedures[0].State)
	assert.Equal(t, "the mount is held by its dome lock", got.Status.Procedures[0].Summary)
}

func TestAJobPastItsTimeoutFailsTheStepAsTimedOut(t *testing.T) {
	ns := observatoryNamespace(t, "proc-job-timeout")
	createLab(t, ns)
	act := jobAction("example.com/slow:1")
	act.Timeout = "2s"
	tel := createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec:       obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{Activation: []obsv1.Action{act}}},
	})
	holdJob(t, tel, "example.com/slow:1", 2*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	_, err := procActivities().Activation(ctx, procInput(ns, kube.StepActivation, false))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepTimedOut, app.Type())
	assert.True(t, app.NonRetryable())
	name := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, procStarted, 0)
	assert.Regexp(t, `^timed out after 2s: Job `+name+` failed: DeadlineExceeded`, app.Message())
}

func TestAnActionWaitsForTheRunsItComesAfterAndADanglingReferenceFailsIt(t *testing.T) {
	ns := observatoryNamespace(t, "proc-after")
	img := "example.com/step:1"
	createLab(t, ns)
	late := jobAction(img)
	late.After = []obsv1.After{{Kind: obsv1.KindMount, Name: "north"}}
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Deactivation: []obsv1.Action{late},
		}},
	})
	// The Mount and the GPS run in one tier, at once: only `after` puts the Mount's Job after
	// both of the GPS's.
	afterGPS := parkJob(img)
	afterGPS.After = []obsv1.After{{Kind: obsv1.KindGPS}}
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Activation: []obsv1.ParkAction{afterGPS}}},
	})
	createObject(t, obsv1.KindGPS, ns, &obsv1.GPS{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.GPSSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_gps"}},
			Procedures: obsv1.Procedures{Activation: []obsv1.Action{jobAction(img), jobAction(img)}}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	stop := jobOrder(t, ns)
	_, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	require.NoError(t, err)
	assert.Equal(t, []string{"GPS/east", "GPS/east", "Mount/east"}, stop())

	in := procInput(ns, kube.StepDeactivation, false)
	in.Started = procStarted.Add(time.Hour)
	_, err = a.Deactivation(ctx, in)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: after[0]: no Mount north", app.Message())
	assert.Empty(t, jobsOf(t, ns, obsv1.KindTelescope, "east"), "the action did not start")
}

func TestAnActionWhoseRequiredConditionDoesNotHoldFailsWithoutStarting(t *testing.T) {
	ns := observatoryNamespace(t, "proc-requires")
	createLab(t, ns)
	act := jobAction("example.com/open-roof:1")
	act.Requires = []obsv1.ConditionRef{{Kind: obsv1.KindObservatory, Name: "lab", Type: "Safe"}}
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec:       obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{Activation: []obsv1.Action{act}}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	_, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: requires[0]: Observatory lab is Safe=absent, not True", app.Message())
	assert.Empty(t, jobsOf(t, ns, obsv1.KindTelescope, "east"))

	// The condition holds now: the action runs.
	obs, err := env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).Get(ctx, "lab", metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, unstructured.SetNestedSlice(obs.Object, []any{map[string]any{
		"type": "Safe", "status": "True", "reason": "Safe", "lastTransitionTime": "2030-01-01T19:00:00Z",
	}}, "status", "conditions"))
	_, err = env.Dynamic.Resource(obsv1.KindObservatory.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, obs, metav1.UpdateOptions{})
	require.NoError(t, err)
	retry := procInput(ns, kube.StepActivation, false)
	retry.Started = procStarted.Add(time.Minute)
	res, err := a.Activation(ctx, retry)
	require.NoError(t, err)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
}

func TestADeviceWhosePodNeverRanIsPassedOverByDeactivation(t *testing.T) {
	const device = "Telescope Simulator"
	f := inditest.NewFake(t)
	f.Device(device)
	f.Define(inditest.Switches(device, "TELESCOPE_PARK", indi.OneOfMany, []string{"UNPARK"}, "PARK", "UNPARK"))
	ns := observatoryNamespace(t, "proc-never-ran")
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"}, Spec: obsv1.TelescopeSpec{Observatory: "lab"}})
	mount := createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Deactivation: []obsv1.ParkAction{{State: obsv1.Parked}}}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	// Its INDI name from an earlier night: a driver ran it once, but none runs it now.
	require.NoError(t, unstructured.SetNestedField(mount.Object, device, "status", "indiDevice"))
	_, err := env.Dynamic.Resource(obsv1.KindMount.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, mount, metav1.UpdateOptions{})
	require.NoError(t, err)

	a := procActivities()
	a.INDI = &fixedResolver{addr: f.Addr}
	res, err := a.Deactivation(ctx, procInput(ns, kube.StepDeactivation, false))
	require.NoError(t, err, "the teardown goes on")
	require.Len(t, res.Actions, 1)
	assert.Equal(t, obsv1.RunSkipped, res.Actions[0].State)
	assert.Equal(t, "Mount east does not run: nothing to state: Parked", res.Actions[0].Summary)
	assert.Empty(t, f.Received(device, "TELESCOPE_PARK"), "nothing is sent to a driver that does not run")
}

func TestWithoutItsTelescopeActivationFailsAndDeactivationStillRunsTheDevices(t *testing.T) {
	ns := observatoryNamespace(t, "proc-no-telescope")
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Deactivation: []obsv1.ParkAction{parkJob("example.com/park:1")}}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	_, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: Telescope east is missing", app.Message())

	res, err := a.Deactivation(ctx, procInput(ns, kube.StepDeactivation, false))
	require.NoError(t, err)
	assert.Equal(t, "Deactivated Mount east", res.Summary)
	assert.Len(t, jobsOf(t, ns, obsv1.KindMount, "east"), 1)
}

// (A short name: see TestADomeReachesItsTargetAndARepeatSendsNothing.)
func TestACameraCoolsThenWarmsWithItsCoolerOff(t *testing.T) {
	const device = "CCD Simulator"
	ctx, c, addr := connectedSimulator(t, "indi_simulator_ccd", device)

	ns := observatoryNamespace(t, "proc-camera")
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec:       obsv1.TelescopeSpec{Observatory: "lab"},
	})
	createObject(t, obsv1.KindOpticalTrain, ns, &obsv1.OpticalTrain{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec:       obsv1.OpticalTrainSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}},
	})
	// The simulator moves half a degree a second.
	cam := createObject(t, obsv1.KindCamera, ns, &obsv1.Camera{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec: obsv1.CameraSpec{OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "east-main"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_ccd"}},
			CameraProcedures: obsv1.CameraProcedures{
				Activation:   []obsv1.CameraAction{{Cool: &obsv1.Temperature{Celsius: -1.5, Within: 0.5}}},
				Deactivation: []obsv1.CameraAction{{Warm: &obsv1.Temperature{Celsius: 0, Within: 0.5}}},
			}},
	})
	require.NoError(t, unstructured.SetNestedField(cam.Object, device, "status", "indiDevice"))
	_, err := env.Dynamic.Resource(obsv1.KindCamera.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, cam, metav1.UpdateOptions{})
	require.NoError(t, err)
	driverPod(t, ns, obsv1.KindCamera, "east-main")
	resolver := &fixedResolver{addr: addr}
	a := procActivities()
	a.INDI = resolver
	temperature := func() float64 {
		p, ok := c.Property(device, "CCD_TEMPERATURE")
		require.True(t, ok)
		v, _ := p.Number("CCD_TEMPERATURE_VALUE")
		return v
	}

	res, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	require.NoError(t, err)
	require.Len(t, res.Actions, 1)
	assert.Equal(t, "cool: -1.5", res.Actions[0].Action)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	assert.LessOrEqual(t, temperature(), -1.0)
	assert.Equal(t, "east-telescope", resolver.asked[0].Name, "a train's camera is on the telescope's server")

	deact := procInput(ns, kube.StepDeactivation, false)
	deact.Started = procStarted.Add(time.Hour)
	res, err = a.Deactivation(ctx, deact)
	require.NoError(t, err)
	assert.Equal(t, "warm: 0", res.Actions[0].Action)
	assert.Equal(t, obsv1.RunDone, res.Actions[0].State)
	assert.GreaterOrEqual(t, temperature(), -0.5)
	if cooler, ok := c.Property(device, "CCD_COOLER"); ok {
		assert.True(t, cooler.SwitchOn("COOLER_OFF"), "the cooler is off after the warm-up")
	}
}

func TestAStepHeartbeatsTheJobItWaitsOnAndStopsWhenCancelled(t *testing.T) {
	ns := observatoryNamespace(t, "proc-heartbeat")
	createLab(t, ns)
	tel := createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Activation: []obsv1.Action{jobAction("example.com/open-roof:1")},
		}},
	})
	holdJob(t, tel, "example.com/open-roof:1", 0)
	name := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, procStarted, 0)
	waiting := make(chan struct{})
	var once sync.Once
	every, record := heartbeatEvery, recordHeartbeat
	t.Cleanup(func() { heartbeatEvery, recordHeartbeat = every, record })
	heartbeatEvery, recordHeartbeat = 50*time.Millisecond, func(_ context.Context, what string) {
		if what == "Job "+name {
			once.Do(func() { close(waiting) })
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := procActivities().Activation(ctx, procInput(ns, kube.StepActivation, false))
		done <- err
	}()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("the step ended before it heartbeat its Job: %v", err)
	case <-time.After(procWait):
		t.Fatal("no heartbeat named the Job")
	}
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the step did not return when it was cancelled")
	}
}

func TestAMountThatItsDomeLockKeepsParkedFailsActivationWithAWarning(t *testing.T) {
	const device = "Telescope Simulator"
	f := inditest.NewFake(t)
	f.Device(device)
	f.Define(inditest.Switches(device, "TELESCOPE_PARK", indi.OneOfMany, []string{"PARK"}, "PARK", "UNPARK"))
	f.Handle(device, "TELESCOPE_PARK", func(f *inditest.Fake, _ indi.Property) {
		f.Update(device, "TELESCOPE_PARK", func(p *indi.Property) {
			p.State = indi.Alert
			p.Message = "[ERROR] Cannot unpark mount while dome is parked"
		})
	})
	ns := observatoryNamespace(t, "proc-unpark-refused")
	createLab(t, ns)
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec:       obsv1.TelescopeSpec{Observatory: "lab"},
	})
	mount := createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Activation: []obsv1.ParkAction{{State: obsv1.Unparked}}}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	require.NoError(t, unstructured.SetNestedField(mount.Object, device, "status", "indiDevice"))
	_, err := env.Dynamic.Resource(obsv1.KindMount.GroupVersionResource()).Namespace(ns).UpdateStatus(ctx, mount, metav1.UpdateOptions{})
	require.NoError(t, err)

	a := procActivities()
	a.INDI = &fixedResolver{addr: f.Addr}
	_, err = a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: Cannot unpark mount while dome is parked", app.Message())
	reasons := eventReasons(t, ns, obsv1.KindMount, "east")
	assert.Equal(t, corev1.EventTypeWarning, reasons[kube.ReasonMountUnparkRefused])
	assert.Equal(t, corev1.EventTypeWarning, reasons[kube.ReasonProcedureFailed])
}

func TestARetrySkipsTheDoneActionsAndRunsTheFailedOneAgain(t *testing.T) {
	ns := observatoryNamespace(t, "proc-retry")
	createLab(t, ns)
	tel := createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Activation: []obsv1.Action{jobAction("example.com/open-roof:1"), jobAction("example.com/focus:1")},
		}},
	})
	holdJobAt(t, tel, 1, "example.com/focus:1", 0)
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	in := procInput(ns, kube.StepActivation, false)
	done := make(chan error, 1)
	go func() {
		_, err := a.Activation(ctx, in)
		done <- err
	}()
	first := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, procStarted, 0)
	failedJob := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, procStarted, 1)
	failJobPod(t, ns, failedJob)
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatal("the step did not end after its second Job failed")
	}
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	var failed StepResult
	require.NoError(t, app.Details(&failed))
	require.Len(t, failed.Actions, 2)
	assert.Equal(t, obsv1.RunDone, failed.Actions[0].State)
	assert.Equal(t, obsv1.RunFailed, failed.Actions[1].State)

	retry := in
	retry.Started = procStarted.Add(time.Minute)
	retry.Actions = failed.Actions
	res, err := a.Activation(ctx, retry)
	require.NoError(t, err)
	require.Len(t, res.Actions, 2)
	assert.Equal(t, failed.Actions[0], res.Actions[0], "the Done action keeps its record")
	assert.Equal(t, obsv1.RunDone, res.Actions[1].State)
	var names []string
	for _, j := range jobsOf(t, ns, obsv1.KindTelescope, "east") {
		if j.DeletionTimestamp == nil {
			names = append(names, j.Name)
		}
	}
	second := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, retry.Started, 1)
	assert.ElementsMatch(t, []string{first, second}, names, "no new Job for the Done action; the failed one replaced")
}
