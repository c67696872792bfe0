// The Dockerfile checked as text, since no Docker engine builds it here, against what the bases
// and the baker pods expect of the image.
package deploy_test

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// TestTheImageIsStaticNonRootAndRunsEveryProgramTheBasesName checks the Dockerfile, which
// cannot be built here (no Docker engine), against what the bases and baker pods expect of
// it: a static build, a distroless base, a non-root user, the worker as entrypoint (baker
// pods pass only `bake …` arguments) and every `command:` of the bases on its PATH.
func TestTheImageIsStaticNonRootAndRunsEveryProgramTheBasesName(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(env.Root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	stages := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(df, -1)
	if len(stages) != 2 {
		t.Fatalf("want a two-stage build, got FROM lines %v", stages)
	}
	if final := stages[1][1]; !strings.HasPrefix(final, "gcr.io/distroless/static") {
		t.Errorf("the final stage is %s; want a distroless static base", final)
	}
	for _, want := range []string{
		"CGO_ENABLED=0 go build",
		"./cmd/worker ./cmd/watcher",
		"COPY --from=build /out/worker /out/watcher /usr/local/bin/",
		`ENTRYPOINT ["/usr/local/bin/worker"]`,
	} {
		if !strings.Contains(df, want) {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	user := regexp.MustCompile(`(?m)^USER (\d+):(\d+)$`).FindStringSubmatch(df)
	if user == nil || user[1] == "0" {
		t.Errorf("the image must run as a numeric non-root user, got %v", user)
	}

	out, err := env.Kubectl(timeout(t), "kustomize", "deploy/")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096)
	deployments := 0
	for {
		var d appsv1.Deployment
		if err := dec.Decode(&d); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if d.Kind != "Deployment" || !strings.HasPrefix(d.Spec.Template.Spec.Containers[0].Image, "ghcr.io/liken-sh/") {
			continue
		}
		deployments++
		for _, c := range d.Spec.Template.Spec.Containers {
			if len(c.Command) == 0 || (c.Command[0] != "worker" && c.Command[0] != "watcher") {
				t.Errorf("Deployment %s runs %v, which the image does not hold", d.Name, c.Command)
			}
		}
	}
	if deployments == 0 {
		t.Error("deploy/ has no Deployment of the runner's image")
	}
}
