// Which worker Deployments a rollout removes, decided without a server.
package rollout

import (
	"slices"
	"testing"
)

func TestOnlyADrainedOrUnknownBuildThatIsNeitherCurrentNorNewIsRemoved(t *testing.T) {
	workers := []Worker{
		{"liken-worker-v0.1.0", "v0.1.0"}, {"liken-worker-v0.2.0", "v0.2.0"}, {"liken-worker-v0.3.0", "v0.3.0"},
		{"liken-worker-v0.0.9", "v0.0.9"}, {"unlabelled", ""},
	}
	drainage := map[string]Drainage{"v0.1.0": Drained, "v0.2.0": Draining, "v0.0.9": Unknown}
	for _, c := range []struct {
		name, current, own string
		want               []string
	}{
		{"v0.3.0 current: the drained and the unknown go", "v0.3.0", "v0.3.0", []string{"liken-worker-v0.1.0", "liken-worker-v0.0.9"}},
		{"v0.3.0 not current yet: the current build stays", "v0.1.0", "v0.3.0", []string{"liken-worker-v0.0.9"}},
		{"no current build: nothing goes", "", "v0.3.0", nil},
	} {
		if got := Retire(workers, c.current, c.own, drainage); !slices.Equal(got, c.want) {
			t.Errorf("%s: removed %v, want %v", c.name, got, c.want)
		}
	}
}
