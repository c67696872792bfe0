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
//
// With -debs it builds instead one driver image of one's own, from Debian package files of
// drivers Debian does not package (build/images/own.go):
//
//	go run ./hack/images -registry registry.example/liken -debs indi-asi_2.3_arm64.deb,libasi_1.36_arm64.deb
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"liken.sh/runner/build/images"
	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/kube"
)

func main() {
	registry := flag.String("registry", "", "where to push, such as registry.example/liken (required)")
	tag := flag.String("tag", "", "the release: the runner image's tag and its programs' version (required)")
	arches := flag.String("arch", "amd64,arm64", "the CPUs (GOARCH) to build for")
	latest := flag.Bool("latest", false, "tag the runner's image latest as well (main's builds: deploy/ on main names it)")
	debs := flag.String("debs", "", "instead, build a driver image of one's own from these Debian package files (comma-separated: a driver's and its SDK's, for each CPU)")
	name := flag.String("name", "", "with -debs, the image's name (default: the name of the package that holds the drivers)")
	flag.Parse()
	if *registry == "" || *tag == "" && *debs == "" {
		flag.Usage()
		os.Exit(2)
	}
	var err error
	if *debs != "" {
		err = own(*registry, *name, *tag, strings.Split(*debs, ","))
	} else {
		err = run(*registry, *tag, strings.Split(*arches, ","), *latest)
	}
	if err != nil {
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

// own builds one image of the drivers in debs, an index of the CPUs they are for, named after
// the package that holds the drivers (or name) and tagged with its version (or tag).
func own(registry, name, tag string, debs []string) error {
	work, err := os.MkdirTemp("", "liken-own-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	byArch := map[string][]images.Package{}
	var driver images.Package
	for i, deb := range debs {
		pkg, err := images.ExtractDeb(deb, filepath.Join(work, strconv.Itoa(i)))
		if err != nil {
			return err
		}
		if hasDrivers(pkg.Root) {
			driver = pkg
		}
		byArch[pkg.Arch] = append(byArch[pkg.Arch], pkg)
	}
	if name == "" {
		name = driver.Name
	}
	if tag == "" {
		tag = kube.ImageTag(driver.Version)
	}
	var imgs []images.Image
	for arch, pkgs := range byArch {
		tree, err := images.DebianTree(localstack.Cache(), arch)
		if err != nil {
			return err
		}
		p := images.Platform{Arch: arch, Debian: tree, Labels: images.Labels(tag, "")}
		img, err := images.OwnDriver(p, name, tag, pkgs)
		if err != nil {
			return err
		}
		imgs = append(imgs, img)
	}
	refs, err := images.Push(context.Background(), imgs, images.Into(registry))
	for _, r := range refs {
		fmt.Println(r)
	}
	return err
}

// hasDrivers says whether an unpacked package holds INDI drivers.
func hasDrivers(root string) bool {
	found, _ := filepath.Glob(filepath.Join(root, "usr/bin/indi_*"))
	return len(found) > 0
}
