// Package version says which build of the runner a binary is, so that a log line, a metric or
// a workflow history can be traced to the code that wrote it. A release is stamped at link
// time (`make build VERSION=v0.1.0`, the Dockerfile, the test images); a plain `go build` or
// `go run` in a checkout falls back to what Go records of the module and its commit.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the release this binary was built as. The linker sets it (see LinkFlags);
// "dev" means it did not, and Get looks at Go's build information instead.
var Version = "dev"

// LinkFlags is the linker flag that stamps v into a binary: the one spelling for Go code that
// builds the programs (the Makefile and the Dockerfile, not Go, spell it once each).
func LinkFlags(v string) string {
	return "-X liken.sh/runner/internal/version.Version=" + v
}

// Info is what a binary knows of its own build.
type Info struct {
	// Version is the linked release, else the module's version when Go recorded one (a
	// `go install ...@v0.1.0`), else "dev".
	Version string
	// Revision is the commit, abbreviated; empty when Go recorded none (no checkout, or
	// -buildvcs=false).
	Revision string
	// Modified says the checkout had uncommitted changes.
	Modified  bool
	GoVersion string
	Platform  string // GOOS/GOARCH
}

// Get is this binary's build.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	i := describe(Version, bi)
	i.GoVersion, i.Platform = runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH
	return i
}

// Line is what --version prints: "liken-worker v0.1.0 (commit abc1234) go1.26.1 linux/arm64".
func Line(program string) string {
	return program + " " + Get().String()
}

// String reads "v0.1.0 (commit abc1234, modified) go1.26.1 linux/arm64"; the commit part is
// left out when it is unknown.
func (i Info) String() string {
	s := i.Version
	if i.Revision != "" {
		s += " (commit " + i.Revision
		if i.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return fmt.Sprintf("%s %s %s", s, i.GoVersion, i.Platform)
}

// shortRevision is as many of a commit's digits as `git log --oneline` shows.
const shortRevision = 7

// describe reads the version and the commit from the linked version and Go's build
// information (nil when the binary has none).
func describe(linked string, bi *debug.BuildInfo) Info {
	i := Info{Version: linked}
	if i.Version == "" {
		i.Version = "dev"
	}
	if bi == nil {
		return i
	}
	// "(devel)" is what Go records for a main module built in its checkout without a tag.
	if i.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		i.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value[:min(len(s.Value), shortRevision)]
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}
