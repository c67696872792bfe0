// The real node's images, for test packages that run pods as real containers: built while
// the stack starts, then pushed to the stack's registry, from which the node pulls them.
package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"liken.sh/runner/build/images"
	"liken.sh/runner/internal/localstack"
)

// NodeImageTag is the runner image's tag on the real node: a tag other than latest, so
// the kubelet pulls it once (IfNotPresent).
const NodeImageTag = "local"

// buildImages has a budget of its own: the first build compiles the programs from an empty
// build cache, which took 4 minutes on a busy machine.
func buildImages(root, cache, dir, build string) ([]images.Image, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	started := time.Now()
	imgs, err := localstack.NodeImages(ctx, root, cache, filepath.Join(dir, "image-programs"), NodeImageTag, build)
	if err != nil {
		return nil, fmt.Errorf("build the node's images: %w", err)
	}
	logf("built the node's images in %s", time.Since(started).Round(time.Millisecond))
	return imgs, nil
}

type builtImages struct {
	imgs []images.Image
	err  error
}

func pushImages(s *localstack.Stack, built <-chan builtImages) error {
	b := <-built
	if b.err != nil {
		return b.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	started := time.Now()
	if err := s.Push(ctx, b.imgs); err != nil {
		return err
	}
	logf("pushed the node's images to the stack's registry in %s", time.Since(started).Round(time.Millisecond))
	return nil
}

func logf(f string, a ...any) { fmt.Fprintf(os.Stderr, "testenv: "+f+"\n", a...) }
