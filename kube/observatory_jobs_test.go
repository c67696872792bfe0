// Tests of a job action's Job and its outcome: its fields, the environment a job can
// trust, and the summary a failed Job leaves in the action's record.
package kube

import (
	"reflect"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

var obsTSince = time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)

func obsTJobInput() JobInput {
	return JobInput{
		Resource: ResourceID{Kind: obsv1.KindDome, Namespace: "observatory", Name: "lab", UID: "lab-uid"},
		Trigger:  "activation",
		Since:    obsTSince,
		Index:    1,
		Job: obsv1.Job{
			Image:   "registry.example/dome-tools:1",
			Command: []string{"/bin/check"},
			Args:    []string{"--shutter"},
			Env:     []obsv1.EnvVar{{Name: "MODE", Value: "strict"}},
		},
		Timeout:     90 * time.Second,
		Observatory: "lab",
		Server:      "lab-observatory",
	}
}

func TestAJobActionRunsOnceAsTheSpecSays(t *testing.T) {
	in := obsTJobInput()
	job, err := ProcedureJob(in)
	if err != nil {
		t.Fatal(err)
	}
	name := JobName(obsv1.KindDome, "lab", "activation", obsTSince, 1)
	if job.Name != name || job.Namespace != "observatory" || !strings.HasPrefix(name, "dome-lab-activation-") {
		t.Errorf("Job %s/%s, want %s", job.Namespace, job.Name, name)
	}
	obsTCheckOwner(t, job.Name, job.OwnerReferences, in.Resource)
	if !reflect.DeepEqual(job.Labels, JobLabels(name, in.Resource)) || job.Labels[LabelRole] != "job" {
		t.Errorf("labels %v", job.Labels)
	}
	if job.Annotations["observatory.liken.sh/trigger"] != "activation" {
		t.Errorf("annotations %v", job.Annotations)
	}
	s := job.Spec
	if *s.BackoffLimit != 0 || *s.ActiveDeadlineSeconds != 90 || *s.TTLSecondsAfterFinished != 3600 {
		t.Errorf("backoff %d, deadline %d, ttl %d", *s.BackoffLimit, *s.ActiveDeadlineSeconds, *s.TTLSecondsAfterFinished)
	}
	tpl := s.Template
	if !reflect.DeepEqual(tpl.Labels, PodTemplateLabels(name, RoleJob)) || len(tpl.Labels) != 3 {
		t.Errorf("pod template labels %v", tpl.Labels)
	}
	if tpl.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restart policy %s", tpl.Spec.RestartPolicy)
	}
	obsTCheckPodSpec(t, name, &tpl.Spec)
	if len(tpl.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(tpl.Spec.Containers))
	}
	c := tpl.Spec.Containers[0]
	if c.Name != "job" || c.Image != in.Job.Image || !reflect.DeepEqual(c.Command, in.Job.Command) || !reflect.DeepEqual(c.Args, in.Job.Args) {
		t.Errorf("the Job runs %s %s %v %v", c.Name, c.Image, c.Command, c.Args)
	}
	if c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		t.Errorf("termination message policy %s", c.TerminationMessagePolicy)
	}
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/tmp" || tpl.Spec.Volumes[0].EmptyDir == nil {
		t.Errorf("no emptyDir at /tmp: %+v", c.VolumeMounts)
	}
}

func TestAJobsDeadlineIsItsTimeoutInWholeSecondsOrTenMinutes(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		want    int64
	}{
		{0, 600},
		{-time.Second, 600},
		{500 * time.Millisecond, 1},
		{90*time.Second + time.Millisecond, 91},
		{2 * time.Hour, 7200},
	} {
		in := obsTJobInput()
		in.Timeout = tc.timeout
		job, err := ProcedureJob(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := *job.Spec.ActiveDeadlineSeconds; got != tc.want {
			t.Errorf("timeout %s: deadline %d, want %d", tc.timeout, got, tc.want)
		}
	}
}

func TestAJobNeedsAnImageAndAServer(t *testing.T) {
	in := obsTJobInput()
	in.Job.Image = ""
	if _, err := ProcedureJob(in); err == nil {
		t.Error("a Job without an image was built")
	}
	in = obsTJobInput()
	in.Server = ""
	if _, err := ProcedureJob(in); err == nil {
		t.Error("a Job without a server was built")
	}
}

func TestAJobsEnvironmentIsTheUsersLessClashesThenTheRunners(t *testing.T) {
	user := []obsv1.EnvVar{
		{Name: "MODE", Value: "strict"},
		{Name: "INDI_HOST", Value: "elsewhere"},
		{Name: "LIKEN_TELESCOPE", Value: "fake"},
		{Name: "indi_port", Value: "kept: names are case-sensitive"},
		{Name: "LIKEN_RESOURCE", Value: "fake"},
	}
	for _, tc := range []struct {
		name      string
		resource  ResourceID
		telescope string
		server    string
		want      []corev1.EnvVar
	}{
		{"a site device", ResourceID{Kind: obsv1.KindDome, Namespace: "observatory", Name: "lab"}, "", "lab-observatory", []corev1.EnvVar{
			{Name: "MODE", Value: "strict"},
			{Name: "indi_port", Value: "kept: names are case-sensitive"},
			{Name: "LIKEN_OBSERVATORY", Value: "lab"},
			{Name: "LIKEN_RESOURCE", Value: "Dome/lab"},
			{Name: "LIKEN_TRIGGER", Value: "triggers[0]"},
			{Name: "INDI_HOST", Value: "lab-observatory.observatory.svc"},
			{Name: "INDI_PORT", Value: "7624"},
		}},
		{"a telescope device", ResourceID{Kind: obsv1.KindCamera, Namespace: "observatory", Name: "east-main"}, "east", "east-telescope", []corev1.EnvVar{
			{Name: "MODE", Value: "strict"},
			{Name: "indi_port", Value: "kept: names are case-sensitive"},
			{Name: "LIKEN_OBSERVATORY", Value: "lab"},
			{Name: "LIKEN_TELESCOPE", Value: "east"},
			{Name: "LIKEN_RESOURCE", Value: "Camera/east-main"},
			{Name: "LIKEN_TRIGGER", Value: "triggers[0]"},
			{Name: "INDI_HOST", Value: "east-telescope.observatory.svc"},
			{Name: "INDI_PORT", Value: "7624"},
		}},
	} {
		in := JobInput{
			Resource: tc.resource, Trigger: "triggers[0]", Job: obsv1.Job{Image: "x", Env: user},
			Observatory: "lab", Telescope: tc.telescope, Server: tc.server,
		}
		if got := ProcedureJobEnv(in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\ngot  %v\nwant %v", tc.name, got, tc.want)
		}
		job, err := ProcedureJob(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := job.Spec.Template.Spec.Containers[0].Env; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: the container's environment is %v", tc.name, got)
		}
	}
}

