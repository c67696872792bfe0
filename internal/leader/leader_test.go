// The order of things at the end of a leader's term, checked against client-go's fake
// clientset with the timings shortened tenfold (the real ones are proven with real processes
// and a real API server in internal/watch).
package leader

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

const (
	testNamespace = "liken-system"
	testName      = "people-operator"
)

// fast is the seed's timings divided by ten: lease 3 s, renew deadline 1 s, retry 0.5 s, grace
// 0.5 s.
func fast(c *fake.Clientset, identity string) Config {
	return Config{
		Client: c, Namespace: testNamespace, Name: testName, Identity: identity,
		LeaseDuration: 3 * time.Second, RenewDeadline: time.Second, RetryPeriod: 500 * time.Millisecond,
		Grace: 500 * time.Millisecond,
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func lease(t *testing.T, c *fake.Clientset) *coordinationv1.Lease {
	t.Helper()
	l, err := c.CoordinationV1().Leases(testNamespace).Get(context.Background(), testName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get the lease: %v", err)
	}
	return l
}

func holder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// eventually polls cond every 10 ms for at most d.
func eventually(t *testing.T, d time.Duration, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", d, msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTheLeaderFinishesTheWorkInHandBeforeItReleasesTheLease(t *testing.T) {
	c := fake.NewClientset()
	var workDone atomic.Bool
	var releasedBeforeDone atomic.Bool
	c.PrependReactor("update", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		l := a.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		if holder(l) == "" && !workDone.Load() {
			releasedBeforeDone.Store(true)
		}
		return false, nil, nil
	})
	ctx, stop := context.WithCancel(context.Background())
	leading := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- Run(ctx, fast(c, "a"), func(ctx context.Context) error {
			close(leading)
			<-ctx.Done()
			if !errors.Is(context.Cause(ctx), ErrStopping) {
				t.Errorf("the work's context ended with %v, want ErrStopping", context.Cause(ctx))
			}
			time.Sleep(200 * time.Millisecond) // the work in hand, shorter than the grace
			workDone.Store(true)
			return nil
		})
	}()
	select {
	case <-leading:
	case <-time.After(5 * time.Second):
		t.Fatal("the only copy never led")
	}
	stop()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Run after a clean stop: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after the stop")
	}
	if releasedBeforeDone.Load() {
		t.Fatal("the lease was released while the work was still in hand")
	}
	if l := lease(t, c); holder(l) != "" || *l.Spec.LeaseDurationSeconds != 1 {
		t.Fatalf("the lease was not released: holder %q, duration %d", holder(l), *l.Spec.LeaseDurationSeconds)
	}
}

func TestWorkThatOutlivesTheGraceLeavesTheLeaseHeld(t *testing.T) {
	c := fake.NewClientset()
	ctx, stop := context.WithCancel(context.Background())
	leading := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	result := make(chan error, 1)
	go func() {
		result <- Run(ctx, fast(c, "a"), func(ctx context.Context) error {
			close(leading)
			<-release // work in hand that never finishes in time
			return nil
		})
	}()
	select {
	case <-leading:
	case <-time.After(5 * time.Second):
		t.Fatal("the only copy never led")
	}
	stopped := time.Now()
	stop()
	select {
	case err := <-result:
		if !errors.Is(err, ErrNotReleased) {
			t.Fatalf("Run returned %v, want ErrNotReleased", err)
		}
		if took := time.Since(stopped); took < 500*time.Millisecond || took > 2*time.Second {
			t.Fatalf("Run gave up %s after the stop, want just after the 0.5 s grace", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after the grace")
	}
	// Give a release that should not happen the time to happen, then look.
	time.Sleep(300 * time.Millisecond)
	if l := lease(t, c); holder(l) != "a" || *l.Spec.LeaseDurationSeconds != 3 {
		t.Fatalf("the lease changed: holder %q, duration %d; want a, 3", holder(l), *l.Spec.LeaseDurationSeconds)
	}
}

func TestALeaderThatCannotRenewStopsActingOneRenewDeadlineAfterItsLastRenewal(t *testing.T) {
	c := fake.NewClientset()
	var failing atomic.Bool
	c.PrependReactor("*", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if failing.Load() {
			return true, nil, errors.New("the API server is out of reach")
		}
		return false, nil, nil
	})
	leading := make(chan struct{})
	type stop struct {
		at    time.Time
		cause error
	}
	stopped := make(chan stop, 1)
	result := make(chan error, 1)
	go func() {
		result <- Run(context.Background(), fast(c, "a"), func(ctx context.Context) error {
			close(leading)
			<-ctx.Done()
			stopped <- stop{time.Now(), context.Cause(ctx)}
			return nil
		})
	}()
	select {
	case <-leading:
	case <-time.After(5 * time.Second):
		t.Fatal("the only copy never led")
	}
	// Let it renew at least once more, then cut it off.
	first := lease(t, c).Spec.RenewTime.Time
	eventually(t, 3*time.Second, func() bool { return lease(t, c).Spec.RenewTime.After(first) }, "the leader never renewed")
	failing.Store(true)
	var err error
	select {
	case err = <-result:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after the renewals failed")
	}
	s := <-stopped
	if !errors.Is(err, ErrLostLease) || !errors.Is(s.cause, ErrLostLease) {
		t.Fatalf("Run returned %v and the work saw %v; want ErrLostLease for both", err, s.cause)
	}
	failing.Store(false)
	last := lease(t, c).Spec.RenewTime.Time
	if after := s.at.Sub(last); after < time.Second || after > 1300*time.Millisecond {
		t.Fatalf("the work stopped %s after the last renewal, want the 1 s renew deadline (+0.3 s)", after)
	}
}

func TestOnlyOneCopyLeadsAndTheOtherTakesOverAfterAStop(t *testing.T) {
	c := fake.NewClientset()
	var mu sync.Mutex
	var acting []string // who acts now
	work := func(id string) func(context.Context) error {
		return func(ctx context.Context) error {
			mu.Lock()
			acting = append(acting, id)
			n := len(acting)
			mu.Unlock()
			if n > 1 {
				t.Errorf("%s acts beside %v", id, acting)
			}
			<-ctx.Done()
			mu.Lock()
			acting = acting[:0]
			mu.Unlock()
			return nil
		}
	}
	ctxA, stopA := context.WithCancel(context.Background())
	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	doneA := make(chan error, 1)
	doneB := make(chan error, 1)
	go func() { doneA <- Run(ctxA, fast(c, "a"), work("a")) }()
	eventually(t, 5*time.Second, func() bool {
		l, err := c.CoordinationV1().Leases(testNamespace).Get(context.Background(), testName, metav1.GetOptions{})
		return err == nil && holder(l) == "a"
	}, "a never took the lease")
	go func() { doneB <- Run(ctxB, fast(c, "b"), work("b")) }()
	time.Sleep(1500 * time.Millisecond) // b tries three times while a holds the lease
	if h := holder(lease(t, c)); h != "a" {
		t.Fatalf("the lease moved to %q while a held it", h)
	}
	stopA()
	if err := <-doneA; err != nil {
		t.Fatalf("a stopped with %v", err)
	}
	handedOver := time.Now()
	eventually(t, 3*time.Second, func() bool { return holder(lease(t, c)) == "b" }, "b never took the released lease")
	t.Logf("b took the lease %s after a released it", time.Since(handedOver).Round(time.Millisecond))
	stopB()
	if err := <-doneB; err != nil {
		t.Fatalf("b stopped with %v", err)
	}
}
