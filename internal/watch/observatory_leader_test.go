// The observatory side's leader election with real watcher processes: the Lease
// observatory-operator is its own, so one process running both sides (--side=all, as make run
// does) leads each side through its own Lease, and only the holder of observatory-operator
// signals Reservations while another copy waits for it. A SIGTERM stops both sides of the
// process, each releasing its Lease, and the waiting copy takes over. And the observatory
// watcher runs on deploy/observatory's RBAC alone.
package watch_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const observatoryLease = "observatory-operator"

// freshObservatoryLease deletes the observatory side's Lease before and after the test.
func freshObservatoryLease(t *testing.T) {
	t.Helper()
	del := func() {
		err := env.Kube.CoordinationV1().Leases(leaseNamespace).Delete(context.Background(), observatoryLease, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete the lease: %v", err)
		}
	}
	leaseNamespaceExists(t)
	del()
	t.Cleanup(del)
}

// waitLeaseHolder waits until who holds the Lease name.
func waitLeaseHolder(t *testing.T, ctx context.Context, name, who string, within time.Duration) {
	t.Helper()
	eventually(t, within, func() (bool, string) {
		l, err := env.Kube.CoordinationV1().Leases(leaseNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return holderOf(l) == who, fmt.Sprintf("the lease %s is held by %q, want %q", name, holderOf(l), who)
	})
}

func TestOneProcessLeadsBothSidesThroughTwoLeasesAndOnlyTheObservatoryHolderSignals(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	deletePeopleAtEnd(t)
	astroAtEnd(t)
	freshLease(t)
	freshObservatoryLease(t)
	queue := taskQueue(t)
	all := startProc(t, "watcher-all", queue, procOptions{args: []string{"--side=all"}})
	waitLeaseHolder(t, ctx, leaseName, "watcher-all", 20*time.Second)
	waitLeaseHolder(t, ctx, observatoryLease, "watcher-all", 20*time.Second)
	obs := startProc(t, "watcher-obs", queue, procOptions{args: []string{"--side=observatory"}})
	eventually(t, 20*time.Second, func() (bool, string) {
		return strings.Contains(obs.logText(), "waiting for the lease"), "watcher-obs has not started competing"
	})
	if strings.Contains(obs.logText(), leaseNamespace+"/"+leaseName) {
		t.Errorf("watcher-obs, an observatory copy, competes for the people Lease:\n%s", obs.logText())
	}

	res, person := unique("res"), unique("ada")
	newReservation(t, ctx, res, "t1")
	newPerson(t, ctx, person)
	if got := waitResSignals(t, ctx, res, 1, 20*time.Second); got[0].Identity != "watcher-all" {
		t.Errorf("the Reservation was signalled by %s; only the holder, watcher-all, may signal", got[0].Identity)
	}
	if got := waitSignals(t, ctx, person, 1, 20*time.Second); got[0].Identity != "watcher-all" {
		t.Errorf("the Person was signalled by %s, want watcher-all", got[0].Identity)
	}
	for _, side := range []string{"people", "observatory"} {
		if st, err := all.sideStats(side); err != nil || st["leading"] != 1 || st["signalled"] < 1 {
			t.Errorf("watcher-all's %s counters: %v (%v); want it leading and signalling", side, st, err)
		}
	}
	if st, err := obs.sideStats("observatory"); err != nil || st["leading"] != 0 || st["signalled"] != 0 {
		t.Errorf("watcher-obs's counters: %v (%v); want it neither leading nor signalling", st, err)
	}
	if st, err := obs.sideStats("people"); err != nil || st != nil {
		t.Errorf("watcher-obs runs a people side: %v (%v)", st, err)
	}

	// A SIGTERM stops both sides: each finishes and releases its own Lease.
	if err := all.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code, _ := all.waitExit(t, 15*time.Second); code != 0 {
		t.Fatalf("watcher-all exited %d after SIGTERM, want 0 (both Leases released)", code)
	}
	if n := strings.Count(all.logText(), "released the lease"); n != 2 {
		t.Errorf("watcher-all released %d Leases, want 2", n)
	}
	waitLeaseHolder(t, ctx, observatoryLease, "watcher-obs", 20*time.Second)
	after := unique("res")
	newReservation(t, ctx, after, "t1")
	if got := waitResSignals(t, ctx, after, 1, 20*time.Second); got[0].Identity != "watcher-obs" {
		t.Errorf("the Reservation created after the hand-over was signalled by %s, want watcher-obs", got[0].Identity)
	}
}

func TestTheObservatoryWatcherRunsOnItsOwnRBAC(t *testing.T) {
	ctx := timeout(t, time.Minute)
	observatoryDeployApplied(t, ctx)
	astroAtEnd(t)
	freshObservatoryLease(t)
	kubeconfig := serviceAccountKubeconfig(t, ctx, observatorySA)
	startProc(t, "observatory-sa", taskQueue(t), procOptions{kubeconfig: kubeconfig, args: []string{"--side=observatory"}})
	waitLeaseHolder(t, ctx, observatoryLease, "observatory-sa", 20*time.Second)
	name := unique("res")
	newObservatory(t, ctx, unique("site"))
	newReservation(t, ctx, name, "t1")
	if got := waitResSignals(t, ctx, name, 1, 20*time.Second); got[0].Identity != "observatory-sa" {
		t.Fatalf("signalled by %s, want observatory-sa", got[0].Identity)
	}
}
