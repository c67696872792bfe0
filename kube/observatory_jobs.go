// A job action's Job, and what its end means for the action. The Job is owned by the resource
// whose procedure runs it and is named from the run (JobName), so a restarted runner adopts
// the Job it created. It runs once (no retries: an action is retried only when a person asks),
// for at most the action's timeout, and stays an hour after it ends so its logs can be read.
// The container learns where it runs from its environment: the observatory, the telescope,
// the resource and trigger, and the INDI server to talk to.
package kube

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const (
	// JobContainer is a job action's one container.
	JobContainer = "job"
	// DefaultJobTimeout is a job action's timeout when it names none.
	DefaultJobTimeout = 10 * time.Minute
	// JobTTL is how long a finished Job stays before Kubernetes deletes it.
	JobTTL = time.Hour
	// JobMessageTail is how much of the end of a failed container's termination message the
	// summary keeps: enough for the last lines of a log, short enough for a status.
	JobMessageTail = 300
)

// The variables the runner sets in a job's container. A user's variable of the same name is
// dropped, so a job can trust them.
const (
	EnvObservatory = "LIKEN_OBSERVATORY"
	EnvTelescope   = "LIKEN_TELESCOPE"
	EnvResource    = "LIKEN_RESOURCE"
	EnvTrigger     = "LIKEN_TRIGGER"
	EnvINDIHost    = "INDI_HOST"
	EnvINDIPort    = "INDI_PORT"
)

var obsRunnerEnv = map[string]bool{
	EnvObservatory: true, EnvTelescope: true, EnvResource: true,
	EnvTrigger: true, EnvINDIHost: true, EnvINDIPort: true,
}

// JobInput is one run of one job action.
type JobInput struct {
	// Resource is whose procedure runs the action; it owns the Job.
	Resource ResourceID
	// Trigger, Since and Index say which run this is: the procedure (activation,
	// deactivation, triggers[i]), when the run became due, and the action's index in it.
	Trigger string
	Since   time.Time
	Index   int
	// Job is the action's job verb.
	Job obsv1.Job
	// Timeout is the action's timeout; DefaultJobTimeout when zero.
	Timeout time.Duration
	// Observatory is the resource's observatory; Telescope its telescope, empty for the
	// observatory's own resources.
	Observatory, Telescope string
	// Server is the INDI server pod that serves the resource, such as lab-observatory.
	Server string
}

// ProcedureJobEnv is the job container's environment: the user's variables less those the
// runner sets, then the runner's.
func ProcedureJobEnv(in JobInput) []corev1.EnvVar {
	env := make([]corev1.EnvVar, 0, len(in.Job.Env)+6)
	for _, v := range in.Job.Env {
		if !obsRunnerEnv[v.Name] {
			env = append(env, corev1.EnvVar{Name: v.Name, Value: v.Value})
		}
	}
	env = append(env, corev1.EnvVar{Name: EnvObservatory, Value: in.Observatory})
	if in.Telescope != "" {
		env = append(env, corev1.EnvVar{Name: EnvTelescope, Value: in.Telescope})
	}
	return append(env,
		corev1.EnvVar{Name: EnvResource, Value: in.Resource.String()},
		corev1.EnvVar{Name: EnvTrigger, Value: in.Trigger},
		corev1.EnvVar{Name: EnvINDIHost, Value: ServerHost(in.Server, in.Resource.Namespace)},
		corev1.EnvVar{Name: EnvINDIPort, Value: strconv.Itoa(int(ServerPort))},
	)
}

