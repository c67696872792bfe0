package temporal

import "go.temporal.io/sdk/internal"

// Priority defines the priority and fairness metadata for activity/workflow.
type Priority = internal.Priority
