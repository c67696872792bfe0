// deploy/temporal, the bundled Temporal: it applies to a real API server, and its Deployment
// registers every search attribute the workflows set.
package deploy_test

import (
	"maps"
	"strings"
	"testing"

	"liken.sh/runner/workflows"
)

// TestTheBundledTemporalAppliesToARealAPIServer proves deploy/temporal is valid against the
// API server's schemas, not only renderable: a server-side dry run validates every field.
func TestTheBundledTemporalAppliesToARealAPIServer(t *testing.T) {
	ctx := timeout(t)
	if out, err := env.Kubectl(ctx, "create", "namespace", "liken-system"); err != nil && !strings.Contains(out, "AlreadyExists") {
		t.Fatal(err)
	}
	out, err := env.Kubectl(ctx, "apply", "--server-side", "--dry-run=server", "-k", "deploy/temporal")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"deployment.apps/temporal", "service/temporal", "service/temporal-ui", "persistentvolumeclaim/temporal-data"} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run did not apply %s:\n%s", want, out)
		}
	}
}

// TestTheBundledTemporalRegistersEverySearchAttributeTheWorkflowsSet keeps the Deployment's
// --search-attribute flags and workflows.SearchAttributes from drifting apart: a missing one
// makes every upsert of it fail in a real cluster.
func TestTheBundledTemporalRegistersEverySearchAttributeTheWorkflowsSet(t *testing.T) {
	out, err := env.Kubectl(timeout(t), "kustomize", "deploy/temporal")
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if _, flag, ok := strings.Cut(line, "- --search-attribute="); ok {
			name, typ, _ := strings.Cut(strings.TrimSpace(flag), "=")
			registered[name] = typ
		}
	}
	if !maps.Equal(registered, workflows.SearchAttributes) {
		t.Errorf("deploy/temporal registers %v; the workflows set %v", registered, workflows.SearchAttributes)
	}
}
