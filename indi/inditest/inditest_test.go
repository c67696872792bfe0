// These tests check the helper's own promises: a driver that cannot run fails the launch with
// indiserver's log instead of a timeout, a machine without indiserver is told how to get it,
// and two servers run side by side.

package inditest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/inditest"
)

func TestADriverThatCannotRunFailsTheLaunchWithTheLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := filepath.Join(dir, "indi_broken_driver")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\necho 'no such device' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	s, err := inditest.Launch(ctx, dir, "indi_simulator_focus", broken)
	if err == nil {
		s.Stop()
		t.Fatal("launched with a broken driver")
	}
	if !strings.Contains(err.Error(), "could not run driver") || !strings.Contains(err.Error(), "no such device") {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %v to notice", time.Since(start))
	}
}

func TestAMachineWithoutIndiserverIsToldHowToInstallIt(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := inditest.Launch(context.Background(), t.TempDir(), "indi_simulator_dome")
	if err == nil || !strings.Contains(err.Error(), "hack/tools.sh indi") {
		t.Fatalf("got %v", err)
	}
}

func TestTwoServersRunSideBySide(t *testing.T) {
	t.Parallel()
	a := inditest.Start(t, "indi_simulator_dome")
	b := inditest.Start(t, "indi_simulator_dome")
	if a == b {
		t.Fatalf("both on %s", a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, addr := range []string{a, b} {
		c, err := indi.Dial(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Sync(ctx, "Dome Simulator"); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
}
