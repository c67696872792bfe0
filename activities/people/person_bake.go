// Baking: reading an nfs:// or claim:// picture through a baker pod. The worker cannot mount
// a share, so it starts a pod of its own image that mounts the file read-only, waits for the
// pod to finish, reads the one JSON line the pod printed, writes the status and deletes the
// pod. The pod's name is fixed per Person, so a retry (on this worker or another) adopts the
// pod already running instead of starting a second one, and the deadline is counted from the
// pod's creation, so a retry does not restart the clock.
package people

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures"
	"liken.sh/runner/pictures/avatar"
)

// bakePoll is how often a bake that waits looks at its Person (deleted? a new avatar?) and
// heartbeats, when the pod itself has nothing new. Well under the workflow's 20 s heartbeat
// timeout, and a handful of reads per bake.
const bakePoll = 3 * time.Second

// BakePerson reads the Person's nfs:// or claim:// picture with a baker pod and writes the
// status, as SyncPerson does for the other sources. It heartbeats while the pod runs. A Person
// deleted meanwhile ends the bake (the pod is deleted, the outcome is Gone); a Person whose
// avatar changed meanwhile ends it without a write, for the next pass to answer.
func (a *Activities) BakePerson(ctx context.Context, in PersonPass) (PersonOutcome, error) {
	cfg := a.people()
	p, u, err := a.getPerson(ctx, in.Name)
	if apierrors.IsNotFound(err) {
		return PersonOutcome{Gone: true}, nil
	}
	if err != nil {
		return PersonOutcome{}, err
	}
	out := outcomeOf(p)
	src, perr := avatar.ParseSource(p.Spec.Avatar)
	if perr != nil || (src.Kind != avatar.KindNFS && src.Kind != avatar.KindClaim) || !kube.AvatarReadDue(p, in.Recheck, false) {
		// The avatar changed since the pass that asked for this bake; that change woke the
		// workflow, and its next pass answers it.
		return out, nil
	}
	checked := p.Annotations[kube.AnnotationCheckAvatar]
	nsFound, claimFound := true, true
	if src.Kind == avatar.KindClaim {
		if nsFound, claimFound, err = a.claimThere(ctx, src); err != nil {
			return out, err
		}
	}
	if why := bakeBlocker(src, nsFound, claimFound, cfg.BakerImage); why != "" {
		return a.finish(ctx, u, p, kube.AvatarRead{Source: p.Spec.Avatar, Reason: avatar.ReasonBakeFailed, Message: why}, checked, out)
	}
	want, err := kube.BakerPod(kube.BakerPodInput{
		Person: p.Name, PersonUID: p.UID, Avatar: p.Spec.Avatar, Source: src, Checked: checked,
		Image: cfg.BakerImage, OperatorNamespace: cfg.OperatorNamespace,
	})
	if err != nil {
		return out, err
	}

	pod, end, refused, err := a.runBaker(ctx, p, want, cfg.BakeDeadline)
	switch {
	case err != nil:
		return out, err
	case refused != nil:
		return a.finish(ctx, u, p, *refused, checked, out)
	}
	var read kube.AvatarRead
	switch end {
	case bakeGone:
		return PersonOutcome{Gone: true}, a.deletePod(ctx, pod)
	case bakeSuperseded:
		return out, a.deletePod(ctx, pod)
	case bakeTimedOut:
		read = kube.AvatarRead{Source: p.Spec.Avatar, Reason: avatar.ReasonBakeFailed,
			Message: fmt.Sprintf("the baker pod %s/%s did not finish within %s", pod.Namespace, pod.Name, cfg.BakeDeadline)}
	case bakeFinished:
		if read, err = a.bakeResult(ctx, p, pod); err != nil {
			return out, err
		}
	}
	return a.writeBake(ctx, in.Name, out, pod, read)
}

// runBaker starts or adopts the baker pod and waits until it ends. Something may delete the
// pod first (an eviction, a person, a fake kubelet's late delete of an earlier pod of the same
// name): another pod answers instead, a few times over. refused is a pod that could not be
// created for a reason the user can fix.
func (a *Activities) runBaker(ctx context.Context, p *peoplev1.Person, want *corev1.Pod, deadline time.Duration) (*corev1.Pod, bakeEnd, *kube.AvatarRead, error) {
	for tries := 1; ; tries++ {
		pod, refused, err := a.startBaker(ctx, want, deadline)
		if err != nil || refused != nil {
			return nil, 0, refused, err
		}
		pod, end, err := a.awaitBaker(ctx, p, pod, deadline)
		if err != nil || end != bakeVanished {
			return pod, end, nil, err
		}
		if tries == maxBakerStarts {
			return pod, end, nil, fmt.Errorf("the baker pod %s/%s was deleted before it finished, %d times", pod.Namespace, pod.Name, tries)
		}
		logFor(ctx).Warn("the baker pod was deleted before it finished; starting another", "pod", pod.Namespace+"/"+pod.Name)
	}
}

