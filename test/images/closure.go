// The shared libraries a program needs, found the way the dynamic loader finds them: ldd
// prints each library's path on this machine, and the image gets each at that same path,
// with the loader itself. Folders the loader searches by default (/lib/x86_64-linux-gnu and
// /usr/lib/x86_64-linux-gnu) need no ld.so.cache, so the image has none.
package images

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Closure returns the libraries (and the loader) that the programs load, sorted. A static
// program adds nothing.
func Closure(programs ...string) ([]string, error) {
	var libs []string
	for _, p := range programs {
		out, err := exec.Command("ldd", p).CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "not a dynamic executable") {
				continue
			}
			return nil, fmt.Errorf("ldd %s: %v: %s", p, err, out)
		}
		found, err := ParseLdd(out)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		libs = append(libs, found...)
	}
	slices.Sort(libs)
	return slices.Compact(libs), nil
}

// ParseLdd reads ldd's output: "libx.so.1 => /path (0x...)" for a library, "/lib64/ld-...
// (0x...)" for the loader, and a line without a path for the kernel's vDSO. A library ldd
// could not find is an error: the program would not start in the image.
func ParseLdd(out []byte) ([]string, error) {
	var libs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.Contains(line, "not found") {
			return nil, fmt.Errorf("a library is missing: %s", line)
		}
		if _, after, ok := strings.Cut(line, "=> "); ok {
			line = after
		}
		if p, _, _ := strings.Cut(line, " "); strings.HasPrefix(p, "/") {
			libs = append(libs, p)
		}
	}
	return libs, nil
}
