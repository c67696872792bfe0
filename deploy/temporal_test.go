package deploy_test

import (
	"strings"
	"testing"
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
