// Writing one condition of an observatory object outside the composed statuses: the Active
// condition of a Telescope and an Observatory while a reservation holds them. Each change posts
// its Event.
package observatory

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// setActive sets the Active condition of the Telescope, and of the Observatory when this
// reservation runs its tiers, and posts an Event when it changes.
func (a *Activities) setActive(ctx context.Context, in StepInput, active bool) error {
	targets := []obsv1.Kind{obsv1.KindTelescope}
	names := []string{in.Telescope}
	if in.IncludesObservatory && in.Observatory != "" {
		targets, names = append(targets, obsv1.KindObservatory), append(names, in.Observatory)
	}
	cond := kube.ActiveCondition(active, in.Reservation)
	for i, kind := range targets {
		u, err := a.resource(kind, in.Namespace).Get(ctx, names[i], metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read the %s %s/%s: %w", kind, in.Namespace, names[i], err)
		}
		if err := a.writeCondition(ctx, kube.ResourceIDOf(kind, u), u.GetGeneration(), cond); err != nil {
			return err
		}
	}
	return nil
}

// writeCondition sets one condition of an observatory object and posts an Event when it
// changed: a Warning for a reason that reports something to fix (kube.EventTypeOf), else Normal.
func (a *Activities) writeCondition(ctx context.Context, id kube.ResourceID, generation int64, cond obsv1.Condition) error {
	changed := false
	err := a.updateStatusField(ctx, id, "conditions", func(raw []byte) (any, error) {
		var conds []obsv1.Condition
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &conds); err != nil {
				return nil, err
			}
		}
		changed = true
		for _, c := range conds {
			if c.Type == cond.Type && c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message {
				changed = false
				return conds, nil
			}
		}
		return kube.WithCondition(conds, cond, generation, a.now()), nil
	})
	if err == nil && changed {
		a.postObsEvent(ctx, id, kube.Event{Type: kube.EventTypeOf(cond), Reason: cond.Reason, Message: cond.Message})
	}
	return err
}
