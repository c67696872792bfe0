// Reading the resources of a reservation's procedure tiers: the Telescope, the Observatory,
// the trains and the devices, kept when they have something to run and placed by
// kube.ProcedureTiers.
package observatory

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// procedureTiers reads the resources of the five tiers, in activation order, as
// kube.ProcedureTiers places them: for Activation or Deactivation those with actions for it,
// for triggersPass those with triggers.
func (a *Activities) procedureTiers(ctx context.Context, in StepInput, trigger string) ([][]*procResource, error) {
	ns := in.Namespace
	// A Telescope gone before its Deactivation (its finalizer removed by hand) has no
	// procedure left to run, but its devices still do theirs.
	tel, telSpec, err := a.readProcObject(ctx, obsv1.KindTelescope, ns, in.Telescope, trigger != kube.TriggerActivation)
	if err != nil {
		return nil, err
	}
	obs := in.Observatory
	if obs == "" {
		obs = telSpec.Observatory
	}
	scope := kube.TierScope{Telescope: in.Telescope, Observatory: obs, IncludesObservatory: in.IncludesObservatory,
		LeaveDeleting: trigger == kube.TriggerActivation}
	byID := map[kube.ResourceID]*procResource{}
	var cands []kube.TierCandidate
	add := func(kind obsv1.Kind, u *unstructured.Unstructured, s procSpec) {
		if r := newProcResource(kind, u, s, trigger, obs); r != nil {
			byID[r.id] = r
			cands = append(cands, kube.TierCandidate{ID: r.id, Telescope: s.Telescope, Observatory: s.Observatory,
				OpticalTrain: s.OpticalTrain, Deleting: u.GetDeletionTimestamp() != nil})
		}
	}
	if in.IncludesObservatory && obs != "" {
		o, s, err := a.readProcObject(ctx, obsv1.KindObservatory, ns, obs, true)
		if err != nil {
			return nil, err
		}
		if o != nil {
			add(obsv1.KindObservatory, o, s)
		}
	}
	if tel != nil {
		add(obsv1.KindTelescope, tel, telSpec)
	}
	if scope.Trains, err = a.telescopeTrains(ctx, ns, in.Telescope); err != nil {
		return nil, err
	}
	site := ""
	if in.IncludesObservatory {
		site = obs
	}
	trains := slices.Collect(maps.Keys(scope.Trains))
	for _, kind := range obsv1.Kinds {
		if !kind.IsDevice() {
			continue
		}
		// Only the devices a tier can hold: the site's, the telescope's and its trains'.
		items, err := a.listWhere(ctx, kind, ns, deviceSelectors(kind, site, in.Telescope, trains))
		if err != nil {
			return nil, err
		}
		for i := range items {
			u := &items[i]
			s, err := readProcSpec(u)
			if err != nil {
				return nil, badSpec(kind, u.GetName(), err)
			}
			add(kind, u, s)
		}
	}
	placed := kube.ProcedureTiers(scope, cands)
	tiers := make([][]*procResource, len(placed))
	for t, cs := range placed {
		server, telescope := kube.ServerName(obsv1.KindTelescope, in.Telescope), in.Telescope
		if kube.ProcedureTier(t) <= kube.TierObservatoryDevices {
			server, telescope = kube.ServerName(obsv1.KindObservatory, obs), ""
		}
		for _, c := range cs {
			r := byID[c.ID]
			r.server, r.telescope = server, telescope
			tiers[t] = append(tiers[t], r)
		}
	}
	return tiers, nil
}

// readProcObject reads a Telescope or an Observatory and its procedures; one that is missing
// is nil when mayBeGone, and fails the step otherwise.
func (a *Activities) readProcObject(ctx context.Context, kind obsv1.Kind, ns, name string, mayBeGone bool) (*unstructured.Unstructured, procSpec, error) {
	u, err := a.resource(kind, ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) && mayBeGone:
		return nil, procSpec{}, nil
	case apierrors.IsNotFound(err):
		return nil, procSpec{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s%s %s is missing", kube.FailedPrefix, kind, name), ErrStepFailed, nil)
	case err != nil:
		return nil, procSpec{}, fmt.Errorf("read the %s %s/%s: %w", kind, ns, name, err)
	}
	s, err := readProcSpec(u)
	if err != nil {
		return nil, s, badSpec(kind, name, err)
	}
	return u, s, nil
}

// telescopeTrains are the names of the telescope's optical trains.
func (a *Activities) telescopeTrains(ctx context.Context, ns, telescope string) (map[string]bool, error) {
	items, err := a.listWhere(ctx, obsv1.KindOpticalTrain, ns, [][2]string{{fieldTelescope, telescope}})
	if err != nil {
		return nil, err
	}
	trains := map[string]bool{}
	for _, u := range items {
		if t, _, _ := unstructured.NestedString(u.Object, "spec", "telescope"); t == telescope {
			trains[u.GetName()] = true
		}
	}
	return trains, nil
}

// newProcResource is the resource u as a tier runs it, or nil when it has nothing to run:
// for Activation or Deactivation no actions for it, for triggersPass no triggers. Its
// server and telescope are its tier's.
func newProcResource(kind obsv1.Kind, u *unstructured.Unstructured, s procSpec, trigger, obs string) *procResource {
	r := &procResource{id: kube.ResourceIDOf(kind, u), observatory: obs, generation: u.GetGeneration()}
	switch trigger {
	case kube.TriggerActivation:
		r.actions = s.Activation
	case kube.TriggerDeactivation:
		r.actions = s.Deactivation
	case triggersPass:
		if len(s.Triggers) == 0 {
			return nil
		}
		r.triggers, r.records, r.retry = s.Triggers, statusProcedures(u), u.GetAnnotations()[kube.AnnotationRetry]
	}
	if len(r.actions) == 0 && len(r.triggers) == 0 {
		return nil
	}
	if s.Driver.Name != "" {
		r.drivers = []string{s.Driver.Name}
	}
	r.indiDevice, _, _ = unstructured.NestedString(u.Object, "status", "indiDevice")
	return r
}

func badSpec(kind obsv1.Kind, name string, err error) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("%sthe %s %s has procedures this worker cannot read: %v", kube.FailedPrefix, kind, name, err), ErrStepFailed, err)
}
