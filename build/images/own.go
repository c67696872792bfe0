// A driver image of one's own, for drivers Debian does not package (a vendor's indi-asi or
// indi-qhy, with the SDK package they need): built from the Debian package files the user
// provides, laid out as the project's INDI images are, so a device's spec.driver.image can
// name it. It holds every file of the packages, socat (device pods run the driver behind it),
// and every library the packages' programs load, from the packages or else from Debian's tree
// of the CPU; the INDI user, uid 1000 with HOME /tmp, where drivers keep their config.
package images

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Package is a Debian package file unpacked: its control fields and its files under Root.
type Package struct {
	Name, Version, Arch string
	Root                string
}

// ExtractDeb unpacks a .deb into dir with dpkg-deb and reads its control fields.
func ExtractDeb(deb, dir string) (Package, error) {
	out, err := exec.Command("dpkg-deb", "--field", deb, "Package", "Version", "Architecture").Output()
	if err != nil {
		return Package{}, fmt.Errorf("read %s: %w (is it a Debian package? dpkg-deb reads it)", deb, err)
	}
	fields := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok {
			fields[k] = v
		}
	}
	pkg := Package{Name: fields["Package"], Version: fields["Version"], Arch: fields["Architecture"], Root: dir}
	if out, err := exec.Command("dpkg-deb", "--extract", deb, dir).CombinedOutput(); err != nil {
		return Package{}, fmt.Errorf("unpack %s: %v: %s", deb, err, out)
	}
	return pkg, nil
}

// OwnDriver is the image repository:tag of pkgs, packages of the platform's CPU.
func OwnDriver(p Platform, repository, tag string, pkgs []Package) (Image, error) {
	roots := []string{}
	var progs, files []string
	for _, pkg := range pkgs {
		if pkg.Arch != p.Arch && pkg.Arch != "all" {
			return Image{}, fmt.Errorf("%s %s is for %s, not %s", pkg.Name, pkg.Version, pkg.Arch, p.Arch)
		}
		roots = append(roots, pkg.Root)
		err := filepath.WalkDir(pkg.Root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel := "/" + strings.TrimPrefix(path, pkg.Root+"/")
			files = append(files, rel)
			if filepath.Dir(rel) == "/usr/bin" && strings.HasPrefix(d.Name(), "indi_") {
				progs = append(progs, rel)
			}
			return nil
		})
		if err != nil {
			return Image{}, err
		}
	}
	if len(progs) == 0 {
		return Image{}, fmt.Errorf("no INDI driver (usr/bin/indi_*) in the packages for %s", p.Arch)
	}
	roots = append(roots, p.Debian)
	progs = append(progs, "/usr/bin/socat")
	libs, err := closure(roots, progs...)
	if err != nil {
		return Image{}, fmt.Errorf("%s for %s: %w", repository, p.Arch, err)
	}
	l := base(indiUser)
	for _, f := range append(append(files, "/usr/bin/socat"), libs...) {
		e, err := fromTrees(roots, f)
		if err != nil {
			// A link the trees cannot follow (into a package not given) stays a link.
			target, ok := linkIn(roots, f)
			if !ok {
				return Image{}, fmt.Errorf("%s for %s: %w", repository, p.Arch, err)
			}
			e = Entry{Path: f, Link: target}
		}
		l.Add(e)
	}
	return Image{Name: repository + ":" + tag, Arch: p.Arch, Layer: l, Env: []string{pathEnv, "HOME=/tmp"}, User: "1000:1000", Labels: p.Labels}, nil
}

// linkIn is the target of the first link at path p in the trees.
func linkIn(roots []string, p string) (string, bool) {
	for _, root := range roots {
		if target, err := os.Readlink(filepath.Join(root, p)); err == nil {
			return target, true
		}
	}
	return "", false
}