// writeBake writes what the pod read. The status is written against the Person as it is now,
// and for the check-avatar value the pod was started for: a newer value is still due, and the
// next pass reads it. The pod is deleted once its answer is written, or not wanted.
func (a *Activities) writeBake(ctx context.Context, name string, out PersonOutcome, pod *corev1.Pod, read kube.AvatarRead) (PersonOutcome, error) {
	p, u, err := a.getPerson(ctx, name)
	switch {
	case apierrors.IsNotFound(err) || (err == nil && string(p.UID) != out.UID):
		return PersonOutcome{Gone: true}, a.deletePod(ctx, pod)
	case err != nil:
		return out, err
	case p.Spec.Avatar != pod.Annotations[kube.AnnotationSource]:
		return outcomeOf(p), a.deletePod(ctx, pod)
	}
	out, err = a.finish(ctx, u, p, read, pod.Annotations[kube.AnnotationChecked], outcomeOf(p))
	if err != nil {
		// The pod stays, so the retry adopts it and reads the same result again.
		return out, err
	}
	return out, a.deletePod(ctx, pod)
}

// bakeBlocker says what keeps a bake from starting, in the order that helps a person fix it:
// a claim's namespace that does not exist, then its claim, and only then a worker that does
// not know which image bakes. Empty: nothing does.
func bakeBlocker(src avatar.Source, nsFound, claimFound bool, image string) string {
	switch {
	case src.Kind == avatar.KindClaim && !nsFound:
		return fmt.Sprintf("the namespace %s does not exist", src.Namespace)
	case src.Kind == avatar.KindClaim && !claimFound:
		return fmt.Sprintf("the PersistentVolumeClaim %s/%s does not exist: create it, or name another claim in claim://<namespace>/<claim>/<path>", src.Namespace, src.Claim)
	case image == "":
		return errNoImage.Error()
	}
	return ""
}

// claimThere looks for a claim:// source's namespace and claim. A worker whose RBAC predates
// these reads cannot tell, and goes on as if both were there: the pod's start tells.
func (a *Activities) claimThere(ctx context.Context, src avatar.Source) (nsFound, claimFound bool, err error) {
	_, err = a.Kube.CoreV1().Namespaces().Get(ctx, src.Namespace, metav1.GetOptions{})
	if nsFound, err = found(err, "namespace "+src.Namespace); err != nil || !nsFound {
		return nsFound, false, err
	}
	_, err = a.Kube.CoreV1().PersistentVolumeClaims(src.Namespace).Get(ctx, src.Claim, metav1.GetOptions{})
	claimFound, err = found(err, "PersistentVolumeClaim "+src.Namespace+"/"+src.Claim)
	return true, claimFound, err
}

// found is what a Get of what says: there, or not to be told (Forbidden, read as there);
// NotFound; or an error.
func found(err error, what string) (bool, error) {
	switch {
	case err == nil || apierrors.IsForbidden(err):
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	}
	return false, fmt.Errorf("read the %s: %w", what, err)
}

// startBaker creates the baker pod, or adopts the one already there when it is for the same
// Person, source and check and can still give a fresh answer (activities.EnsureObject). Any
// other baker pod of that name is stale: it is deleted and replaced. A pod that cannot be
// created for a reason the user can fix (a claim's namespace that does not exist, a pod of
// that name the people side did not make) comes back as a failed read.
func (a *Activities) startBaker(ctx context.Context, want *corev1.Pod, deadline time.Duration) (*corev1.Pod, *kube.AvatarRead, error) {
	var notOurs error
	pod, err := activities.EnsureObject(ctx, a.Kube.CoreV1().Pods(want.Namespace), want, activities.Adopting[*corev1.Pod]{
		Kind: "baker pod", Manager: fieldManager,
		Settle: func(_ context.Context, cur *corev1.Pod) (activities.Adoption, error) {
			if adoptable(cur, want, a.now(), deadline) {
				return activities.Adopted, nil
			}
			return activities.ReplaceIt, nil
		},
		NotOurs: func(kind, ns, name string) error {
			notOurs = fmt.Errorf("a pod named %s exists in %s that the %s did not create; delete or rename it", name, ns, kube.PeopleComponent)
			return notOurs
		},
	})
	refuse := func(format string, args ...any) (*corev1.Pod, *kube.AvatarRead, error) {
		return nil, &kube.AvatarRead{Source: want.Annotations[kube.AnnotationSource], Reason: avatar.ReasonBakeFailed, Message: fmt.Sprintf(format, args...)}, nil
	}
	switch {
	case err == nil:
		return pod, nil, nil
	case notOurs != nil && errors.Is(err, notOurs):
		return refuse("%v", notOurs)
	case apierrors.IsNotFound(err):
		// Admission answers a pod in a namespace that does not exist with NotFound.
		return refuse("the namespace %s does not exist", want.Namespace)
	case apierrors.IsForbidden(err) || apierrors.IsInvalid(err):
		return refuse("the baker pod %s/%s could not be created: %v", want.Namespace, want.Name, err)
	}
	return nil, nil, fmt.Errorf("create the baker pod %s/%s: %w", want.Namespace, want.Name, err)
}

