// PostgreSQL itself restarted under Temporal's server: make test runs this on the server with
// PostgreSQL (LIKEN_TEMPORAL=postgres), the production configuration of deploy/temporal/postgres.
package reservation

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	"liken.sh/runner/test/testenv"
)

// postgresAway is how long PostgreSQL stays down: longer than the heartbeat timeout of the
// activity that observes the devices while Ready (10 s), so that Temporal's server, once its
// database is back, times that attempt out and the worker runs the next one.
const postgresAway = 20 * time.Second

// TestAReservationReadyWhilePostgreSQLRestartsStillEndsReleasedWithNothingLeft stops the
// database under Temporal's server while the example reservation is Ready, as an upgrade or a
// failover of PostgreSQL would, and starts it again. The server, the worker and the workflow
// ride it out: the reservation then ends on delete, in the one workflow run it started with,
// Released with every object created once and nothing left behind.
func TestAReservationReadyWhilePostgreSQLRestartsStillEndsReleasedWithNothingLeft(t *testing.T) {
	env.RequirePostgres(t)
	bin := env.Build(t, "./cmd/worker")
	var created *uidLog
	ns, queue, c := startReservation(t, func(ns string) { created = watchCreated(t, ns) })
	env.StartProgram(t, bin, "LIKEN_TASK_QUEUE="+queue, "LIKEN_DEV_LOCAL_INDI=true", "LIKEN_LOG_LEVEL=warn").WaitReady()
	awaitReady(t, ns, "tonight")

	restart, err := env.Stack.StopProcess("postgres")
	require.NoError(t, err)
	time.Sleep(postgresAway)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, restart(ctx))

	require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).
		Delete(ctx, "tonight", metav1.DeleteOptions{}))
	// The server may still be finding its database again: each call gives up after the SDK's
	// 10 s, so the signal is sent again until it lands, as the watcher's queue sends it.
	id := contract.ReservationID(ns, "tonight")
	testenv.Eventually(t, time.Minute, "the delete's signal reaches the workflow", func() (bool, string) {
		err := c.SignalWorkflow(ctx, id, "", contract.ReservationChanged, contract.ReservationChange{Deleted: true, Why: "deleted"})
		return err == nil, fmt.Sprint(err)
	})
	awaitReservation(t, ns, "tonight", "was released and went", func(r *obsv1.Reservation) bool { return r == nil })

	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	assert.Equal(t, d.GetWorkflowExecutionInfo().GetExecution().GetRunId(), d.GetWorkflowExecutionInfo().GetFirstRunId(),
		"the reservation ran in the run it started with")
	for key, uids := range created.all() {
		assert.Len(t, uids, 1, "%s was created %d times", key, len(uids))
	}
	assert.Equal(t, 9, created.count("Pod"), "the observatory's 3 pods and the telescope's 6: %v", created.keys())
	noObjectLeft(t, ns)
}
