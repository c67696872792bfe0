// The real node's images, for test packages that run pods as real containers.
package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"liken.sh/runner/test/images"
	"liken.sh/runner/test/stack"
)

// NodeImageTag is the runner image's tag on the real node: a tag other than latest, so
// the kubelet uses the imported image and never tries a registry.
const NodeImageTag = "local"

func archivePath(dir string) string { return filepath.Join(dir, "images.tar") }

// buildImages has a budget of its own: the first build compiles the programs from an empty
// build cache, which took 4 minutes on a busy machine.
func buildImages(root, cache, dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	started := time.Now()
	if err := images.BuildArchive(ctx, root, archivePath(dir), stack.ImageInputs(cache, NodeImageTag)); err != nil {
		return fmt.Errorf("build the node's images: %w", err)
	}
	logf("built the node's images in %s", time.Since(started).Round(time.Millisecond))
	return nil
}

func importImages(s *stack.Stack, dir string, built <-chan error) error {
	if err := <-built; err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	started := time.Now()
	if err := s.Node.Import(ctx, archivePath(dir)); err != nil {
		return err
	}
	logf("imported the node's images in %s", time.Since(started).Round(time.Millisecond))
	return nil
}

func logf(f string, a ...any) { fmt.Fprintf(os.Stderr, "testenv: "+f+"\n", a...) }
