// The order of things at the end of a leader's term, checked against the local stack's real
// API server (test/testenv) with the timings shortened tenfold: two copies that write the
// Lease at once get a real conflict there, which client-go's fake clientset never returns.
// Each copy talks to the server through a transport of its own, so a test sees every request
// a copy sends and can cut a copy off from the server.
package leader

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, testenv.Options{Kube: true}, &env) }

const testNamespace = "liken-system"

// leaseFor names a Lease after the test, so no test sees another's.
func leaseFor(t *testing.T) string {
	env.EnsureNamespace(t, testNamespace)
	name := strings.ToLower(strings.TrimPrefix(t.Name(), "Test"))
	return name[:min(len(name), 63)]
}

// roundTripper lets a copy's client see each request before it is sent.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// client is one copy's client of the stack's API server. Every request goes through see
// first; an error from see fails the request as if the server were out of reach.
func client(t *testing.T, see func(*http.Request) error) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.ContentType = "application/json" // so see can read the Lease a request writes
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if err := see(r); err != nil {
				return nil, err
			}
			return next.RoundTrip(r)
		})
	})
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func seeAll(*http.Request) error { return nil }

// written is the Lease an update request writes, or nil for any other request.
func written(r *http.Request) (*coordinationv1.Lease, error) {
	if r.Method != http.MethodPut || r.GetBody == nil {
		return nil, nil
	}
	body, err := r.GetBody()
	if err != nil {
		return nil, err
	}
	defer body.Close()
	var l coordinationv1.Lease
	if err := json.NewDecoder(body).Decode(&l); err != nil {
		return nil, fmt.Errorf("read the Lease a PUT writes: %w", err)
	}
	return &l, nil
}

