// The observatory tests' shared start: TestMain starts the local stack (a real API server
// with the CRDs) once for the package, and newActivities wires the activities to it.
package observatory

import (
	"testing"

	"liken.sh/runner/activities/activitytest"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, activitytest.Stack, &env) }

var testContext = activitytest.Context

func newActivities() *Activities {
	return &Activities{Clients: activitytest.Clients(env)}
}
