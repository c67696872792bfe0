// What the binaries link, read from `go list -deps` as a plain `go build` sees them: no test
// code, ours or anyone's, nor the local stack of `make run`, but for the one edge every Temporal Go program has (sdkTestEdge); and
// a watcher without the worker's activities and clients.
package app_test

import (
	"os/exec"
	"strings"
	"testing"
)

// imports maps each package the commands link to the packages it imports.
func imports(t *testing.T, cmds ...string) map[string][]string {
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, cmds...)
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[f[0]] = f[1:]
	}
	return deps
}

// sdkTestEdge is the one package allowed to bring test code in: the Temporal Go SDK keeps its
// workflow test suite in go.temporal.io/sdk/internal, which every client and worker imports, so
// every Temporal Go program links `testing` and testify through it. Its maintainers keep it so
// for the SDK's v1. The SDK is used as published; only this edge is allowed, so test code that
// anything else brings in (ours above all) still fails the test.
const sdkTestEdge = "go.temporal.io/sdk/internal"

func TestTheBinariesLinkNoTestCode(t *testing.T) {
	cmds := []string{"liken.sh/runner/cmd/worker", "liken.sh/runner/cmd/watcher", "liken.sh/runner/cmd/indi-shim"}
	deps := imports(t, "./cmd/worker", "./cmd/watcher", "./cmd/indi-shim")
	seen := map[string]string{} // package -> who imports it
	next := cmds
	for len(next) > 0 {
		pkg := next[0]
		next = next[1:]
		for _, imp := range deps[pkg] {
			if _, ok := seen[imp]; ok || pkg == sdkTestEdge && isTestCode(imp) {
				continue
			}
			seen[imp] = pkg
			next = append(next, imp)
		}
	}
	for pkg, by := range seen {
		if isTestCode(pkg) {
			t.Errorf("a binary links %s (imported by %s)", pkg, by)
		}
	}
}

// isTestCode says whether pkg is test code (the standard library's, testify, or ours) or the
// local stack that `make run` and the tests start, which no binary of a cluster runs.
func isTestCode(pkg string) bool {
	ours := strings.HasPrefix(pkg, "liken.sh/runner/")
	return strings.HasPrefix(pkg, "liken.sh/runner/internal/localstack") || pkg == "testing" || pkg == "net/http/httptest" || strings.HasPrefix(pkg, "github.com/stretchr/testify/") ||
		strings.Contains(pkg, "go-containerregistry") ||
		ours && (strings.HasPrefix(pkg, "liken.sh/runner/test/") || strings.HasSuffix(pkg, "test"))
}

func TestTheWatcherLinksNoActivitiesNorClients(t *testing.T) {
	for pkg := range imports(t, "./cmd/watcher") {
		for _, banned := range []string{"activities", "indi", "phd2", "pictures", "workflows"} {
			if pkg == "liken.sh/runner/"+banned || strings.HasPrefix(pkg, "liken.sh/runner/"+banned+"/") && !isValues(pkg) {
				t.Errorf("the watcher links %s", pkg)
			}
		}
	}
}

// The activities sit below the workflows: what both need (IDs, signals, payloads) is in
// contract, below both.
func TestTheActivitiesImportNoWorkflowCode(t *testing.T) {
	for pkg := range imports(t, "./activities/...") {
		if strings.HasPrefix(pkg, "liken.sh/runner/workflows") {
			t.Errorf("the activities import %s", pkg)
		}
	}
}

// isValues says whether pkg is one of the value packages kube/ uses, which neither dial nor draw.
func isValues(pkg string) bool {
	switch pkg {
	case "liken.sh/runner/indi/prop", "liken.sh/runner/phd2/guiding", "liken.sh/runner/pictures/avatar":
		return true
	}
	return false
}
