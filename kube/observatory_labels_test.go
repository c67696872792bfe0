// Tests of the observatory labels and the finalizer helpers: the exact label sets
// they carry, since a user's selectors depend on them, and lists that are never changed in place.
package kube

import (
	"maps"
	"slices"
	"testing"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestAnObjectCarriesExactlyTheSevenLabels(t *testing.T) {
	got := ObjectLabels("east-mount", RoleDevice, "east-telescope", ResourceID{Kind: obsv1.KindMount, Name: "east"})
	want := map[string]string{
		"app.kubernetes.io/managed-by":  "observatory-operator",
		"app.kubernetes.io/part-of":     "observatory",
		"app.kubernetes.io/name":        "east-mount",
		"observatory.liken.sh/role":     "device",
		"observatory.liken.sh/server":   "east-telescope",
		"observatory.liken.sh/kind":     "Mount",
		"observatory.liken.sh/resource": "east",
	}
	if !maps.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestAJobCarriesTheRoleJobAndItsPodsOnlyThreeLabels(t *testing.T) {
	r := ResourceID{Kind: obsv1.KindDome, Name: "lab"}
	want := map[string]string{
		"app.kubernetes.io/managed-by":  "observatory-operator",
		"app.kubernetes.io/part-of":     "observatory",
		"app.kubernetes.io/name":        "dome-lab-activation-0123456789",
		"observatory.liken.sh/role":     "job",
		"observatory.liken.sh/kind":     "Dome",
		"observatory.liken.sh/resource": "lab",
	}
	if got := JobLabels("dome-lab-activation-0123456789", r); !maps.Equal(got, want) {
		t.Errorf("Job labels: got %v\nwant %v", got, want)
	}
	wantPod := map[string]string{
		"app.kubernetes.io/part-of": "observatory",
		"app.kubernetes.io/name":    "dome-lab-activation-0123456789",
		"observatory.liken.sh/role": "job",
	}
	if got := PodTemplateLabels("dome-lab-activation-0123456789", RoleJob); !maps.Equal(got, wantPod) {
		t.Errorf("pod template labels: got %v\nwant %v", got, wantPod)
	}
}

func TestTheFinalizerHelpersAddAndRemoveOnceAndNeverChangeTheirInput(t *testing.T) {
	const f = FinalizerDeactivate
	if f != "observatory.liken.sh/deactivate" {
		t.Fatalf("the finalizer is %q", f)
	}
	for _, tc := range []struct {
		name          string
		in            []string
		has           bool
		with, without []string
	}{
		{"none", nil, false, []string{f}, nil},
		{"another", []string{"x/y"}, false, []string{"x/y", f}, []string{"x/y"}},
		{"ours", []string{"x/y", f}, true, []string{"x/y", f}, []string{"x/y"}},
		{"twice", []string{f, "x/y", f}, true, []string{f, "x/y", f}, []string{"x/y"}},
	} {
		orig := slices.Clone(tc.in)
		// A spare capacity would let an append write into the caller's array.
		in := append(make([]string, 0, len(tc.in)+4), tc.in...)
		if got := FinalizersHave(in, f); got != tc.has {
			t.Errorf("%s: has = %v", tc.name, got)
		}
		with := FinalizersWith(in, f)
		without := FinalizersWithout(in, f)
		if !slices.Equal(with, tc.with) || !slices.Equal(without, tc.without) {
			t.Errorf("%s: with %v, without %v; want %v and %v", tc.name, with, without, tc.with, tc.without)
		}
		if !slices.Equal(in, orig) || !slices.Equal(in[:cap(in)][len(in):len(in)+1], []string{""}) {
			t.Errorf("%s: the input changed to %v", tc.name, in[:cap(in)])
		}
	}
}
