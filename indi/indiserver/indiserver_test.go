// These tests check the package's own promises: a driver that cannot run fails the launch with
// indiserver's log instead of a timeout, a machine without indiserver is told how to get it,
// two servers run side by side on 127.0.0.1 only, and a detached server outlives the process that launched it
// and is stopped by the one that attaches it.

package indiserver_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/indiserver"
	"liken.sh/runner/indi/inditest"
	"liken.sh/runner/test/testenv"
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
	s, err := indiserver.Launch(ctx, dir, "indi_simulator_focus", broken)
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
	_, err := indiserver.Launch(context.Background(), t.TempDir(), "indi_simulator_dome")
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

func TestAServerListensOnLoopbackOnlyAndOnThePortItIsGiven(t *testing.T) {
	t.Parallel()
	first := inditest.StartServer(t, "indi_simulator_dome")
	addrs, err := testenv.Listening(first.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(addrs) != 1 || addrs[0] != first.Addr {
		t.Fatalf("indiserver listens on %v, want %s only", addrs, first.Addr)
	}
	// Started again on the port its clients were told, once that port is free.
	_, port, _ := strings.Cut(first.Addr, ":")
	first.Stop()
	want, _ := strconv.Atoi(port)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	again, err := indiserver.LaunchWith(ctx, t.TempDir(), indiserver.Options{Port: want}, "indi_simulator_dome")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Stop()
	if again.Addr != first.Addr {
		t.Errorf("started again at %s, want %s", again.Addr, first.Addr)
	}
}

// launcherEnv makes this test binary a launcher that starts a detached server and waits to be
// killed, as a worker in dev mode would be.
const launcherEnv = "INDITEST_DETACHED_HOME"

func TestMain(m *testing.M) {
	if home := os.Getenv(launcherEnv); home != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		s, err := indiserver.LaunchWith(ctx, home, indiserver.Options{Detached: true}, "indi_simulator_dome")
		cancel()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(s.Addr, s.Pid)
		time.Sleep(time.Minute)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestADetachedServerOutlivesItsLauncherAndIsStoppedByWhoeverAttachesIt(t *testing.T) {
	t.Parallel()
	// A short HOME: indiserver's local socket lives under it, and a test's TempDir is too long.
	home, err := os.MkdirTemp("", "inditest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	launcher := exec.Command(os.Args[0])
	launcher.Env = append(os.Environ(), launcherEnv+"="+home)
	out, err := launcher.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := launcher.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { launcher.Process.Kill() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the launcher said nothing: %v", err)
	}
	var addr string
	var pid int
	if _, err := fmt.Sscan(line, &addr, &pid); err != nil {
		t.Fatalf("the launcher said %q", line)
	}
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })

	// The launcher dies abruptly; its server goes on serving.
	launcher.Process.Kill()
	launcher.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := indi.Dial(ctx, addr)
	if err != nil {
		t.Fatalf("the server died with its launcher: %v", err)
	}
	if err := c.Sync(ctx, "Dome Simulator"); err != nil {
		t.Fatal(err)
	}
	c.Close()

	if _, err := indiserver.Attach("127.0.0.1:1", home, pid); err == nil {
		t.Fatal("attached a server on the wrong port")
	}
	s, err := indiserver.Attach(addr, home, pid)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Running() || !strings.Contains(s.Log(), "Dome Simulator") && !strings.Contains(s.Log(), "indi_simulator_dome") {
		t.Fatalf("running %v, log %q", s.Running(), s.Log())
	}
	s.Stop()
	if s.Running() {
		t.Fatal("Stop left it running")
	}
	if _, err := indiserver.Attach(addr, home, pid); err == nil {
		t.Fatal("attached a stopped server")
	}
	if _, err := indi.Dial(ctx, addr); err == nil {
		t.Fatal("a stopped server answers")
	}
}
