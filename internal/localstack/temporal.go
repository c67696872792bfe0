// The Temporal half of the stack: the official CLI's dev server (`temporal server start-dev`),
// with its Web UI when a person is going to look at it. SQLite runs in WAL mode with
// synchronous=normal: the notes measured it 2-3x faster than the defaults, and it loses commits
// only on a power loss or OS crash, never on a process crash.
package localstack

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"go.temporal.io/sdk/client"
)

func (s *Stack) startTemporal(ctx context.Context) error {
	if s.opts.Temporal.Postgres != "" {
		return s.startTemporalServer(ctx)
	}
	if s.opts.Temporal.TLS {
		return errors.New("TLS comes with Temporal's server on PostgreSQL only; the dev server has none here")
	}
	bin, err := s.bin("temporal-"+TemporalVersion, "temporal")
	if err != nil {
		return err
	}
	t := s.opts.Temporal
	if t.Port == 0 {
		if t.Port, err = FreePort(); err != nil {
			return err
		}
	}
	// Its HTTP and metrics ports too come from our range: left to the server, they would be
	// ephemeral ports (see FreePort).
	extra, err := freePorts(2)
	if err != nil {
		return err
	}
	args := []string{"server", "start-dev",
		"--ip", "127.0.0.1", "--port", strconv.Itoa(t.Port),
		"--http-port", strconv.Itoa(extra[0]), "--metrics-port", strconv.Itoa(extra[1]),
		"--namespace", "default", "--log-level", "warn",
		// As deploy/temporal/sqlite runs it: see there why.
		"--dynamic-config-value", "history.transferProcessorMaxPollRPS=100",
		"--dynamic-config-value", "history.timerProcessorMaxPollRPS=100",
		// A build that no longer runs any reservation is seen to have drained within seconds,
		// not the 3 + 3 minutes a site's server takes, so its workers can go (internal/rollout).
		"--dynamic-config-value", `matching.wv.VersionDrainageStatusRefreshInterval="5s"`,
		"--dynamic-config-value", `matching.wv.VersionDrainageStatusVisibilityGracePeriod="5s"`,
	}
	if t.UI {
		if t.UIPort == 0 {
			if t.UIPort, err = FreePort(); err != nil {
				return err
			}
		}
		args = append(args, "--ui-ip", "127.0.0.1", "--ui-port", strconv.Itoa(t.UIPort))
		s.TemporalUI = fmt.Sprintf("http://127.0.0.1:%d", t.UIPort)
	} else {
		args = append(args, "--headless")
	}
	if t.DBFile != "" {
		args = append(args, "--db-filename", t.DBFile,
			"--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal")
	}
	for _, name := range slices.Sorted(maps.Keys(t.SearchAttributes)) {
		args = append(args, "--search-attribute", name+"="+t.SearchAttributes[name])
	}
	s.TemporalAddress = fmt.Sprintf("127.0.0.1:%d", t.Port)
	return s.run(ctx, &proc{
		name: "temporal", path: bin, dir: s.opts.Dir, args: args,
		ready: func(ctx context.Context) error { return temporalHealthy(ctx, s.TemporalAddress, nil) },
	})
}

// temporalHealthy says whether the frontend at addr answers, dialed with tlsCfg (nil: none).
func temporalHealthy(ctx context.Context, addr string, tlsCfg *tls.Config) error {
	c, err := client.DialContext(ctx, client.Options{HostPort: addr, Logger: quiet{},
		ConnectionOptions: client.ConnectionOptions{TLS: tlsCfg}})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err
}

// quiet drops the SDK's logs while we poll a server that is still starting.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
