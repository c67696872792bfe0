// Which worker Deployments a rollout removes, decided without a server.
package rollout

import (
	"slices"
	"testing"
)

func TestOnlyADrainedBuildThatIsNeitherCurrentNorNewIsRemoved(t *testing.T) {
	workers := []Worker{
		{"liken-worker-v0.1.0", "v0.1.0"}, {"liken-worker-v0.2.0", "v0.2.0"}, {"liken-worker-v0.3.0", "v0.3.0"},
		{"liken-worker-v0.0.9", "v0.0.9"}, {"unlabelled", ""},
	}
	// v0.2.0 still runs a night; Temporal has no drainage for v0.3.0 and v0.0.9 (never current).
	drained := map[string]bool{"v0.1.0": true, "v0.2.0": false}
	for _, c := range []struct {
		name, current, own string
		want               []string
	}{
		{"v0.3.0 current: the drained build goes", "v0.3.0", "v0.3.0", []string{"liken-worker-v0.1.0"}},
		{"v0.3.0 not current yet: the current build stays", "v0.1.0", "v0.3.0", nil},
		{"v0.2.0's watcher still leads while v0.3.0 starts: v0.3.0 stays", "v0.2.0", "v0.2.0", []string{"liken-worker-v0.1.0"}},
		{"no current build: nothing goes", "", "v0.3.0", nil},
	} {
		if got := Retire(workers, c.current, c.own, drained); !slices.Equal(got, c.want) {
			t.Errorf("%s: removed %v, want %v", c.name, got, c.want)
		}
	}
}