func obsTFinishedJob(conds ...batchv1.JobCondition) *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "dome-lab-activation-0123456789"}, Status: batchv1.JobStatus{Conditions: conds}}
}

func obsTCond(typ batchv1.JobConditionType, reason, msg string) batchv1.JobCondition {
	return batchv1.JobCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason, Message: msg}
}

func obsTJobPod(code int32, reason, msg string, finished time.Time, last bool) corev1.Pod {
	term := &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, Message: msg, FinishedAt: metav1.NewTime(finished)}
	cs := corev1.ContainerStatus{Name: "job"}
	if last {
		cs.LastTerminationState.Terminated = term
	} else {
		cs.State.Terminated = term
	}
	return corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{cs}}}
}

func TestAJobsOutcomeAndSummaryFollowItsConditionsAndPods(t *testing.T) {
	failed := obsTCond(batchv1.JobFailed, "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	long := strings.Repeat("x", 200) + "\n" + strings.Repeat("é", 200) + "the end\n"
	tail := obsTail(long, 300)
	for _, tc := range []struct {
		name    string
		job     *batchv1.Job
		pods    []corev1.Pod
		state   obsv1.RunState
		summary string
	}{
		{"a Job without conditions runs", obsTFinishedJob(), nil, obsv1.RunRunning, ""},
		{"a Job about to fail still runs", obsTFinishedJob(obsTCond(batchv1.JobFailureTarget, "DeadlineExceeded", "")), nil, obsv1.RunRunning, ""},
		{"a false Complete is not done", obsTFinishedJob(batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionFalse}), nil, obsv1.RunRunning, ""},
		{"a complete Job is done", obsTFinishedJob(obsTCond(batchv1.JobSuccessCriteriaMet, "", ""), obsTCond(batchv1.JobComplete, "", "")),
			[]corev1.Pod{obsTJobPod(0, "Completed", "", obsTSince, false)}, obsv1.RunDone, "Job dome-lab-activation-0123456789 completed"},
		{"a failed container gives its exit code, reason and message", obsTFinishedJob(failed),
			[]corev1.Pod{obsTJobPod(2, "Error", "shutter stuck\n", obsTSince, false)}, obsv1.RunFailed,
			"Job dome-lab-activation-0123456789 failed: exit code 2 (Error): shutter stuck"},
		{"a container without reason or message gives its exit code", obsTFinishedJob(failed),
			[]corev1.Pod{obsTJobPod(137, "", "", obsTSince, false)}, obsv1.RunFailed,
			"Job dome-lab-activation-0123456789 failed: exit code 137"},
		{"only the end of a long message is kept, on a whole character", obsTFinishedJob(failed),
			[]corev1.Pod{obsTJobPod(1, "Error", long, obsTSince, false)}, obsv1.RunFailed,
			"Job dome-lab-activation-0123456789 failed: exit code 1 (Error): " + tail},
		{"the container that ended last speaks", obsTFinishedJob(failed),
			[]corev1.Pod{obsTJobPod(3, "Error", "first", obsTSince, false), obsTJobPod(4, "OOMKilled", "second", obsTSince.Add(time.Minute), true), obsTJobPod(5, "Error", "before", obsTSince.Add(-time.Minute), false)},
			obsv1.RunFailed, "Job dome-lab-activation-0123456789 failed: exit code 4 (OOMKilled): second"},
		{"without a terminated container the condition speaks", obsTFinishedJob(obsTCond(batchv1.JobFailed, "DeadlineExceeded", "Job was active longer than specified deadline")),
			[]corev1.Pod{{Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "job", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}}}}}},
			obsv1.RunFailed, "Job dome-lab-activation-0123456789 failed: DeadlineExceeded: Job was active longer than specified deadline"},
		{"without pods the condition speaks", obsTFinishedJob(failed), nil, obsv1.RunFailed,
			"Job dome-lab-activation-0123456789 failed: BackoffLimitExceeded: Job has reached the specified backoff limit"},
	} {
		state, summary := JobOutcome(tc.job, tc.pods)
		if state != tc.state || summary != tc.summary {
			t.Errorf("%s:\ngot  %s %q\nwant %s %q", tc.name, state, summary, tc.state, tc.summary)
		}
	}
	if len(tail) > 300 || !strings.HasSuffix(tail, "the end") || !strings.HasPrefix(tail, "é") {
		t.Errorf("the tail is %d bytes: %q", len(tail), tail)
	}
}
