// The shared libraries a program needs, found the way the dynamic loader finds them, but in a
// tree of files rather than on a running system: the ELF file names its loader (PT_INTERP) and
// its libraries (DT_NEEDED), and each library is looked up in the folders Debian's loader
// searches by default for that CPU. The tree is Debian's packages of the CPU extracted into
// the cache (or this machine, "/", for the images only the test world runs). Those default
// folders need no ld.so.cache, so the images have none.
package images

import (
	"debug/elf"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// triples are Debian's multiarch folder names of the CPUs the images are built for.
var triples = map[elf.Machine]string{
	elf.EM_X86_64:  "x86_64-linux-gnu",
	elf.EM_AARCH64: "aarch64-linux-gnu",
}

// Closure returns the loader and the libraries that the programs load, as paths in the tree
// at root, sorted. programs are paths in the tree too. A static program adds nothing.
func Closure(root string, programs ...string) ([]string, error) {
	return closure([]string{root}, programs...)
}

// closure is Closure over trees laid one over the other: a path is looked up in each, the
// first first (a package of one's own over Debian's tree).
func closure(roots []string, programs ...string) ([]string, error) {
	seen := map[string]bool{}
	queue := slices.Clone(programs)
	var libs []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		interp, needed, machine, err := readELF(roots, p)
		if err != nil {
			return nil, err
		}
		found := []string{}
		if interp != "" {
			found = append(found, interp)
		}
		for _, n := range needed {
			lib, err := lookUp(roots, machine, n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			found = append(found, lib)
		}
		for _, f := range found {
			if !seen[f] {
				seen[f] = true
				libs = append(libs, f)
				queue = append(queue, f)
			}
		}
	}
	slices.Sort(libs)
	return libs, nil
}

// readELF reads a program's or library's loader and needed libraries.
func readELF(roots []string, p string) (interp string, needed []string, machine elf.Machine, err error) {
	real, err := inTrees(roots, p)
	if err != nil {
		return "", nil, 0, err
	}
	f, err := elf.Open(real)
	if err != nil {
		return "", nil, 0, fmt.Errorf("%s: %w", p, err)
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			b := make([]byte, prog.Filesz)
			if _, err := prog.ReadAt(b, 0); err != nil {
				return "", nil, 0, fmt.Errorf("%s: its loader: %w", p, err)
			}
			interp = strings.TrimRight(string(b), "\x00")
		}
	}
	needed, err = f.ImportedLibraries()
	if err != nil {
		return "", nil, 0, fmt.Errorf("%s: %w", p, err)
	}
	return interp, needed, f.Machine, nil
}

// lookUp finds a library by name in the loader's default folders for the CPU.
func lookUp(roots []string, machine elf.Machine, lib string) (string, error) {
	triple, ok := triples[machine]
	if !ok {
		return "", fmt.Errorf("no image is built for the CPU %s", machine)
	}
	for _, dir := range []string{"/lib/" + triple, "/usr/lib/" + triple, "/lib", "/usr/lib"} {
		p := path.Join(dir, lib)
		for _, root := range roots {
			if _, err := os.Stat(filepath.Join(root, p)); err == nil {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("a library is missing: %s (for %s)", lib, triple)
}

// inTree is where a path of the tree is on this machine, its links followed as the image
// would follow them: an absolute link (Debian's /lib64/ld-linux-x86-64.so.2 is one) leads to
// the tree's root, not this machine's, and no link leads out of the tree.
func inTree(root, p string) (string, error) {
	if root == "/" {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return "", fmt.Errorf("the image needs %s: %w", p, err)
		}
		return real, nil
	}
	rest, at := parts(p), "/"
	for links := 0; len(rest) > 0; {
		next := path.Join(at, rest[0])
		rest = rest[1:]
		fi, err := os.Lstat(filepath.Join(root, next))
		if err != nil {
			return "", fmt.Errorf("the image needs %s: %w", p, err)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			at = next
			continue
		}
		if links++; links > 40 {
			return "", fmt.Errorf("the image needs %s: too many links", p)
		}
		target, err := os.Readlink(filepath.Join(root, next))
		if err != nil {
			return "", err
		}
		if !path.IsAbs(target) {
			target = path.Join(at, target)
		}
		rest, at = append(parts(target), rest...), "/"
	}
	return filepath.Join(root, at), nil
}

// parts are an absolute path's names, without the empty ones.
func parts(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
}

// inTrees is inTree in the first of the trees that has the path.
func inTrees(roots []string, p string) (string, error) {
	var err error
	for _, root := range roots {
		var real string
		if real, err = inTree(root, p); err == nil {
			return real, nil
		}
	}
	return "", err
}

// fromTree is the layer entry of a path of the tree: the file its links lead to in the tree.
func fromTree(root, p string) (Entry, error) {
	return fromTrees([]string{root}, p)
}

// fromTrees is fromTree in the first of the trees that has the path.
func fromTrees(roots []string, p string) (Entry, error) {
	real, err := inTrees(roots, p)
	return Entry{Path: p, From: real}, err
}
