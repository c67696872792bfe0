// Building the images from a checkout: the project's programs for each platform (static,
// cross-compiled, as the Dockerfile builds them), the Debian tree each platform's INDI
// images come from, and the labels that say which build an image is.
package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"liken.sh/runner/internal/version"
)

// Builder builds the project's images from the checkout at Root.
type Builder struct {
	Root  string
	Cache string // hack/tools.sh's cache, with the Debian trees of other CPUs
	// Work holds the programs built for the images; it must outlive the push.
	Work string
	// Version is stamped into the programs and labels the images; empty means the
	// checkout's `git describe`, as the Makefile's VERSION.
	Version string
}

// Project builds every image a cluster gets from this project, for each GOARCH of arches,
// with the runner's image tagged runnerTag.
func (b Builder) Project(ctx context.Context, runnerTag string, arches []string) ([]Image, error) {
	v := b.Version
	if v == "" {
		v = VersionOf(b.Root)
	}
	labels := Labels(v, git(b.Root, "rev-parse", "HEAD"))
	var out []Image
	for _, arch := range arches {
		p := Platform{Arch: arch, Programs: filepath.Join(b.Work, arch), Version: v, Labels: labels}
		var err error
		if p.Debian, err = DebianTree(b.Cache, arch); err != nil {
			return nil, err
		}
		if err := b.programs(ctx, p.Programs, arch, v); err != nil {
			return nil, err
		}
		imgs, err := Project(p, runnerTag)
		if err != nil {
			return nil, err
		}
		out = append(out, imgs...)
	}
	return out, nil
}

// VersionOf is the version a build of the checkout at root stamps its programs with when none
// is given: what git describes, else "dev".
func VersionOf(root string) string {
	if v := git(root, "describe", "--tags", "--always", "--dirty"); v != "" {
		return v
	}
	return "dev"
}

func (b Builder) programs(ctx context.Context, out, arch, v string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w "+version.LinkFlags(v), "-o", out+"/",
		"./cmd/worker", "./cmd/watcher", "./cmd/indi-shim", "./cmd/serial-devices")
	cmd.Dir = b.Root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if o, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the programs for %s: %v: %s", arch, err, o)
	}
	return nil
}

// DebianINDI is the source version of Debian's indi-bin the INDI images hold (the release
// kube.INDIImageTag names); hack/tools.sh's INDI_DEBIAN_VERSION pins the same.
const DebianINDI = "1.9.9+dfsg-2"

// DebianTree is where the INDI images of a CPU take Debian's files from: the packages
// hack/tools.sh extracted into the cache (hack/tools.sh indi-images).
func DebianTree(cache, arch string) (string, error) {
	dir := filepath.Join(cache, "debian-indi-"+DebianINDI+"-"+arch, "root")
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("no Debian INDI packages for %s in the cache: run `bash hack/tools.sh indi-images`", arch)
	}
	return dir, nil
}

// TestWorld is the images the test world's node runs that a cluster does not get from this
// project, for this machine's platform: the pod sandbox (pause, the cache's static program),
// the bundled Temporal (the cache's Temporal CLI) and busybox.
func TestWorld(pause, temporal string) ([]Image, error) {
	arch, labels := runtime.GOARCH, Labels("test", "")
	t, err := Temporal(arch, temporal, labels)
	if err != nil {
		return nil, err
	}
	j, err := Job(arch, labels)
	if err != nil {
		return nil, err
	}
	return []Image{Pause(arch, pause, labels), t, j}, nil
}

// git runs git in the checkout; empty when it cannot say (no git, no checkout).
func git(root string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func execOutput(prog string, args ...string) (string, error) {
	out, err := exec.Command(prog, args...).Output()
	return strings.TrimSpace(string(out)), err
}
