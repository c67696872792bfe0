// indiserver's log, the one place that says a driver could not run: kept in memory as it
// is written (a launched server's stderr, or a detached server's log file followed as it
// grows), bounded to its last megabyte, and waited on by Launch for the line it needs.

package indiserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Log returns what indiserver has logged (with -v: drivers starting, exiting, restarting).
func (s *Server) Log() string {
	if s.logFile == "" {
		return s.log.String()
	}
	b, err := os.ReadFile(s.logFile)
	if err != nil {
		return fmt.Sprintf("(the log %s cannot be read: %v)", s.logFile, err)
	}
	if len(b) > maxLog {
		b = b[len(b)-maxLog:]
	}
	return string(b)
}

// follow copies a detached server's log file into s.log as it grows, until stop or its exit.
func (s *Server) follow(stop <-chan struct{}) {
	f, err := os.Open(s.logFile)
	if err != nil {
		return
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		for {
			n, _ := f.Read(buf)
			if n == 0 {
				break
			}
			s.log.Write(buf[:n])
		}
		select {
		case <-stop:
			return
		case <-s.exited:
			s.log.poke()
			return
		case <-t.C:
		}
	}
}

// Attach takes over a detached server that another process launched (and perhaps died

// logBuffer keeps the tail of a log and lets readers wait for a line.
type logBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	waiters map[chan struct{}]bool
}

const maxLog = 1 << 20

func newLogBuffer() *logBuffer { return &logBuffer{waiters: make(map[chan struct{}]bool)} }

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	if l.b.Len() > maxLog {
		tail := append([]byte(nil), l.b.Bytes()[l.b.Len()-maxLog/2:]...)
		l.b.Reset()
		l.b.Write(tail)
	}
	l.mu.Unlock()
	l.poke()
	return len(p), nil
}

func (l *logBuffer) poke() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.waiters {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (l *logBuffer) notify(ch chan struct{}) (stop func()) {
	l.mu.Lock()
	l.waiters[ch] = true
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		delete(l.waiters, ch)
		l.mu.Unlock()
	}
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor waits until ok(log) holds, the process exits, or ctx ends.
func (l *logBuffer) waitFor(ctx context.Context, exited <-chan struct{}, ok func(string) bool) error {
	ch := make(chan struct{}, 1)
	stop := l.notify(ch)
	defer stop()
	for !ok(l.String()) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			if ok(l.String()) {
				return nil
			}
			return errors.New("indiserver exited")
		case <-ch:
		}
	}
	return nil
}