// adoptable tells whether a pod found under the baker's name can answer this bake: it is for
// the same Person (same UID), source and check-avatar value, is not being deleted, and, if it
// has finished, finished recently enough that its answer is not an old one.
func adoptable(cur, want *corev1.Pod, now time.Time, deadline time.Duration) bool {
	if cur.DeletionTimestamp != nil {
		return false
	}
	for _, k := range []string{kube.AnnotationPerson, kube.AnnotationSource, kube.AnnotationChecked} {
		if cur.Annotations[k] != want.Annotations[k] {
			return false
		}
	}
	if ownerUID(&want.ObjectMeta) != ownerUID(&cur.ObjectMeta) {
		return false
	}
	return !podFinished(cur) || now.Sub(cur.CreationTimestamp.Time) <= deadline
}

func ownerUID(m *metav1.ObjectMeta) string {
	for _, o := range m.OwnerReferences {
		if o.Kind == peoplev1.PersonKind.Kind {
			return string(o.UID)
		}
	}
	return ""
}

func podFinished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
}

type bakeEnd int

const (
	bakeFinished   bakeEnd = iota // the pod succeeded or failed; its log holds the answer
	bakeTimedOut                  // the deadline passed first
	bakeGone                      // the Person was deleted (or replaced by another of its name)
	bakeSuperseded                // the Person's avatar changed; this answer is not wanted
	bakeVanished                  // the pod was deleted before it finished
)

// maxBakerStarts bounds how many pods one bake starts when its pods keep being deleted.
const maxBakerStarts = 3

// awaitBaker waits until the pod finishes or its deadline passes, heartbeating, and looking at
// the Person between the pod's changes.
func (a *Activities) awaitBaker(ctx context.Context, p *peoplev1.Person, pod *corev1.Pod, deadline time.Duration) (*corev1.Pod, bakeEnd, error) {
	at := pod.CreationTimestamp.Add(deadline)
	ref := pod.Namespace + "/" + pod.Name
	for {
		activities.RecordHeartbeat(ctx, ref)
		cur, _, err := a.getPerson(ctx, p.Name)
		switch {
		case apierrors.IsNotFound(err) || (err == nil && cur.UID != p.UID):
			return pod, bakeGone, nil
		case err != nil:
			return pod, 0, err
		case cur.Spec.Avatar != pod.Annotations[kube.AnnotationSource]:
			return pod, bakeSuperseded, nil
		}
		if podFinished(pod) {
			return pod, bakeFinished, nil
		}
		left := at.Sub(a.now())
		if left <= 0 {
			return pod, bakeTimedOut, nil
		}
		next, err := a.nextPodState(ctx, pod, min(left, bakePoll))
		if err != nil {
			return pod, 0, err
		}
		if next == nil {
			// Somebody deleted the pod. The Person may be gone (the garbage collector follows
			// the owner reference); if not, another pod is started.
			cur, _, err := a.getPerson(ctx, p.Name)
			switch {
			case apierrors.IsNotFound(err) || (err == nil && cur.UID != p.UID):
				return pod, bakeGone, nil
			case err != nil:
				return pod, 0, err
			}
			return pod, bakeVanished, nil
		}
		pod = next
	}
}

