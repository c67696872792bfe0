// Posting the Events about a Person. The Event's name is fixed by what it says (see
// kube.PersonEventName), so a repeat finds it: within ten minutes of its last occurrence its
// count and lastTimestamp go up, as client-go's recorder does, but shared by every worker.
//
// The people side may create and patch Events and nothing else (its Role says so), so the
// Event that exists is read back through an empty patch, and the count is written with the
// resourceVersion it was read at: two workers counting at once conflict instead of losing one.
package activities

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// postEvent posts an Event about the Person, or counts a repeat of it.
func (a *Activities) postEvent(ctx context.Context, p *peoplev1.Person, e kube.Event) error {
	cfg := a.people()
	instance := cfg.Instance
	if instance == "" {
		instance = hostname()
	}
	ev := kube.PersonEvent(p.Name, p.UID, e, cfg.EventNamespace, instance, a.now())
	events := a.Kube.CoreV1().Events(ev.Namespace)
	_, err := events.Create(ctx, ev, metav1.CreateOptions{FieldManager: fieldManager})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	for range 3 {
		cur, err := events.Patch(ctx, ev.Name, types.MergePatchType, []byte("{}"), metav1.PatchOptions{FieldManager: fieldManager})
		if apierrors.IsNotFound(err) {
			// Expired between the two calls: this is a first occurrence again.
			_, err = events.Create(ctx, ev, metav1.CreateOptions{FieldManager: fieldManager})
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
			"reportingInstance": instance,
		})
		if err != nil {
			return err
		}
		_, err = events.Patch(ctx, ev.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return fmt.Errorf("the Event %s/%s kept changing while it was counted", ev.Namespace, ev.Name)
}