// ProcedureJob is the batch/v1 Job of one run of a job action.
func ProcedureJob(in JobInput) (*batchv1.Job, error) {
	switch {
	case in.Job.Image == "":
		return nil, fmt.Errorf("%s %s: a job needs an image", in.Resource, in.Trigger)
	case in.Server == "":
		return nil, fmt.Errorf("%s %s: a job needs the INDI server it talks to", in.Resource, in.Trigger)
	}
	timeout := in.Timeout
	if timeout <= 0 {
		timeout = DefaultJobTimeout
	}
	name := JobName(in.Resource.Kind, in.Resource.Name, in.Trigger, in.Since, in.Index)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       in.Resource.Namespace,
			Labels:          JobLabels(name, in.Resource),
			Annotations:     map[string]string{AnnotationTrigger: in.Trigger},
			OwnerReferences: in.Resource.OwnerReferences(),
		},
		Spec: batchv1.JobSpec{
			// One try: a failed action fails its step, and only a person's retry runs it
			// again.
			BackoffLimit: ptr.To(int32(0)),
			// Whole seconds, rounded up, so a timeout under a second still lets the job start.
			ActiveDeadlineSeconds:   ptr.To(int64(math.Ceil(timeout.Seconds()))),
			TTLSecondsAfterFinished: ptr.To(int32(JobTTL / time.Second)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: PodTemplateLabels(name, RoleJob)},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr.To(false),
					EnableServiceLinks:           ptr.To(false),
					SecurityContext:              obsPodSecurity(),
					Containers: []corev1.Container{{
						Name:    JobContainer,
						Image:   in.Job.Image,
						Command: in.Job.Command,
						Args:    in.Job.Args,
						Env:     ProcedureJobEnv(in),
						// A script that dies without a termination message still leaves the
						// end of its log for the summary.
						TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
						// The root filesystem is read-only, as in every observatory pod; /tmp
						// is where a job may write.
						VolumeMounts:    []corev1.VolumeMount{{Name: obsTmpVolume, MountPath: "/tmp"}},
						SecurityContext: obsContainerSecurity(),
					}},
					Volumes: []corev1.Volume{obsEmptyDir(obsTmpVolume)},
				},
			},
		},
	}, nil
}

// JobOutcome is what a Job's state means for its action: Done when it is Complete, Failed
// when it has Failed, with a summary that says why, and Running until either. pods are the
// Job's pods; the summary takes the exit code, reason and the end of the termination message
// of the container that ended last, or else the Failed condition's reason and message (a Job
// that never ran a container, or whose pods are gone).
func JobOutcome(job *batchv1.Job, pods []corev1.Pod) (obsv1.RunState, string) {
	var failed *batchv1.JobCondition
	for i, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return obsv1.RunDone, "Job " + job.Name + " completed"
		case batchv1.JobFailed:
			failed = &job.Status.Conditions[i]
		}
	}
	if failed == nil {
		return obsv1.RunRunning, ""
	}
	if t := obsLastTermination(pods); t != nil {
		s := fmt.Sprintf("Job %s failed: exit code %d", job.Name, t.ExitCode)
		if t.Reason != "" {
			s += " (" + t.Reason + ")"
		}
		if msg := obsTail(t.Message, JobMessageTail); msg != "" {
			s += ": " + msg
		}
		return obsv1.RunFailed, s
	}
	s := "Job " + job.Name + " failed"
	for _, part := range []string{failed.Reason, failed.Message} {
		if part != "" {
			s += ": " + part
		}
	}
	return obsv1.RunFailed, s
}

// obsLastTermination is the job container's termination that ended last among pods, or nil.
func obsLastTermination(pods []corev1.Pod) *corev1.ContainerStateTerminated {
	var last *corev1.ContainerStateTerminated
	for i := range pods {
		for j := range pods[i].Status.ContainerStatuses {
			cs := &pods[i].Status.ContainerStatuses[j]
			if cs.Name != JobContainer {
				continue
			}
			t := cs.State.Terminated
			if t == nil {
				t = cs.LastTerminationState.Terminated
			}
			if t != nil && (last == nil || last.FinishedAt.Before(&t.FinishedAt)) {
				last = t
			}
		}
	}
	return last
}

// obsTail is at most the last n bytes of s, starting on a whole character, trimmed of space.
func obsTail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	start := len(s) - n
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return strings.TrimSpace(s[start:])
}