// nextPodState waits up to d for the pod to change, and returns it as it is then; nil when it
// is gone.
func (a *Activities) nextPodState(ctx context.Context, pod *corev1.Pod, d time.Duration) (*corev1.Pod, error) {
	pods := a.Kube.CoreV1().Pods(pod.Namespace)
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	w, err := pods.Watch(wctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", pod.Name).String(),
		ResourceVersion: pod.ResourceVersion,
	})
	if err == nil {
		select {
		case <-w.ResultChan():
		case <-wctx.Done():
		}
		w.Stop()
	} else {
		// No watch (an API server that restarts): wait, then look.
		<-wctx.Done()
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	cur, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) || (err == nil && cur.UID != pod.UID):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the baker pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return cur, nil
}

// bakeResult reads what a finished baker pod printed.
func (a *Activities) bakeResult(ctx context.Context, p *peoplev1.Person, pod *corev1.Pod) (kube.AvatarRead, error) {
	log, err := a.Kube.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{
		Container:  kube.BakerContainer,
		LimitBytes: ptr.To(int64(kube.BakerLogLimit)),
	}).DoRaw(ctx)
	if err != nil {
		var status apierrors.APIStatus
		if !errors.As(err, &status) {
			return kube.AvatarRead{}, fmt.Errorf("read the log of the baker pod %s/%s: %w", pod.Namespace, pod.Name, err)
		}
		// The API server answered but had no log to give (the node is gone, the container
		// never ran): that pod has no answer, and another would likely fare no better.
		return kube.AvatarRead{Source: p.Spec.Avatar, Reason: avatar.ReasonBakeFailed,
			Message: fmt.Sprintf("the log of the baker pod %s/%s could not be read: %s", pod.Namespace, pod.Name, status.Status().Message)}, nil
	}
	res, err := pictures.ParseBakeOutput(log)
	if err != nil {
		return failedRead(p.Spec.Avatar, err, avatar.ReasonBakeFailed), nil
	}
	read := kube.AvatarRead{
		Source:       p.Spec.Avatar,
		Reason:       avatar.ReasonBaked,
		Thumbnail:    res.Thumbnail,
		LastModified: res.ModTime.UTC().Format(time.RFC3339Nano),
		Size:         res.Size,
	}
	read.Unchanged = sameFile(p, res)
	return read, nil
}

// sameFile tells whether a baked file is the version whose thumbnail the status holds: the
// same source, modification time and size. Then the thumbnail stays as it is.
func sameFile(p *peoplev1.Person, res pictures.BakeResult) bool {
	av, c := p.Status.Avatar, kube.AvatarCondition(&p.Status)
	if av == nil || av.Source != p.Spec.Avatar || av.LastModified == "" || av.Size != res.Size ||
		c == nil || c.Status != metav1.ConditionTrue || c.Reason != avatar.ReasonBaked || !kube.IsPhoto(p.Status.Thumbnail) {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, av.LastModified)
	return err == nil && t.Equal(res.ModTime)
}

// deleteBakers deletes the baker pods of the Person with this name that match.
func (a *Activities) deleteBakers(ctx context.Context, person string, match func(*metav1.ObjectMeta) bool) error {
	// resourceVersion 0 is served from the API server's watch cache at once; a consistent
	// list waits for the cache to catch up with etcd, which measured 70-100 ms on every pass
	// (see make bench). A pod the cache has not seen yet is a pod the watcher will signal
	// about when it appears, so the next pass deletes it.
	list, err := a.Kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		LabelSelector: kube.BakerSelector, ResourceVersion: "0",
	})
	if err != nil {
		return fmt.Errorf("list the baker pods: %w", err)
	}
	for i := range list.Items {
		pod := &list.Items[i]
		if pod.Annotations[kube.AnnotationPerson] != person || !match(&pod.ObjectMeta) {
			continue
		}
		if err := a.deletePod(ctx, pod); err != nil {
			return err
		}
	}
	return nil
}

// staleBaker tells whether a baker pod no longer answers anything its Person asks: it reads
// another source, or belongs to an earlier Person of the same name.
func staleBaker(pod *metav1.ObjectMeta, p *peoplev1.Person) bool {
	if pod.Annotations[kube.AnnotationSource] != p.Spec.Avatar {
		return true
	}
	uid := ownerUID(pod)
	return uid != "" && uid != string(p.UID)
}

// deletePod deletes exactly this pod (not a newer one of the same name); gone is fine.
func (a *Activities) deletePod(ctx context.Context, pod *corev1.Pod) error {
	err := a.Kube.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: &pod.UID},
	})
	if err == nil {
		logFor(ctx).Info("deleted a baker pod", "pod", pod.Namespace+"/"+pod.Name)
	}
	if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		// A conflict is a failed precondition: the pod of that name is already another one.
		return nil
	}
	return fmt.Errorf("delete the baker pod %s/%s: %w", pod.Namespace, pod.Name, err)
}
