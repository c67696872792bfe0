// How a status write that loses a conflict tries again: how long it waits, and that it lands
// after more lost conflicts than client-go's default retry allows, against a fake dynamic
// client that answers Conflict as another writer would.
package activities

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// observerBeat is how often each observer writes a device; two of them share a site's Dome.
const observerBeat = time.Second

// observerWriteBound is the observers' bound on one device's write.
const observerWriteBound = 5 * time.Second

func totalConflictWait(r float64) time.Duration {
	var sum time.Duration
	for try := range conflictTries - 1 {
		sum += conflictWait(try, r)
	}
	return sum
}

func TestAWriteThatKeepsLosingConflictsTriesForMoreThanTwoOfTheObserversBeats(t *testing.T) {
	assert.GreaterOrEqual(t, totalConflictWait(0), 2*observerBeat, "the shortest jitter still outlasts two beats")
}

func TestAWriteThatKeepsLosingConflictsGivesUpWithinTheObserversBoundOnOneWrite(t *testing.T) {
	assert.Less(t, totalConflictWait(0.999), observerWriteBound, "the longest jitter still ends inside the bound")
}

func TestTheWaitAfterAConflictDoublesUpToTheLongestAndItsJitterKeepsAtLeastHalf(t *testing.T) {
	for _, tc := range []struct {
		try      int
		r        float64
		min, max time.Duration
	}{
		{0, 0, 10 * time.Millisecond, 10 * time.Millisecond},
		{0, 0.999, 19 * time.Millisecond, 20 * time.Millisecond},
		{3, 0, 80 * time.Millisecond, 80 * time.Millisecond},
		{6, 0.5, 750 * time.Millisecond, 750 * time.Millisecond},
		{40, 0.999, 999 * time.Millisecond, time.Second},
	} {
		got := conflictWait(tc.try, tc.r)
		assert.True(t, got >= tc.min && got <= tc.max, "try %d, jitter %v: %v, want %v to %v", tc.try, tc.r, got, tc.min, tc.max)
	}
}

// conflictingStatus is a fake client of one object whose status writes lose the first
// conflicts conflicts, and the count of writes it was sent.
func conflictingStatus(t *testing.T, conflicts int) (StatusOf, *int) {
	gvr := schema.GroupVersionResource{Group: "observatory.liken.sh", Version: "v1alpha1", Resource: "domes"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "observatory.liken.sh/v1alpha1", "kind": "Dome",
		"metadata": map[string]any{"name": "lab", "namespace": "site"},
	}}
	c := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "DomeList"}, obj)
	writes := 0
	c.PrependReactor("update", "domes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "status" {
			return false, nil, nil
		}
		writes++
		if writes <= conflicts {
			return true, nil, apierrors.NewConflict(gvr.GroupResource(), "lab", nil)
		}
		return false, nil, nil
	})
	return StatusOf{Resource: c.Resource(gvr).Namespace("site"), Kind: "Dome", Namespace: "site", Name: "lab"}, &writes
}

func setPhase(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	u = u.DeepCopy()
	return u, unstructured.SetNestedField(u.Object, "Connected", "status", "phase")
}

func TestAStatusWriteLandsAfterMoreLostConflictsThanClientGosDefaultRetryAllows(t *testing.T) {
	s, writes := conflictingStatus(t, 6)
	out, err := UpdateStatus(context.Background(), s, nil, setPhase)
	require.NoError(t, err)
	phase, _, _ := unstructured.NestedString(out.Object, "status", "phase")
	assert.Equal(t, "Connected", phase)
	assert.Equal(t, 7, *writes)
}

func TestAStatusWriteThatLosesEveryTrySaysTheObjectKeptChanging(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	s, writes := conflictingStatus(t, conflictTries)
	_, err := UpdateStatus(ctx, s, nil, setPhase)
	require.ErrorContains(t, err, "the Dome site/lab kept changing while its status was written")
	assert.Less(t, *writes, conflictTries, "its context ended the tries")
}

func TestAFieldWrittenAgainAsEqualStructsIsNoWrite(t *testing.T) {
	type condition struct {
		Type   string `json:"type"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	}
	s, writes := conflictingStatus(t, 0)
	conds := []condition{{Type: "ParkedBySafety", Status: "True", Reason: "WeatherAlert"}}
	same := func([]byte) (any, error) { return conds, nil }
	require.NoError(t, UpdateStatusField(context.Background(), s, "conditions", same))
	require.Equal(t, 1, *writes, "the first write lands")
	require.NoError(t, UpdateStatusField(context.Background(), s, "conditions", same))
	assert.Equal(t, 1, *writes, "the equal one is not sent")
}
