// The supervisor with plain programs, no servers: one that keeps exiting is said so, started
// again with back-off and given up on, with why; one stopped on purpose is left stopped.
package localstack

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// supervised is a stack of one program, sh -c script, whose log lines land in logs.
func supervised(t *testing.T, script string) (*Stack, *lines) {
	t.Helper()
	logs := &lines{}
	s, err := Start(context.Background(), Options{Dir: t.TempDir(), Cache: Cache(), Log: slog.New(slog.NewTextHandler(logs, nil))})
	require.NoError(t, err)
	t.Cleanup(s.Stop)
	require.NoError(t, s.Spawn(context.Background(), Process{Name: "program", Path: "/bin/sh", Args: []string{"-c", script}}))
	return s, logs
}

// lines is a log that the supervisor writes and the test reads at once.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func TestAProgramThatKeepsExitingIsStartedAgainThenGivenUpOn(t *testing.T) {
	defer func(b time.Duration) { firstBackOff = b }(firstBackOff)
	firstBackOff = 10 * time.Millisecond
	s, logs := supervised(t, "sleep 0.1; exit 3")

	err := s.Supervise(context.Background())
	require.ErrorContains(t, err, "program was started again 5 times within 10m0s and failed again (exit status 3); giving up (its log: ")
	assert.Equal(t, 6, strings.Count(logs.String(), `msg="program exited (exit status 3)"`), logs.String())
	assert.Equal(t, 5, strings.Count(logs.String(), `msg="starting program again in `), logs.String())
	assert.Contains(t, logs.String(), "starting program again in 160ms", "the wait doubles with each restart")
	assert.Empty(t, running(s), "nothing runs once it is given up on")
}

func TestAProgramStoppedOnPurposeIsLeftStoppedAndKeptRunningOnceStartedAgain(t *testing.T) {
	defer func(b time.Duration) { firstBackOff = b }(firstBackOff)
	firstBackOff = 10 * time.Millisecond
	s, logs := supervised(t, "sleep 60")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Supervise(ctx) }()

	restart, err := s.StopProcess("program")
	require.NoError(t, err)
	time.Sleep(500 * time.Millisecond) // fifty back-offs
	assert.Empty(t, running(s), "a process stopped on purpose is not started again")
	require.NoError(t, restart(ctx))
	require.NoError(t, syscall.Kill(s.Pid("program"), syscall.SIGKILL))
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "program is back") }, 10*time.Second, 10*time.Millisecond,
		"once started again it is kept running: %s", logs)
	cancel()
	require.NoError(t, <-done)
	assert.Equal(t, 1, strings.Count(logs.String(), "program exited"), logs.String())
}

// running lists the stack's processes that have not exited.
func running(s *Stack) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, p := range s.procs {
		if done, _, _ := p.exited(); done != nil {
			select {
			case <-done:
			default:
				out = append(out, p.name)
			}
		}
	}
	return out
}
