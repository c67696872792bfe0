// Killing a process as an OOM kill or a crash would, found by its command line: the tests of
// the site guard kill the guard (a driver that its indiserver starts again) or its server's
// container, and then judge what it does with nothing of the runner there.
package inditest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// KillProcess SIGKILLs every process of this machine whose arguments match, and fails the
// test when none does.
func KillProcess(t testing.TB, match func(args []string) bool) {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	killed := 0
	for _, f := range cmdlines {
		b, err := os.ReadFile(f)
		if err != nil || len(b) == 0 || !match(strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")) {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err == nil {
			t.Logf("killed pid %d: %s", pid, strings.ReplaceAll(string(b), "\x00", " "))
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("no process to kill matches")
	}
}

// Runs is a match of KillProcess: the process runs program (its first argument).
func Runs(program string) func([]string) bool {
	return func(args []string) bool { return args[0] == program }
}
