// Package leader makes one copy of an operator act at a time. Every copy competes for a
// coordination.k8s.io Lease (client-go leaderelection); the holder runs the work, the others
// wait to take over. The people side uses the Lease people-operator in liken-system, the
// observatory side will use observatory-operator.
//
// What client-go leaves to us is the order of things at the end, which the install guide
// promises: on a stop the leader stops taking new work, finishes the work in hand and only
// then releases the Lease (a release before the work is done would let the next copy act
// beside it); work that does not finish within Grace makes it exit without the release, so
// the next copy waits for the Lease to expire. A leader that cannot renew stops acting
// RenewDeadline after its last renewal (client-go alone would notice up to a retry period
// later) and exits, well before a waiting copy may take the Lease (LeaseDuration).
package leader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// The timings of the install guide: a waiting copy takes a released Lease within about
// RetryPeriod*1.2*2 (≈11 s), and one nobody renews LeaseDuration to LeaseDuration+RetryPeriod*
// 1.2+RetryPeriod (30 to 41 s) after its last renewal.
const (
	DefaultLeaseDuration = 30 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 5 * time.Second
	// DefaultGrace is how long the work in hand may take after a stop before the process
	// gives up on releasing the Lease.
	DefaultGrace = 5 * time.Second
)

var (
	// ErrStopping is the cause of the work's context when the process was asked to stop:
	// take no new work, finish what is in hand.
	ErrStopping = errors.New("stopping: finish the work in hand")
	// ErrLostLease is the cause of the work's context, and Run's error, when this copy can no
	// longer be sure it leads: drop the work in hand at once.
	ErrLostLease = errors.New("lost the lease")
	// ErrNotReleased is Run's error when the work in hand did not finish within Grace after a
	// stop; the Lease was left to expire.
	ErrNotReleased = errors.New("the work in hand did not finish in time; the lease was not released")
)

// Config names the Lease and the copy competing for it.
type Config struct {
	Client    kubernetes.Interface
	Namespace string
	Name      string
	// Identity is this copy's name in the Lease; empty means Identity().
	Identity string
	// Zero durations take the defaults above; tests shorten them.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	Grace         time.Duration
	Log           *slog.Logger
	// OnLeading, when set, is told when this copy starts (true) and stops (false) leading.
	OnLeading func(bool)
}

// Identity is POD_NAME (set from the downward API), else hostname_pid, so two copies on one
// machine differ and a signal's identity in Temporal names the copy that sent it.
func Identity() string {
	if p := os.Getenv("POD_NAME"); p != "" {
		return p
	}
	h, err := os.Hostname()
	if err != nil {
		h = "unknown"
	}
	return fmt.Sprintf("%s_%d", h, os.Getpid())
}

func (c Config) withDefaults() Config {
	if c.Identity == "" {
		c.Identity = Identity()
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = DefaultRetryPeriod
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	if c.OnLeading == nil {
		c.OnLeading = func(bool) {}
	}
	return c
}

// Run competes for the Lease until ctx ends. While this copy leads it runs work in a
// goroutine of its own; work must take no new work once its context ends and return when the
// work in hand is done (context.Cause tells ErrStopping from ErrLostLease).
//
// Run returns nil after a stop that released the Lease (or when it never led), ErrNotReleased
// when the work in hand outlived Grace, ErrLostLease when the Lease could not be renewed,
// and work's own error if work returned by itself (the Lease is then released, so another
// copy can try).
func Run(ctx context.Context, cfg Config, work func(context.Context) error) error {
	cfg = cfg.withDefaults()
	e := &election{cfg: cfg, log: cfg.Log.With("lease", cfg.Namespace+"/"+cfg.Name), ended: make(chan struct{})}
	e.lock = &trackedLock{
		Interface: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: cfg.Namespace, Name: cfg.Name},
			Client:     cfg.Client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: cfg.Identity},
		},
		identity: cfg.Identity,
	}

	// The elector's context is ours to end, after the work in hand is done: ending it is what
	// makes client-go release the Lease (ReleaseOnCancel).
	electCtx, endElection := context.WithCancel(context.WithoutCancel(ctx))
	defer endElection()
	e.end = endElection
	started := make(chan context.Context, 1)
	le, err := e.elector(started)
	if err != nil {
		return err
	}
	go func() { defer close(e.ended); le.Run(electCtx) }()
	e.log.Info("waiting for the lease")

	select {
	case <-ctx.Done():
		e.release()
		e.log.Info("stopped before leading")
		return nil
	case <-e.ended:
		return errors.New("leader election ended before this copy led")
	case lctx := <-started:
		return e.lead(ctx, lctx, work)
	}
}

