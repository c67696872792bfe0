// The tiers a reservation's procedures run in. Activation runs them in this order and
// Deactivation in reverse: the Observatory, its devices (both only when the reservation runs
// the site), the Telescope, its devices, and the devices of its optical trains. The
// activity reads the resources and which of them have something to run; this decides where
// each one stands.
package kube

import (
	"cmp"
	"slices"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// ProcedureTier is one of the five tiers, in activation order.
type ProcedureTier int

const (
	TierObservatory        ProcedureTier = iota // the Observatory itself
	TierObservatoryDevices                      // the devices parented to the Observatory
	TierTelescope                               // the Telescope itself
	TierTelescopeDevices                        // the devices parented to the Telescope
	TierTrainDevices                            // the devices of the Telescope's optical trains
	procedureTierCount
)

// TierScope is the reservation the tiers are for.
type TierScope struct {
	Telescope   string
	Observatory string
	// IncludesObservatory: the reservation runs the Observatory's tiers too.
	IncludesObservatory bool
	// Trains are the Telescope's optical trains by name.
	Trains map[string]bool
	// LeaveDeleting leaves out the devices being deleted: Activation's rule, as a device
	// deleted during activation leaves without a procedure.
	LeaveDeleting bool
}

// TierCandidate is a resource the activity read that has something to run.
type TierCandidate struct {
	ID ResourceID
	// Its spec's parents: spec.telescope, spec.observatory, spec.opticalTrain.
	Telescope, Observatory, OpticalTrain string
	Deleting                             bool
}

// ProcedureTiers places each candidate in its tier, sorted by kind and name within it; a
// candidate in none (another telescope's, or the site's when the reservation does not run
// it) is left out. The Observatory and Telescope candidates are those of the scope.
func ProcedureTiers(s TierScope, cs []TierCandidate) [][]TierCandidate {
	tiers := make([][]TierCandidate, procedureTierCount)
	for _, c := range cs {
		if t, ok := s.tierOf(c); ok {
			tiers[t] = append(tiers[t], c)
		}
	}
	for _, t := range tiers {
		slices.SortFunc(t, func(x, y TierCandidate) int {
			return cmp.Or(cmp.Compare(x.ID.Kind, y.ID.Kind), cmp.Compare(x.ID.Name, y.ID.Name))
		})
	}
	return tiers
}

// tierOf is the tier of c, if any.
func (s TierScope) tierOf(c TierCandidate) (ProcedureTier, bool) {
	site := s.IncludesObservatory && s.Observatory != ""
	switch {
	case c.ID.Kind == obsv1.KindObservatory:
		return TierObservatory, site && c.ID.Name == s.Observatory
	case c.ID.Kind == obsv1.KindTelescope:
		return TierTelescope, c.ID.Name == s.Telescope
	case !c.ID.Kind.IsDevice() || (s.LeaveDeleting && c.Deleting):
		return 0, false
	case site && c.Observatory == s.Observatory:
		return TierObservatoryDevices, true
	case c.Telescope != "" && c.Telescope == s.Telescope:
		return TierTelescopeDevices, true
	case c.OpticalTrain != "" && s.Trains[c.OpticalTrain]:
		return TierTrainDevices, true
	}
	return 0, false
}
