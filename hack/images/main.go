// Command images builds every image the real node runs (test/images) into one
// docker-archive tarball, without Docker or a registry:
//
//	go run ./hack/images -out images.tar [-tag local]
//
// and, given a node's containerd socket, loads it there too (the tests and `make run` with
// the real node do this themselves). It needs the cache hack/tools.sh builds.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"liken.sh/runner/test/images"
	"liken.sh/runner/test/stack"
)

func main() {
	out := flag.String("out", "images.tar", "the archive to write")
	tag := flag.String("tag", "local", "the tag of the runner's image ("+images.RunnerRepository+")")
	load := flag.String("containerd", "", "a containerd socket to import the archive into (namespace k8s.io)")
	flag.Parse()
	if err := run(*out, *tag, *load); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run(out, tag, load string) error {
	wd, _ := os.Getwd()
	root, err := stack.Root(wd)
	if err != nil {
		return err
	}
	ctx := context.Background()
	started := time.Now()
	in := stack.ImageInputs(stack.Cache(root), tag)
	if err := images.BuildArchive(ctx, root, out, in); err != nil {
		return err
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d MB) in %s\n", out, st.Size()>>20, time.Since(started).Round(time.Millisecond))
	if load == "" {
		return nil
	}
	ctr := stack.CtrPath(stack.Cache(root))
	cmd := exec.Command(ctr, "-n", "k8s.io", "-a", load, "images", "import", out)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}
