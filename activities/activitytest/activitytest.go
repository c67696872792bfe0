// Package activitytest is what the tests of both domains' activities (packages people and
// observatory) share: the local stack each package's TestMain starts, a test's context, and
// the clients its activities are wired with.
package activitytest

import (
	"context"
	"testing"
	"time"

	"liken.sh/runner/activities"
	"liken.sh/runner/test/testenv"
)

// Instance names the worker of these tests in the Events it posts.
const Instance = "worker-test-0"

// Stack is the local stack the activities' tests run against: a real API server with the
// project's CRDs.
var Stack = testenv.Options{Kube: true, CRDs: true}

// Context is a test's context, which ends when the test does and after two minutes at most.
func Context(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// Clients are the clients of env, as the worker wires its own.
func Clients(env *testenv.Env) activities.Clients {
	return activities.Clients{Kube: env.Kube, Dynamic: env.Dynamic, Instance: Instance, Now: time.Now}
}
