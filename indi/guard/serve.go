// The guard as a process: the driver indiserver runs through a link named Driver.
package guard

import (
	"context"
	"log/slog"
	"os"
	"time"

	"liken.sh/runner/internal/version"
)

// Serve runs the guard as indiserver's driver: its messages on stdin and stdout, its log on
// stderr (which indiserver keeps, prefixed with the driver's name).
func Serve(ctx context.Context) error {
	g := &Guard{Server: ServerAddress(os.Getenv), In: os.Stdin, Out: os.Stdout, Now: time.Now,
		State: os.Getenv(StateEnv), Armed: os.Getenv(ArmedEnv), Version: version.Get().Version,
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil)).With("program", Driver)}
	return g.Run(ctx)
}