// election is one Run's competition for the Lease.
type election struct {
	cfg  Config
	log  *slog.Logger
	lock *trackedLock
	// end ends the elector's context, ended is closed once the elector has returned.
	end   context.CancelFunc
	ended chan struct{}
}

// elector is client-go's elector over the Lease; it hands the leading context to started.
func (e *election) elector(started chan<- context.Context) (*leaderelection.LeaderElector, error) {
	return leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            e.lock,
		LeaseDuration:   e.cfg.LeaseDuration,
		RenewDeadline:   e.cfg.RenewDeadline,
		RetryPeriod:     e.cfg.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            e.cfg.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) { started <- lctx },
			OnStoppedLeading: func() {},
			OnNewLeader: func(id string) {
				e.log.Info("the lease has a new holder", "holder", id)
			},
		},
	})
}

// release ends the election, which releases the Lease if this copy holds it, and waits for
// the elector to return.
func (e *election) release() {
	e.end()
	<-e.ended
}

// lead runs work while this copy leads (lctx is client-go's leading context), until ctx
// ends, the Lease is lost or work returns by itself.
func (e *election) lead(ctx, lctx context.Context, work func(context.Context) error) error {
	e.log.Info("leading")
	e.cfg.OnLeading(true)
	defer e.cfg.OnLeading(false)
	workCtx, endWork := context.WithCancelCause(context.Background())
	defer endWork(nil)
	worked := make(chan error, 1)
	go func() { worked <- work(workCtx) }()

	// The watchdog looks often enough that acting stops within a fraction of a second of the
	// deadline, and costs nothing: it reads a time under a mutex.
	watchdog := time.NewTicker(e.cfg.RenewDeadline / 40)
	defer watchdog.Stop()
	lost := func(why string, last time.Time) error {
		endWork(ErrLostLease)
		e.lock.abandon()
		e.end()
		e.log.Error("stopped acting: "+why, "lastRenewal", last.Format(time.RFC3339Nano))
		return ErrLostLease
	}
	for {
		select {
		case <-ctx.Done():
			return e.stop(endWork, worked)
		case <-lctx.Done():
			return lost("client-go could not renew the lease", e.lock.lastRenewal())
		case <-watchdog.C:
			if last := e.lock.lastRenewal(); time.Since(last) >= e.cfg.RenewDeadline {
				return lost(fmt.Sprintf("no renewal for %s", e.cfg.RenewDeadline), last)
			}
		case err := <-worked:
			// The work gave up on its own (say, its caches never synced): release the Lease
			// so another copy can try, and let the caller decide whether to exit.
			e.release()
			if err == nil {
				err = errors.New("the work ended while leading")
			}
			e.log.Error("the work ended; released the lease", "err", err)
			return err
		}
	}
}

// stop tells the work to finish what it has in hand and releases the Lease once it has, or
// leaves the Lease to expire when it does not finish within Grace.
func (e *election) stop(endWork context.CancelCauseFunc, worked <-chan error) error {
	e.log.Info("stopping: finishing the work in hand", "grace", e.cfg.Grace)
	endWork(ErrStopping)
	select {
	case err := <-worked:
		e.release()
		e.log.Info("released the lease")
		return err
	case <-time.After(e.cfg.Grace):
		// Releasing now would let the next copy act while our work is still in flight;
		// leave the Lease to expire instead.
		e.lock.abandon()
		e.end()
		e.log.Error("exiting without releasing the lease: the work in hand did not finish", "grace", e.cfg.Grace)
		return ErrNotReleased
	}
}

// trackedLock is the Lease lock with two additions: it remembers when this copy last wrote
// itself as the holder (the watchdog counts from there, as a waiting copy does), and it can
// be abandoned, after which it refuses every write, so neither a late renewal nor the
// release on cancel can happen.
type trackedLock struct {
	resourcelock.Interface
	identity string

	mu        sync.Mutex
	renewed   time.Time
	abandoned bool
}

var errAbandoned = errors.New("the lease was abandoned by this copy")

func (l *trackedLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	if l.isAbandoned() {
		return errAbandoned
	}
	err := l.Interface.Create(ctx, r)
	l.wrote(r, err)
	return err
}

func (l *trackedLock) Update(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	if l.isAbandoned() {
		return errAbandoned
	}
	err := l.Interface.Update(ctx, r)
	l.wrote(r, err)
	return err
}

func (l *trackedLock) wrote(r resourcelock.LeaderElectionRecord, err error) {
	if err != nil || r.HolderIdentity != l.identity {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// RenewTime is taken before the request, as the record says: the conservative end.
	l.renewed = r.RenewTime.Time
}

func (l *trackedLock) lastRenewal() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.renewed
}

func (l *trackedLock) abandon() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.abandoned = true
}

func (l *trackedLock) isAbandoned() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.abandoned
}
