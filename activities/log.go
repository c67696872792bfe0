// The activities' logger: Temporal's inside an activity, slog's when a test calls an
// activity as a plain method.
package activities

import (
	"context"
	"log/slog"

	"go.temporal.io/sdk/activity"
)

// Logger is what both Temporal's logger and slog offer; a test may call an activity plainly.
type Logger interface {
	Info(msg string, keyvals ...any)
	Warn(msg string, keyvals ...any)
}

// LogFor is the logger of the activity that ctx runs.
func LogFor(ctx context.Context) Logger {
	if activity.IsActivity(ctx) {
		return activity.GetLogger(ctx)
	}
	return slog.Default()
}
