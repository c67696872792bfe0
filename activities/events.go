// Posting an Event, or counting a repeat of it: about a Person (in the Event namespace,
// default: core/v1 Events about a cluster-scoped object live there) or about an observatory
// object (in its own namespace), built by kube's one Event builder. An Event's name is fixed by what it says
// (see kube.PersonEventName and the observatory's event names), so a repeat finds it: within
// ten minutes of its last occurrence its count and lastTimestamp go up, as client-go's
// recorder does, but shared by every worker.
//
// The workers may create and patch Events and nothing else (their Roles say so), so the
// Event that exists is read back through an empty patch, and the count is written with the
// resourceVersion it was read at: two workers counting at once conflict instead of losing one.
package activities

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"liken.sh/runner/kube"
)

// PostOrCount creates ev, or counts a repeat of the Event of that name, as manager.
func PostOrCount(ctx context.Context, c *Clients, ev *corev1.Event, manager string) error {
	events := c.Kube.CoreV1().Events(ev.Namespace)
	_, err := events.Create(ctx, ev, metav1.CreateOptions{FieldManager: manager})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := events.Patch(ctx, ev.Name, types.MergePatchType, []byte("{}"), metav1.PatchOptions{FieldManager: manager})
		if apierrors.IsNotFound(err) {
			// Expired between the two calls: this is a first occurrence again.
			_, err = events.Create(ctx, ev, metav1.CreateOptions{FieldManager: manager})
			return err
		}
		if err != nil {
			return err
		}
		count, first, last := kube.EventRepeat(cur, Now(c))
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
		_, err = events.Patch(ctx, ev.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: manager})
		return err
	})
	if apierrors.IsConflict(err) {
		return fmt.Errorf("the Event %s/%s kept changing while it was counted", ev.Namespace, ev.Name)
	}
	return err
}
