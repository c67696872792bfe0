// Posting an Event about an observatory object, in the object's own namespace.
package activities

import (
	"context"

	corev1 "k8s.io/api/core/v1"
)

func (a *Activities) postObjectEvent(ctx context.Context, ev *corev1.Event) error {
	return a.postOrCount(ctx, ev, observatoryFieldManager)
}
