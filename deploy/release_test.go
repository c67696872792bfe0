// hack/release.sh, cut in a clone of this checkout's last commit: the release commit pins
// every base to the version, dates the changelog and makes the histories recorded since the
// last release the new release's own, and the tag is on that commit; so deploy/ at the tag
// runs the release's image everywhere, and the pipeline's check of the tag passes. It refuses
// what would cut a release that installs something else.
package deploy_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// next is a version no release will have, so the test cuts it whatever this checkout's
// changelog says.
const next = "v99.0.0"

func TestAReleasePinsDeployToItsVersionAndTagsThatCommit(t *testing.T) {
	dir := t.TempDir()
	run(t, env.Root, "git", "clone", "-q", env.Root, dir)
	histories := filepath.Join(dir, "workflows/testdata/histories")
	require.NoError(t, os.MkdirAll(filepath.Join(histories, "unreleased"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(histories, "unreleased/recorded.json"), []byte("{}"), 0o644))
	changelog := filepath.Join(dir, "CHANGELOG.md")
	b, err := os.ReadFile(changelog)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(changelog, []byte(strings.Replace(string(b), "\n## ", "\n## "+next+" (unreleased)\n\n- A change.\n\n## ", 1)), 0o644))

	out, err := release(t, dir, next)
	assert.Error(t, err)
	assert.Contains(t, out, "uncommitted changes")
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "-qm", "the next release's changes")
	out, err = release(t, dir, "v99.0")
	assert.Error(t, err)
	assert.Contains(t, out, "not a version")

	out, err = release(t, dir, next)
	require.NoError(t, err, out)
	assert.Equal(t, run(t, dir, "git", "rev-parse", "HEAD"), run(t, dir, "git", "rev-parse", next+"^{commit}"), "the tag is on the release commit")
	assert.Empty(t, run(t, dir, "git", "status", "--porcelain"))
	for _, k := range []string{"deploy/kustomization.yaml", "deploy/people/kustomization.yaml", "deploy/observatory/kustomization.yaml", "deploy/devices/kustomization.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, k))
		require.NoError(t, err)
		assert.Contains(t, string(b), "newTag: "+next, k) // the pipeline's check of a tag
	}
	assert.Regexp(t, `\n## `+next+` \(\d{4}-\d{2}-\d{2}\)\n`, run(t, dir, "cat", "CHANGELOG.md"))
	assert.FileExists(t, filepath.Join(histories, next, "recorded.json"))
	assert.NoDirExists(t, filepath.Join(histories, "unreleased"))
	images := runnerImages(t, filepath.Join(dir, "deploy"))
	for name, image := range images {
		assert.Equal(t, "ghcr.io/liken-sh/people-operator:"+next, image, name)
	}
	rendered, err := env.Kubectl(timeout(t), "kustomize", filepath.Join(dir, "deploy"))
	require.NoError(t, err)
	assert.Contains(t, rendered, "image: ghcr.io/liken-sh/serial-devices:"+next, "the DRA driver's DaemonSet")
	// The build's workers in a Deployment of their own, beside the last release's during an
	// upgrade; the watcher makes the same build current (internal/rollout).
	assert.Contains(t, images, "liken-worker-"+next+"/worker")
	assert.Equal(t, map[string]string{"people-operator": next, "liken-worker-" + next: next},
		builds(t, filepath.Join(dir, "deploy")), "the build each Deployment's pods run as")

	out, err = release(t, dir, next)
	assert.Error(t, err, "a release is cut once")
	assert.Contains(t, out, "no section")
}

// release runs hack/release.sh in dir and returns what it printed; an error when it refused.
func release(t *testing.T, dir, version string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "hack/release.sh", version)
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func run(t *testing.T, dir, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = dir, gitEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %v: %s", prog, args, out)
	return strings.TrimSpace(string(out))
}

// gitEnv is this process's environment with an author for the clone's commits.
func gitEnv() []string {
	return append(os.Environ(), "GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.invalid")
}

// runnerImages renders a deploy/ folder and returns each runner container's image by its
// Deployment and container.
func runnerImages(t *testing.T, deploy string) map[string]string {
	t.Helper()
	images := map[string]string{}
	for _, d := range renderedDeployments(t, deploy) {
		for _, c := range d.Spec.Template.Spec.Containers {
			if strings.Contains(c.Image, "people-operator") {
				images[d.Name+"/"+c.Name] = c.Image
			}
		}
	}
	require.NotEmpty(t, images, "deploy/ runs the runner's image")
	return images
}

// builds is the liken.sh/build label of each rendered Deployment's pods that has one.
func builds(t *testing.T, deploy string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, d := range renderedDeployments(t, deploy) {
		if b, ok := d.Spec.Template.Labels["liken.sh/build"]; ok {
			got[d.Name] = b
		}
	}
	return got
}

// renderedDeployments are the Deployments `kubectl kustomize deploy` renders.
func renderedDeployments(t *testing.T, deploy string) []appsv1.Deployment {
	t.Helper()
	out, err := env.Kubectl(timeout(t), "kustomize", deploy)
	require.NoError(t, err)
	var all []appsv1.Deployment
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096)
	for {
		var d appsv1.Deployment
		if err := dec.Decode(&d); err == io.EOF {
			return all
		}
		require.NoError(t, err)
		if d.Kind == "Deployment" {
			all = append(all, d)
		}
	}
}
