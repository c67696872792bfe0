// The Probe workflow returns the version the worker sees and retries an API server that is
// still starting.
package workflows

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"liken.sh/runner/test/testenv"
)

func TestProbeReturnsTheVersionTheWorkerSees(t *testing.T) {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	env.RegisterActivity(probeActs.KubernetesVersion)
	env.OnActivity(probeActs.KubernetesVersion, mock.Anything).Return("v1.37.2", nil)

	env.ExecuteWorkflow(Probe)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var r ProbeResult
	require.NoError(t, env.GetWorkflowResult(&r))
	require.Equal(t, "v1.37.2", r.KubernetesVersion)
}

func TestProbeRetriesAnAPIServerThatIsStillStarting(t *testing.T) {
	env := testenv.Suite(t).NewTestWorkflowEnvironment()
	env.RegisterActivity(probeActs.KubernetesVersion)
	env.OnActivity(probeActs.KubernetesVersion, mock.Anything).Return("", errors.New("connection refused")).Twice()
	env.OnActivity(probeActs.KubernetesVersion, mock.Anything).Return("v1.37.2", nil).Once()

	env.ExecuteWorkflow(Probe)
	require.NoError(t, env.GetWorkflowError())
	env.AssertExpectations(t)
}