// fast is the seed's timings divided by ten: lease 3 s, renew deadline 1 s, retry 0.5 s, grace
// 0.5 s.
func fast(c kubernetes.Interface, lease, identity string) Config {
	return Config{
		Client: c, Namespace: testNamespace, Name: lease, Identity: identity,
		LeaseDuration: 3 * time.Second, RenewDeadline: time.Second, RetryPeriod: 500 * time.Millisecond,
		Grace: 500 * time.Millisecond,
		Log:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func lease(t *testing.T, name string) *coordinationv1.Lease {
	t.Helper()
	l, err := env.Kube.CoordinationV1().Leases(testNamespace).Get(context.Background(), name, metav1.GetOptions{})
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

// await waits at most d for ch, failing with msg.
func await[T any](t *testing.T, d time.Duration, ch <-chan T, msg string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("after %s: %s", d, msg)
		panic("unreachable")
	}
}

func TestTheLeaderFinishesTheWorkInHandBeforeItReleasesTheLease(t *testing.T) {
	name := leaseFor(t)
	var workDone, releasedBeforeDone atomic.Bool
	c := client(t, func(r *http.Request) error {
		l, err := written(r)
		if err != nil {
			t.Error(err)
		}
		if l != nil && holder(l) == "" && !workDone.Load() {
			releasedBeforeDone.Store(true)
		}
		return nil
	})
	ctx, stop := context.WithCancel(context.Background())
	leading := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		result <- Run(ctx, fast(c, name, "a"), func(ctx context.Context) error {
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
	await(t, 5*time.Second, leading, "the only copy never led")
	stop()
	if err := await(t, 5*time.Second, result, "Run did not return after the stop"); err != nil {
		t.Fatalf("Run after a clean stop: %v", err)
	}
	if releasedBeforeDone.Load() {
		t.Fatal("the lease was released while the work was still in hand")
	}
	if l := lease(t, name); holder(l) != "" || *l.Spec.LeaseDurationSeconds != 1 {
		t.Fatalf("the lease was not released: holder %q, duration %d", holder(l), *l.Spec.LeaseDurationSeconds)
	}
}

// A copy that gave up on releasing must leave the Lease to expire: the next copy takes it only
// a LeaseDuration after the last renewal, where a release would let it in within a retry
// period or two.
func TestWorkThatOutlivesTheGraceLeavesTheLeaseToExpire(t *testing.T) {
	name := leaseFor(t)
	ctx, stop := context.WithCancel(context.Background())
	leading := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	result := make(chan error, 1)
	go func() {
		result <- Run(ctx, fast(client(t, seeAll), name, "a"), func(ctx context.Context) error {
			close(leading)
			<-release // work in hand that never finishes in time
			return nil
		})
	}()
	await(t, 5*time.Second, leading, "the only copy never led")
	stopped := time.Now()
	stop()
	err := await(t, 5*time.Second, result, "Run did not return after the grace")
	if !errors.Is(err, ErrNotReleased) {
		t.Fatalf("Run returned %v, want ErrNotReleased", err)
	}
	if took := time.Since(stopped); took < 500*time.Millisecond || took > 2*time.Second {
		t.Fatalf("Run gave up %s after the stop, want just after the 0.5 s grace", took)
	}
	l := lease(t, name)
	if holder(l) != "a" || *l.Spec.LeaseDurationSeconds != 3 {
		t.Fatalf("the lease changed: holder %q, duration %d; want a, 3", holder(l), *l.Spec.LeaseDurationSeconds)
	}
	lastRenewal := l.Spec.RenewTime.Time

	ctxB, stopB := context.WithCancel(context.Background())
	defer stopB()
	tookOver := make(chan time.Time, 1)
	doneB := make(chan error, 1)
	go func() {
		doneB <- Run(ctxB, fast(client(t, seeAll), name, "b"), func(ctx context.Context) error {
			tookOver <- time.Now()
			<-ctx.Done()
			return nil
		})
	}()
	at := await(t, 10*time.Second, tookOver, "b never took the abandoned lease")
	if after := at.Sub(lastRenewal); after < 3*time.Second {
		t.Fatalf("b took the lease %s after a's last renewal, before it expired (3 s): a released it", after)
	}
	stopB()
	if err := await(t, 5*time.Second, doneB, "b did not stop"); err != nil {
		t.Fatalf("b stopped with %v", err)
	}
}

func TestALeaderThatCannotRenewStopsActingOneRenewDeadlineAfterItsLastRenewal(t *testing.T) {
	name := leaseFor(t)
	var failing atomic.Bool
	c := client(t, func(*http.Request) error {
		if failing.Load() {
			return errors.New("the API server is out of reach")
		}
		return nil
	})
	leading := make(chan struct{})
	type stop struct {
		at    time.Time
		cause error
	}
	stopped := make(chan stop, 1)
	result := make(chan error, 1)
	go func() {
		result <- Run(context.Background(), fast(c, name, "a"), func(ctx context.Context) error {
			close(leading)
			<-ctx.Done()
			stopped <- stop{time.Now(), context.Cause(ctx)}
			return nil
		})
	}()
	await(t, 5*time.Second, leading, "the only copy never led")
	// Let it renew at least once more, then cut it off.
	first := lease(t, name).Spec.RenewTime.Time
	eventually(t, 3*time.Second, func() bool { return lease(t, name).Spec.RenewTime.After(first) }, "the leader never renewed")
	failing.Store(true)
	err := await(t, 5*time.Second, result, "Run did not return after the renewals failed")
	s := await(t, time.Second, stopped, "the work never saw its context end")
	if !errors.Is(err, ErrLostLease) || !errors.Is(s.cause, ErrLostLease) {
		t.Fatalf("Run returned %v and the work saw %v; want ErrLostLease for both", err, s.cause)
	}
	last := lease(t, name).Spec.RenewTime.Time
	if after := s.at.Sub(last); after < time.Second || after > 1300*time.Millisecond {
		t.Fatalf("the work stopped %s after the last renewal, want the 1 s renew deadline (+0.3 s)", after)
	}
}

// Three copies start at once, so their first writes of the Lease race and the API server turns
// all but one away with a conflict. Then the leader stops and one of the others takes over.
func TestOnlyOneCopyLeadsAndAnotherTakesOverAfterAStop(t *testing.T) {
	name := leaseFor(t)
	var mu sync.Mutex
	var acting []string // who acts now
	leads := make(chan string, 3)
	work := func(id string) func(context.Context) error {
		return func(ctx context.Context) error {
			mu.Lock()
			acting = append(acting, id)
			if len(acting) > 1 {
				t.Errorf("%s acts beside %v", id, acting[:len(acting)-1])
			}
			mu.Unlock()
			leads <- id
			<-ctx.Done()
			mu.Lock()
			acting = slices.DeleteFunc(acting, func(x string) bool { return x == id })
			mu.Unlock()
			return nil
		}
	}
	type copyOf struct {
		stop context.CancelFunc
		done chan error
		// reads counts the copy's reads of the Lease: one per attempt to take or renew it.
		reads atomic.Int64
	}
	copies := map[string]*copyOf{}
	for _, id := range []string{"a", "b", "c"} {
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		cp := &copyOf{stop: stop, done: make(chan error, 1)}
		copies[id] = cp
		c := client(t, func(r *http.Request) error {
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/leases/"+name) {
				cp.reads.Add(1)
			}
			return nil
		})
		go func() { cp.done <- Run(ctx, fast(c, name, id), work(id)) }()
	}

	first := await(t, 5*time.Second, leads, "no copy led")
	// Each waiting copy tries three more times while the first holds the Lease.
	for id, cp := range copies {
		if id == first {
			continue
		}
		since := cp.reads.Load()
		eventually(t, 5*time.Second, func() bool { return cp.reads.Load() >= since+3 }, id+" stopped trying for the lease")
	}
	if h := holder(lease(t, name)); h != first {
		t.Fatalf("the lease moved to %q while %s held it", h, first)
	}

	copies[first].stop()
	if err := await(t, 5*time.Second, copies[first].done, first+" did not stop"); err != nil {
		t.Fatalf("%s stopped with %v", first, err)
	}
	handedOver := time.Now()
	second := await(t, 3*time.Second, leads, "no copy took the released lease")
	t.Logf("%s took the lease %s after %s released it", second, time.Since(handedOver).Round(time.Millisecond), first)
	if second == first {
		t.Fatalf("%s led again after it stopped", first)
	}
	if h := holder(lease(t, name)); h != second {
		t.Fatalf("%s acts but the lease names %q", second, h)
	}
	for id, cp := range copies {
		if id == first {
			continue
		}
		cp.stop()
		if err := await(t, 5*time.Second, cp.done, id+" did not stop"); err != nil {
			t.Fatalf("%s stopped with %v", id, err)
		}
	}
}
