// Building the images from a checkout: the programs first, then every image.
package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"liken.sh/runner/internal/version"
)

// BuildArchive builds the project's own programs into the images (static, as the
// Dockerfile does: worker, watcher and indi-shim) and writes every image into one archive
// at out. in names the runner's tag and the cache's pause and temporal binaries.
func BuildArchive(ctx context.Context, root, out string, in Inputs) error {
	bin, err := os.MkdirTemp("", "liken-images-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w "+version.LinkFlags(describe(root)), "-o", bin+"/",
		"./cmd/worker", "./cmd/watcher", "./cmd/indi-shim")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the image's programs: %v: %s", err, b)
	}
	in.Worker = filepath.Join(bin, "worker")
	in.Watcher = filepath.Join(bin, "watcher")
	in.Shim = filepath.Join(bin, "indi-shim")
	imgs, err := All(in)
	if err != nil {
		return err
	}
	return Write(out, imgs)
}

// describe is the checkout's version as the Makefile's VERSION reads it (git describe), so an
// image's programs say which commit they were built from; dev without git.
func describe(root string) string {
	cmd := exec.Command("git", "describe", "--tags", "--always", "--dirty")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "dev"
	}
	return strings.TrimSpace(string(out))
}
