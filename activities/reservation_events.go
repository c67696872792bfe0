// Posting an Event about an observatory object (a Reservation so far), or counting a repeat
// of it: the same create-then-count as the people side's, for objects in their own namespace.
// The count is written with the resourceVersion it was read at, so two workers counting at
// once conflict instead of losing one.
package activities

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
)

func (a *Activities) postObjectEvent(ctx context.Context, ev *corev1.Event) error {
	events := a.Kube.CoreV1().Events(ev.Namespace)
	_, err := events.Create(ctx, ev, metav1.CreateOptions{FieldManager: observatoryFieldManager})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	for range conflictRetries {
		// An empty patch reads the Event without needing get on Events.
		cur, err := events.Patch(ctx, ev.Name, types.MergePatchType, []byte("{}"), metav1.PatchOptions{FieldManager: observatoryFieldManager})
		if apierrors.IsNotFound(err) {
			_, err = events.Create(ctx, ev, metav1.CreateOptions{FieldManager: observatoryFieldManager})
			return err
		}
		if err != nil {
			return err
		}
		count, first, last := kube.EventRepeat(cur, a.now())
		patch, err := json.Marshal(map[string]any{
			"metadata":          map[string]any{"resourceVersion": cur.ResourceVersion},
			"count":             count,
			"firstTimestamp":    first,
			"lastTimestamp":     last,
			"reportingInstance": ev.ReportingInstance,
		})
		if err != nil {
			return err
		}
		_, err = events.Patch(ctx, ev.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: observatoryFieldManager})
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("the Event %s/%s kept changing while it was counted", ev.Namespace, ev.Name)
}
