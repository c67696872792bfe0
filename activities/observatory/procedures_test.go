// Integration tests of the Job actions of the Activation and Deactivation steps against the real
// API server, its Job controller and kwok's fake node (which completes a Job's pod by itself):
// create or adopt, fail, time out, heartbeat, retry. What the steps create and write is read
// back from the server; the helpers here serve the other procedures tests too (their order in
// procedures_order_test.go, the device actions in procedures_devices_test.go). (The package's
// TestMain, in main_test.go, starts the stack.)
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
		Observatory: "lab", Step: step, Started: procStarted, IncludesObservatory: site}
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

// createTelescope creates the Telescope east of the Observatory lab, with the activation
// procedure actions if any.
func createTelescope(t *testing.T, ns string, actions ...obsv1.Action) *unstructured.Unstructured {
	t.Helper()
	return createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec:       obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{Activation: actions}},
	})
}

func TestAJobActionCreatesOneJobAndARestartAdoptsItInsteadOfDuplicatingIt(t *testing.T) {
	ns := observatoryNamespace(t, "proc-job")
	createLab(t, ns)
	tel := createTelescope(t, ns, jobAction("example.com/open-roof:1",
		obsv1.EnvVar{Name: "ROOF", Value: "north"}, obsv1.EnvVar{Name: kube.EnvTrigger, Value: "mine"}))
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

// activationWhoseJobFails runs Activation while the pod of the Telescope east's Job at index
// exits with code 3 (failJobPod), and returns that Job's name and the step's error. what names
// the Job in the failure of a step that does not end.
func activationWhoseJobFails(t *testing.T, ctx context.Context, a *Activities, in StepInput, index int, what string) (string, *temporal.ApplicationError) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := a.Activation(ctx, in)
		done <- err
	}()
	job := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, procStarted, index)
	failJobPod(t, in.Namespace, job)
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatal("the step did not end after " + what + " failed")
	}
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	return job, app
}

func TestAJobWhosePodExitsWithCodeThreeFailsTheStepAndARetryReplacesIt(t *testing.T) {
	ns := observatoryNamespace(t, "proc-job-fail")
	createLab(t, ns)
	tel := createTelescope(t, ns, jobAction("example.com/open-roof:1"))
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()
	holdJob(t, tel, "example.com/open-roof:1", 0)

	in := procInput(ns, kube.StepActivation, false)
	first, app := activationWhoseJobFails(t, ctx, a, in, 0, "its Job")
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

func TestAJobPastItsTimeoutFailsTheStepAsTimedOut(t *testing.T) {
	ns := observatoryNamespace(t, "proc-job-timeout")
	createLab(t, ns)
	act := jobAction("example.com/slow:1")
	act.Timeout = "2s"
	tel := createTelescope(t, ns, act)
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

func TestAnActionWhoseRequiredConditionDoesNotHoldFailsWithoutStarting(t *testing.T) {
	ns := observatoryNamespace(t, "proc-requires")
	createLab(t, ns)
	act := jobAction("example.com/open-roof:1")
	act.Requires = []obsv1.ConditionRef{{Kind: obsv1.KindObservatory, Name: "lab", Type: "Safe"}}
	createTelescope(t, ns, act)
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

func TestAStepHeartbeatsTheJobItWaitsOnAndStopsWhenCancelled(t *testing.T) {
	ns := observatoryNamespace(t, "proc-heartbeat")
	createLab(t, ns)
	tel := createTelescope(t, ns, jobAction("example.com/open-roof:1"))
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

func TestARetrySkipsTheDoneActionsAndRunsTheFailedOneAgain(t *testing.T) {
	ns := observatoryNamespace(t, "proc-retry")
	createLab(t, ns)
	tel := createTelescope(t, ns, jobAction("example.com/open-roof:1"), jobAction("example.com/focus:1"))
	holdJobAt(t, tel, 1, "example.com/focus:1", 0)
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	in := procInput(ns, kube.StepActivation, false)
	first := kube.JobName(obsv1.KindTelescope, "east", kube.TriggerActivation, procStarted, 0)
	_, app := activationWhoseJobFails(t, ctx, a, in, 1, "its second Job")
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
