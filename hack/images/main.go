// Command images builds and pushes every image a cluster runs from this project (the
// runner's, the INDI server's, the simulators' and indi-open's, build/images), as indexes for
// linux/amd64 and linux/arm64, without Docker:
//
//	go run ./hack/images -registry registry.example/liken -tag v0.1.0
//
// (`make images REGISTRY=... TAG=...`). The runner's image is tagged -tag and its programs
// say that version; the INDI images keep the INDI release's tag (kube.INDIImageTag), and the
// server's, which holds the site guard, adds the version to it (kube.ServerImageOf). It needs
// `bash hack/tools.sh indi-images` (Debian's INDI packages of each CPU in the cache).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"liken.sh/runner/build/images"
	"liken.sh/runner/internal/localstack"
)

func main() {
	registry := flag.String("registry", "", "where to push, such as registry.example/liken (required)")
	tag := flag.String("tag", "", "the release: the runner image's tag and its programs' version (required)")
	arches := flag.String("arch", "amd64,arm64", "the CPUs (GOARCH) to build for")
	latest := flag.Bool("latest", false, "tag the runner's image latest as well (main's builds: deploy/ on main names it)")
	flag.Parse()
	if *registry == "" || *tag == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*registry, *tag, strings.Split(*arches, ","), *latest); err != nil {
		fmt.Fprintln(os.Stderr, "images:", err)
		os.Exit(1)
	}
}

func run(registry, tag string, arches []string, latest bool) error {
	wd, _ := os.Getwd()
	root, err := localstack.Root(wd)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "liken-images-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	ctx := context.Background()
	started := time.Now()
	b := images.Builder{Root: root, Cache: localstack.Cache(), Work: work, Version: tag}
	imgs, err := b.Project(ctx, tag, arches)
	if err != nil {
		return err
	}
	if latest {
		for _, im := range imgs {
			for _, repo := range []string{images.RunnerRepository, images.DevicesRepository} {
				if im.Name == repo+":"+tag {
					im.Name = repo + ":latest"
					imgs = append(imgs, im)
				}
			}
		}
	}
	refs, err := images.Push(ctx, imgs, images.Into(registry))
	if err != nil {
		return err
	}
	for _, r := range refs {
		fmt.Println(r)
	}
	fmt.Printf("pushed %d images for %s in %s\n", len(refs), strings.Join(arches, ", "), time.Since(started).Round(time.Millisecond))
	return nil
}
