// The bookkeeping activities of a reservation: reading the Reservation and the Telescope and
// Observatory it needs, the deactivate finalizer on any of the three, the status with its
// Events, the retry annotation, and the signals to the coordinating workflows. They read the
// custom resources through the dynamic client into their Go types; every patch re-reads the
// object and carries its resourceVersion, so a conflict means "read again":
// client-go's retry.RetryOnConflict does, a few times, before the retry goes to Temporal (a
// conflict is another writer, a user's edit, so it settles at once).
package observatory

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"go.temporal.io/sdk/temporal"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// observatoryFieldManager names the observatory side's writes in managedFields.
const observatoryFieldManager = kube.ObservatoryComponent

// ReadReservation reads a Reservation, its Telescope and the Telescope's Observatory.
func (a *Activities) ReadReservation(ctx context.Context, ref ReservationRef) (ReservationState, error) {
	u, err := a.resource(obsv1.KindReservation, ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ReservationState{Gone: true}, nil
	}
	if err != nil {
		return ReservationState{}, fmt.Errorf("read the Reservation %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	var r obsv1.Reservation
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r); err != nil {
		return ReservationState{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the Reservation %s/%s does not fit its Go type: %v", ref.Namespace, ref.Name, err), "BadObject", err)
	}
	st := ReservationState{
		UID:          string(r.UID),
		Generation:   r.Generation,
		Created:      r.CreationTimestamp.UTC(),
		Spec:         r.Spec,
		Deleting:     r.DeletionTimestamp != nil,
		HasFinalizer: kube.FinalizersHave(r.Finalizers, kube.FinalizerDeactivate),
		Retry:        r.Annotations[kube.AnnotationRetry],
		Status:       r.Status,
		Telescope:    TargetState{Name: r.Spec.Telescope},
	}
	tel, err := a.resource(obsv1.KindTelescope, ref.Namespace).Get(ctx, r.Spec.Telescope, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return st, nil
	case err != nil:
		return st, fmt.Errorf("read the Telescope %s/%s: %w", ref.Namespace, r.Spec.Telescope, err)
	}
	st.Telescope.Exists, st.Telescope.Deleting = true, tel.GetDeletionTimestamp() != nil
	obs, _, _ := unstructured.NestedString(tel.Object, "spec", "observatory")
	st.Observatory.Name = obs
	if obs == "" {
		return st, nil
	}
	o, err := a.resource(obsv1.KindObservatory, ref.Namespace).Get(ctx, obs, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return st, nil
	case err != nil:
		return st, fmt.Errorf("read the Observatory %s/%s: %w", ref.Namespace, obs, err)
	}
	st.Observatory.Exists, st.Observatory.Deleting = true, o.GetDeletionTimestamp() != nil
	var site obsv1.Observatory
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &site); err != nil {
		return st, fmt.Errorf("read the Observatory %s/%s: %w", ref.Namespace, obs, err)
	}
	if r.Spec.Night != "" {
		plan := kube.PlanNight(r.Spec, site.Spec.Location)
		st.Night = &plan
		if w := plan.Window; w != nil {
			st.Spec.Start, st.Spec.End = w.Start.DeepCopy(), w.End.DeepCopy()
		}
		if plan.Refused != "" {
			a.refuseNight(ctx, kube.ResourceID{Kind: obsv1.KindReservation, Namespace: ref.Namespace, Name: ref.Name, UID: r.UID}, plan.Refused)
		}
	}
	if bookingChecked(&r, st.Spec.End, a.now()) {
		b, err := a.checkBooking(ctx, &r, &site)
		if err != nil {
			return st, err
		}
		st.Booking = &b
	}
	return st, nil
}

// bookingChecked says whether a reservation's booking is checked: until it takes its
// telescope, unless it is being deleted or its end has passed (it will never run).
func bookingChecked(r *obsv1.Reservation, end *metav1.Time, now time.Time) bool {
	return !kube.TookTelescope(&r.Status) && r.DeletionTimestamp == nil && (end == nil || end.After(now))
}

// refuseNight says why a Reservation's night can never start, besides its Wait step and
// Ready condition (which the workflow writes): a log line and a Warning Event, counted
// again at each read while the spec stays so.
func (a *Activities) refuseNight(ctx context.Context, id kube.ResourceID, why string) {
	logFor(ctx).Warn("a Reservation's night can never start", "reservation", id.Name, "namespace", id.Namespace, "why", why)
	a.postObsEvent(ctx, id, kube.Event{Type: corev1.EventTypeWarning, Reason: kube.ReasonNightRefused, Message: why})
}

// AddDeactivateFinalizer adds the deactivate finalizer to a Reservation, Telescope or
// Observatory, unless the object is being deleted: a finalizer added then would hold a
// delete the user already asked for.
func (a *Activities) AddDeactivateFinalizer(ctx context.Context, ref FinalizerRef) (FinalizerResult, error) {
	return a.patchFinalizers(ctx, ref, true)
}

// RemoveDeactivateFinalizer removes the deactivate finalizer; an object that is gone is fine.
func (a *Activities) RemoveDeactivateFinalizer(ctx context.Context, ref FinalizerRef) (FinalizerResult, error) {
	return a.patchFinalizers(ctx, ref, false)
}

func (a *Activities) patchFinalizers(ctx context.Context, ref FinalizerRef, add bool) (FinalizerResult, error) {
	res := a.resource(ref.Kind, ref.Namespace)
	var out FinalizerResult
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := res.Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && ref.UID != "" && string(u.GetUID()) != ref.UID) {
			out = FinalizerResult{Gone: true}
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the %s %s/%s: %w", ref.Kind, ref.Namespace, ref.Name, err)
		}
		out = FinalizerResult{
			Deleting: u.GetDeletionTimestamp() != nil,
			Has:      kube.FinalizersHave(u.GetFinalizers(), kube.FinalizerDeactivate),
		}
		if out.Has == add || (add && out.Deleting) {
			return nil
		}
		list := kube.FinalizersWithout(u.GetFinalizers(), kube.FinalizerDeactivate)
		if add {
			list = kube.FinalizersWith(u.GetFinalizers(), kube.FinalizerDeactivate)
		}
		err = a.patchMetadata(ctx, res, u, map[string]any{"finalizers": list})
		switch {
		case apierrors.IsNotFound(err):
			out = FinalizerResult{Gone: true}
			return nil
		case err != nil && !apierrors.IsConflict(err):
			return fmt.Errorf("patch the finalizers of the %s %s/%s: %w", ref.Kind, ref.Namespace, ref.Name, err)
		case err != nil:
			return err
		}
		out.Has, out.Changed = add, true
		logFor(ctx).Info("patched the deactivate finalizer", "kind", ref.Kind, "namespace", ref.Namespace, "name", ref.Name, "added", add)
		return nil
	})
	if apierrors.IsConflict(err) {
		return FinalizerResult{}, fmt.Errorf("the %s %s/%s kept changing while its finalizers were patched", ref.Kind, ref.Namespace, ref.Name)
	}
	if err != nil {
		return FinalizerResult{}, err
	}
	return out, nil
}

