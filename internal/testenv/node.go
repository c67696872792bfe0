// The real node's images, for test packages that run pods as real containers.
package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"liken.sh/runner/internal/images"
	"liken.sh/runner/internal/stack"
)

// NodeImageTag is the runner image's tag on the real node: a tag other than latest, so
// the kubelet uses the imported image and never tries a registry.
const NodeImageTag = "local"

func archivePath(dir string) string { return filepath.Join(dir, "images.tar") }

func buildImages(ctx context.Context, root, cache, dir string) error {
	started := time.Now()
	if err := images.BuildArchive(ctx, root, archivePath(dir), stack.ImageInputs(cache, NodeImageTag)); err != nil {
		return fmt.Errorf("build the node's images: %w", err)
	}
	logf("built the node's images in %s", time.Since(started).Round(time.Millisecond))
	return nil
}

func importImages(ctx context.Context, s *stack.Stack, dir string, built <-chan error) error {
	select {
	case err := <-built:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return fmt.Errorf("the node's images were not built in time: %w", ctx.Err())
	}
	started := time.Now()
	if err := s.Node.Import(ctx, archivePath(dir)); err != nil {
		return err
	}
	logf("imported the node's images in %s", time.Since(started).Round(time.Millisecond))
	return nil
}

func logf(f string, a ...any) { fmt.Fprintf(os.Stderr, "testenv: "+f+"\n", a...) }
