package temporal

import "go.temporal.io/sdk/internal"

// RetryPolicy defines the retry policy for activity/workflow.
type RetryPolicy = internal.RetryPolicy
