// Keeping the stack's processes running, as a kubelet keeps a pod's containers: `make run` is a
// small process supervisor. A process that exits without being asked to (killed by the OOM
// killer, a panic, a signal from a person) is said so in one line, started again with the
// same flags after a back-off that doubles, and said back once it is ready again. One that
// keeps failing is given up on: Supervise returns why, and its caller stops everything.
package localstack

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// How often Supervise starts one process again within window before it gives up, and the
// first wait before a start, which doubles with each restart within window (1, 2, 4, 8, 16 s):
// a program that crashes at once every time is given up on within a minute; one killed now
// and then is started again for ever.
var (
	restarts     = 5
	window       = 10 * time.Minute
	firstBackOff = time.Second
)

// Supervise keeps every process started so far running until ctx ends, and returns nil then.
// When a process has had to be started again restarts times within window, or cannot be,
// it returns an error that says which and why, and the caller stops the stack. Exits that
// Stop or StopProcess asked for are left alone, and a process that StopProcess's restart
// starts again is kept running again. It returns only once it starts nothing more.
func (s *Stack) Supervise(ctx context.Context) error {
	s.mu.Lock()
	procs := append([]*proc(nil), s.procs...)
	s.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.keepRunning(ctx, p); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != context.Canceled {
		return err
	}
	return nil
}

// keepRunning starts p again each time it exits unasked, until ctx ends or p fails too often.
func (s *Stack) keepRunning(ctx context.Context, p *proc) error {
	var starts []time.Time // the restarts within window
	for {
		done, next, how := p.exited()
		select {
		case <-ctx.Done():
			return nil
		case <-done:
		}
		status, asked := how()
		if asked {
			select { // StopProcess's restart may start it again
			case <-ctx.Done():
				return nil
			case <-next:
				continue
			}
		}
		exited := time.Now()
		s.log.Warn(fmt.Sprintf("%s exited (%s)", p.name, status), "log", p.log)
		for {
			if starts = recent(starts, time.Now().Add(-window)); len(starts) >= restarts {
				return fmt.Errorf("%s was started again %d times within %s and failed again (%s); giving up (its log: %s)",
					p.name, len(starts), window, status, p.log)
			}
			wait := firstBackOff << len(starts) // as a kubelet's back-off grows

			s.log.Info(fmt.Sprintf("starting %s again in %s", p.name, wait))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
			starts = append(starts, time.Now())
			err := p.restart(ctx)
			if ctx.Err() != nil {
				return nil
			}
			if err == nil {
				s.log.Info(fmt.Sprintf("%s is back, %s after it exited", p.name, time.Since(exited).Round(100*time.Millisecond)))
				break
			}
			status = firstLine(err.Error())
			s.log.Warn(fmt.Sprintf("%s did not come back (%s)", p.name, status), "log", p.log)
			p.stop(10 * time.Second)
		}
	}
}

// recent keeps the times after since.
func recent(times []time.Time, since time.Time) []time.Time {
	for len(times) > 0 && times[0].Before(since) {
		times = times[1:]
	}
	return times
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
