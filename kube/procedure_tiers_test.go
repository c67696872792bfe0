// The tier a resource's procedures run in, from what it belongs to.
package kube

import (
	"testing"

	"github.com/stretchr/testify/assert"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestEachResourceRunsInTheTierOfWhatItBelongsTo(t *testing.T) {
	id := func(k obsv1.Kind, name string) ResourceID { return ResourceID{Kind: k, Namespace: "lab", Name: name} }
	obs := TierCandidate{ID: id(obsv1.KindObservatory, "lab")}
	dome := TierCandidate{ID: id(obsv1.KindDome, "lab"), Observatory: "lab"}
	tel := TierCandidate{ID: id(obsv1.KindTelescope, "east")}
	mount := TierCandidate{ID: id(obsv1.KindMount, "east"), Telescope: "east"}
	focuser := TierCandidate{ID: id(obsv1.KindFocuser, "east-main"), Telescope: "east"}
	camera := TierCandidate{ID: id(obsv1.KindCamera, "east-main"), OpticalTrain: "main"}
	westMount := TierCandidate{ID: id(obsv1.KindMount, "west"), Telescope: "west"}
	westCamera := TierCandidate{ID: id(obsv1.KindCamera, "west-main"), OpticalTrain: "west-main"}
	otherObs := TierCandidate{ID: id(obsv1.KindObservatory, "hill")}
	leaving := TierCandidate{ID: id(obsv1.KindMount, "old"), Telescope: "east", Deleting: true}
	all := []TierCandidate{westCamera, camera, focuser, mount, westMount, tel, dome, obs, otherObs, leaving}
	scope := TierScope{Telescope: "east", Observatory: "lab", Trains: map[string]bool{"main": true}}
	site := scope
	site.IncludesObservatory = true
	activation := site
	activation.LeaveDeleting = true

	cases := []struct {
		name  string
		scope TierScope
		want  [][]TierCandidate
	}{
		{"a telescope's own tiers, its devices by kind then name", scope,
			[][]TierCandidate{nil, nil, {tel}, {focuser, mount, leaving}, {camera}}},
		{"the site's tiers first when the reservation runs the site", site,
			[][]TierCandidate{{obs}, {dome}, {tel}, {focuser, mount, leaving}, {camera}}},
		{"activation leaves a device being deleted out", activation,
			[][]TierCandidate{{obs}, {dome}, {tel}, {focuser, mount}, {camera}}},
		{"no site tiers without an observatory", TierScope{Telescope: "east", IncludesObservatory: true},
			[][]TierCandidate{nil, nil, {tel}, {focuser, mount, leaving}, nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ProcedureTiers(c.scope, all)
			assert.Equal(t, c.want, got)
			assert.Len(t, got, int(TierTrainDevices)+1)
		})
	}
}
