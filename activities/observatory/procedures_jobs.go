// The Job actions of the procedures: a Job named from the run (its trigger, the step's start
// and the action's index), so a restarted worker adopts the Job it created, and a failed one
// deleted when a retry runs the action again under its new name.
package observatory

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// runJobAction creates or adopts the action's Job and waits for its end.
func (a *Activities) runJobAction(ctx context.Context, in StepInput, trigger string, r *procResource, index int,
	act procAction, prior *obsv1.ActionRecord, hb *heartbeat) actionEnd {
	timeout, err := act.timeout()
	if err != nil {
		return actionEnd{state: obsv1.RunFailed, summary: err.Error(), errType: ErrStepFailed}
	}
	job, err := kube.ProcedureJob(kube.JobInput{
		Resource: r.id, Trigger: trigger, Since: in.Started, Index: index, Job: *act.Job,
		Timeout: timeout, Observatory: r.observatory, Telescope: r.telescope, Server: r.server,
	})
	if err != nil {
		return actionEnd{state: obsv1.RunFailed, summary: err.Error(), errType: ErrStepFailed}
	}
	jobs := a.Kube.BatchV1().Jobs(r.id.Namespace)
	if prior != nil && prior.State == obsv1.RunFailed {
		if err := a.deleteFailedJobs(ctx, r, trigger, job.Name); err != nil {
			return actionEnd{err: err}
		}
	}
	cur, err := jobs.Create(ctx, job, metav1.CreateOptions{FieldManager: observatoryFieldManager})
	if apierrors.IsAlreadyExists(err) {
		cur, err = jobs.Get(ctx, job.Name, metav1.GetOptions{})
		if err == nil && !procOwnedBy(cur, r.id.UID) {
			return actionEnd{state: obsv1.RunFailed, errType: ErrStepFailed,
				summary: fmt.Sprintf("Job %s exists and does not belong to %s", job.Name, r.id)}
		}
	}
	if err != nil {
		return actionEnd{err: fmt.Errorf("create the Job %s/%s: %w", job.Namespace, job.Name, err)}
	}
	started := cur.CreationTimestamp.Time
	if started.IsZero() {
		started = a.now()
	}
	hb.set(r.id.String(), "Job "+job.Name)
	defer hb.set(r.id.String(), "")
	tick := time.NewTicker(jobPollEvery)
	defer tick.Stop()
	for {
		state, summary := kube.JobOutcome(cur, nil)
		if state == obsv1.RunFailed {
			pods, err := a.Kube.CoreV1().Pods(r.id.Namespace).List(ctx, metav1.ListOptions{
				LabelSelector: labels.Set{batchv1.JobNameLabel: cur.Name}.String()})
			if err != nil {
				return actionEnd{err: fmt.Errorf("list the pods of the Job %s: %w", cur.Name, err)}
			}
			state, summary = kube.JobOutcome(cur, pods.Items)
			if jobTimedOut(cur) {
				return actionEnd{state: state, summary: procTimedOut(timeout, summary), errType: ErrStepTimedOut}
			}
			return actionEnd{state: state, summary: summary, errType: ErrStepFailed}
		}
		if state == obsv1.RunDone {
			return actionEnd{state: state, summary: summary}
		}
		if a.now().Sub(started) > timeout+jobGrace {
			return actionEnd{state: obsv1.RunFailed, errType: ErrStepTimedOut,
				summary: procTimedOut(timeout, "Job "+cur.Name+" has not finished")}
		}
		select {
		case <-ctx.Done():
			return actionEnd{err: ctx.Err()}
		case <-tick.C:
		}
		if cur, err = jobs.Get(ctx, job.Name, metav1.GetOptions{}); err != nil {
			return actionEnd{err: fmt.Errorf("read the Job %s/%s: %w", job.Namespace, job.Name, err)}
		}
	}
}

func procTimedOut(d time.Duration, what string) string {
	return fmt.Sprintf("%s after %s: %s", kube.TimedOutPrefix, kube.ShortDuration(d), what)
}

// jobTimedOut says the Job failed because its activeDeadlineSeconds passed.
func jobTimedOut(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue && c.Reason == batchv1.JobReasonDeadlineExceeded {
			return true
		}
	}
	return false
}

func procOwnedBy(obj metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == uid
}

// deleteFailedJobs deletes the failed Jobs of r's trigger other than keep: a retry runs a
// failed job action again under a new name, and the old run goes (its pods with it).
func (a *Activities) deleteFailedJobs(ctx context.Context, r *procResource, trigger, keep string) error {
	jobs := a.Kube.BatchV1().Jobs(r.id.Namespace)
	list, err := jobs.List(ctx, metav1.ListOptions{LabelSelector: labels.Set{
		kube.LabelRole: string(kube.RoleJob), kube.LabelKind: string(r.id.Kind), kube.LabelResource: r.id.Name,
	}.String()})
	if err != nil {
		return fmt.Errorf("list the Jobs of %s: %w", r.id, err)
	}
	for i := range list.Items {
		j := &list.Items[i]
		if j.Name == keep || j.Annotations[kube.AnnotationTrigger] != trigger || !procOwnedBy(j, r.id.UID) {
			continue
		}
		if state, _ := kube.JobOutcome(j, nil); state != obsv1.RunFailed {
			continue
		}
		err := jobs.Delete(ctx, j.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete the failed Job %s/%s: %w", j.Namespace, j.Name, err)
		}
		logFor(ctx).Info("deleted a failed Job to run it again", "namespace", j.Namespace, "job", j.Name)
	}
	return nil
}