// patchMetadata merge-patches fields of u's metadata, with the resourceVersion u was read at:
// a conflict means another writer came first, and the caller reads again.
func (a *Activities) patchMetadata(ctx context.Context, res dynamic.ResourceInterface, u *unstructured.Unstructured, fields map[string]any) error {
	meta := map[string]any{"resourceVersion": u.GetResourceVersion()}
	maps.Copy(meta, fields)
	patch, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return err
	}
	_, err = res.Patch(ctx, u.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: observatoryFieldManager})
	return err
}

// WriteReservationStatus writes the status (PUT /status) when it differs from the one on the
// Reservation, then posts the Events. A status that is already there writes nothing and posts
// nothing: that is a retry of a write that succeeded.
func (a *Activities) WriteReservationStatus(ctx context.Context, in ReservationStatusWrite) (StatusWritten, error) {
	r := kube.ResourceID{Kind: obsv1.KindReservation, Namespace: in.Ref.Namespace, Name: in.Ref.Name, UID: types.UID(in.UID)}
	w, err := writeStatus(ctx, a, r, nil, func(obsv1.ReservationStatus, metav1.Object) obsv1.ReservationStatus {
		return in.Status
	})
	switch {
	case err != nil:
		return StatusWritten{}, err
	case w.obj == nil:
		return StatusWritten{Gone: true}, nil
	case !w.wrote:
		return StatusWritten{}, nil
	}
	for _, e := range append(in.Events, a.localEndpointEvents(in)...) {
		// The status is written and a retry would not post again, so a failed post is
		// logged, not retried.
		ev := kube.ReservationEvent(in.Ref.Namespace, in.Ref.Name, w.id.UID, e, a.instance(), a.now())
		if err := a.postObjectEvent(ctx, ev); err != nil {
			logFor(ctx).Warn("an Event about a Reservation could not be posted", "namespace", in.Ref.Namespace,
				"reservation", in.Ref.Name, "reason", e.Reason, "err", err)
		}
	}
	return StatusWritten{Wrote: true}, nil
}

// RemoveRetryAnnotation removes the retry annotation if it still has the value the workflow
// answered.
func (a *Activities) RemoveRetryAnnotation(ctx context.Context, in RetryRemoval) error {
	return a.removeRetry(ctx, obsv1.KindReservation, in.Ref.Namespace, in.Ref.Name, in.Value)
}

// removeRetry removes the retry annotation of a resource if it still has value: a newer
// value, a second retry asked for meanwhile, stays.
func (a *Activities) removeRetry(ctx context.Context, kind obsv1.Kind, ns, name, value string) error {
	res := a.resource(kind, ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the %s %s/%s: %w", kind, ns, name, err)
		}
		if v, ok := u.GetAnnotations()[kube.AnnotationRetry]; !ok || v != value {
			return nil
		}
		err = a.patchMetadata(ctx, res, u, map[string]any{"annotations": map[string]any{kube.AnnotationRetry: nil}})
		switch {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil && !apierrors.IsConflict(err):
			return fmt.Errorf("remove the retry annotation of the %s %s/%s: %w", kind, ns, name, err)
		}
		return err
	})
	if apierrors.IsConflict(err) {
		return fmt.Errorf("the %s %s/%s kept changing while its retry annotation was removed", kind, ns, name)
	}
	return err
}

// SignalCoordinator signals a telescope's or an observatory's workflow, starting it when it
// does not run. It runs on the caller's task queue, as the coordinator's workers are the same.
func (a *Activities) SignalCoordinator(ctx context.Context, in activities.WorkflowSignal) error {
	if err := activities.NeedTemporal(a.Temporal); err != nil {
		return err
	}
	return activities.SignalWorkflow(ctx, a.Temporal, in)
}

func (a *Activities) resource(kind obsv1.Kind, namespace string) dynamic.ResourceInterface {
	return a.Dynamic.Resource(kind.GroupVersionResource()).Namespace(namespace)
}
