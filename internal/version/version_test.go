// The version a binary reports: the pure reading of the linked version and Go's build
// information, and one real binary built with the linker flag, as the Makefile builds it.
package version

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestAVersionIsReadFromTheLinkerElseFromGosBuildInformation(t *testing.T) {
	checkout := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc1234def5678"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		name   string
		linked string
		bi     *debug.BuildInfo
		want   Info
	}{
		{"a release is the linked version", "v0.1.0", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, Info{Version: "v0.1.0"}},
		{"a release built in a checkout names its commit too", "v0.1.0", checkout, Info{Version: "v0.1.0", Revision: "abc1234", Modified: true}},
		{"go build in a checkout is dev at its commit", "dev", checkout, Info{Version: "dev", Revision: "abc1234", Modified: true}},
		{"go install of a tag is the module's version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, Info{Version: "v0.2.0"}},
		{"an empty linked version is dev", "", nil, Info{Version: "dev"}},
		{"no build information is dev", "dev", nil, Info{Version: "dev"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := describe(c.linked, c.bi); got != c.want {
				t.Errorf("describe(%q) = %+v, want %+v", c.linked, got, c.want)
			}
		})
	}
}

func TestTheVersionLineNamesTheCommitOnlyWhenItIsKnown(t *testing.T) {
	for _, c := range []struct {
		in   Info
		want string
	}{
		{Info{Version: "v0.1.0", Revision: "abc1234", GoVersion: "go1.26.1", Platform: "linux/arm64"}, "v0.1.0 (commit abc1234) go1.26.1 linux/arm64"},
		{Info{Version: "dev", Revision: "abc1234", Modified: true, GoVersion: "go1.26.1", Platform: "linux/amd64"}, "dev (commit abc1234, modified) go1.26.1 linux/amd64"},
		{Info{Version: "dev", GoVersion: "go1.26.1", Platform: "linux/amd64"}, "dev go1.26.1 linux/amd64"},
	} {
		if got := c.in.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTheWorkerBuiltWithTheLinkFlagsPrintsItsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the worker")
	}
	bin := filepath.Join(t.TempDir(), "worker")
	if out, err := exec.Command("go", "build", "-ldflags", LinkFlags("v9.9.9-test"), "-o", bin, "liken.sh/runner/cmd/worker").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("worker --version: %v\n%s", err, out)
	}
	if got, want := string(out), "liken-worker v9.9.9-test "; !strings.HasPrefix(got, want) {
		t.Errorf("worker --version printed %q, want it to begin %q", got, want)
	}
}
