// The observatory's names for the helpers both domains share at the root (the status write,
// the create-or-adopt, the heartbeat): small forwarders, so the observatory's many call sites
// read as before, with the field manager, the "not ours" step failure and the heartbeat hooks
// its tests replace. The observatory's own uses of create-or-adopt (pods, Services, claims)
// are here too.
package observatory

import (
	"context"
	"sync"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
)

// statusOf is the status write of r, as the observatory writes it.
func (a *Activities) statusOf(r kube.ResourceID) activities.StatusOf {
	return activities.StatusOf{Resource: a.resource(r.Kind, r.Namespace), Kind: string(r.Kind),
		Namespace: r.Namespace, Name: r.Name, UID: r.UID, Manager: observatoryFieldManager}
}

// statusWrite is what writeStatus did.
type statusWrite[T any] struct {
	id            kube.ResourceID // with the UID written to
	before, after T
	wrote         bool
	// obj is the object as written, or as read when nothing was written; nil when gone.
	obj *unstructured.Unstructured
}

// writeStatus is activities.WriteStatus for an observatory object.
func writeStatus[T any](ctx context.Context, a *Activities, r kube.ResourceID, cur *unstructured.Unstructured,
	change func(T, metav1.Object) T) (statusWrite[T], error) {
	w, err := activities.WriteStatus(ctx, a.statusOf(r), cur, func(st T, m metav1.Object) (T, error) { return change(st, m), nil })
	if err != nil || w.Obj == nil {
		return statusWrite[T]{}, err
	}
	return statusWrite[T]{id: kube.ResourceIDOf(r.Kind, w.Obj), before: w.Before, after: w.After, wrote: w.Wrote, obj: w.Obj}, nil
}

// updateStatusField is activities.UpdateStatusField for an observatory object.
func (a *Activities) updateStatusField(ctx context.Context, r kube.ResourceID, field string, change func(raw []byte) (any, error)) error {
	return activities.UpdateStatusField(ctx, a.statusOf(r), field, change)
}

// heartbeatEvery is how often a heartbeat speaks; a variable so a test need not wait
// StepHeartbeatEvery to see what it says.
var heartbeatEvery = StepHeartbeatEvery

// recordHeartbeat sends a step's heartbeat; a test replaces it to read them.
var recordHeartbeat = activities.RecordHeartbeat

// stepHeartbeat says what the step waits on now.
func stepHeartbeat(ctx context.Context, what string) { recordHeartbeat(ctx, what) }

// waitUntil polls done until it holds, heartbeating what it waits on.
func waitUntil(ctx context.Context, what string, done func(context.Context) (bool, error)) error {
	return activities.WaitUntil(ctx, what, stepPollEvery, stepHeartbeat, done)
}

// heartbeat is a step's activities.Heartbeat.
type heartbeat struct{ *activities.Heartbeat }

// newHeartbeat starts the heartbeat of a step's many waits; stop ends it.
func newHeartbeat(ctx context.Context) *heartbeat { return startHeartbeat(ctx, "procedures") }

// startHeartbeat starts a heartbeat that says idle while nothing is waited on.
func startHeartbeat(ctx context.Context, idle string) *heartbeat {
	return &heartbeat{activities.StartHeartbeat(ctx, idle, heartbeatEvery, recordHeartbeat)}
}

func (h *heartbeat) set(key, what string) { h.Set(key, what) }

func (h *heartbeat) stop() { h.Stop() }

// whileHeartbeating runs f, heartbeating what until f returns.
func whileHeartbeating(ctx context.Context, what string, f func() error) error {
	defer startHeartbeat(ctx, what).stop()
	return f()
}

type (
	adoption                      = activities.Adoption
	objectClient[T metav1.Object] = activities.ObjectClient[T]
)

const (
	adopted   = activities.Adopted
	replaceIt = activities.ReplaceIt
	lookAgain = activities.LookAgain
)

// errNotOurs is an object of a generated name that we did not create.
func errNotOurs(kind, ns, name string) error {
	return stepFailed("a %s named %s exists in %s that the %s did not create; delete or rename it",
		kind, name, ns, kube.ObservatoryComponent)
}

// ensureObject is activities.EnsureObject as a step runs it: its field manager, its pace and
// heartbeat, a step failure for an object we did not make.
func ensureObject[T metav1.Object](ctx context.Context, c objectClient[T], kind string, want T,
	settle func(ctx context.Context, cur T) (adoption, error)) error {
	_, err := activities.EnsureObject(ctx, c, want, activities.Adopting[T]{
		Kind: kind, Manager: observatoryFieldManager, Settle: settle, NotOurs: errNotOurs, Wait: waitUntil})
	return err
}

// ensurePod creates or adopts a pod; one built from an older spec is replaced. A server
// pod's drivers annotation is kept current with a patch (the pod reads it live).
func (a *Activities) ensurePod(ctx context.Context, want *corev1.Pod) error {
	err := ensureObject(ctx, a.Kube.CoreV1().Pods(want.Namespace), "pod", want, func(ctx context.Context, cur *corev1.Pod) (adoption, error) {
		if kube.PodIsStale(cur, want) {
			return replaceIt, nil
		}
		return adopted, nil
	})
	d, ok := want.Annotations[kube.AnnotationDrivers]
	if err != nil || !ok {
		return err
	}
	return a.annotatePod(ctx, want.Namespace, want.Name, kube.AnnotationDrivers, d)
}

// ensureService creates or adopts a Service.
func (a *Activities) ensureService(ctx context.Context, want *corev1.Service) error {
	return ensureObject(ctx, a.Kube.CoreV1().Services(want.Namespace), "Service", want, nil)
}

// ensureClaim creates or adopts a ResourceClaim.
func (a *Activities) ensureClaim(ctx context.Context, want *resourcev1.ResourceClaim) error {
	return ensureObject(ctx, a.Kube.ResourceV1().ResourceClaims(want.Namespace), "ResourceClaim", want, nil)
}

// ensureConfigClaim creates or adopts a device's config claim (spec.config).
func (a *Activities) ensureConfigClaim(ctx context.Context, want *corev1.PersistentVolumeClaim) error {
	return ensureObject(ctx, a.Kube.CoreV1().PersistentVolumeClaims(want.Namespace), "PersistentVolumeClaim", want, nil)
}

// atOnce runs f(0) to f(n-1) at the same time, at most limit at once (0: all), and returns
// the first error in index order. A step's requests that do not depend on each other so cost
// one round trip to the API server or the INDI servers, not n: under twenty telescopes
// activating together each request took ~80 ms.
func atOnce(n, limit int, f func(i int) error) error {
	if limit <= 0 {
		limit = n
	}
	errs := make([]error, n)
	slots := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			errs[i] = f(i)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
