// The observatory side's rules as tables: which Reservation updates are worth a signal, when
// a Telescope or Observatory counts as ending for its Reservations, and which updates of a
// device, Telescope or Observatory ask for a retry.
package watch

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"liken.sh/runner/kube"
)

func reservation(mod func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	return testObject("observatory.liken.sh/v1alpha1", "Reservation", "observatory", "r1",
		map[string]any{"telescope": "t1", "holder": "ada"}, mod)
}

func TestOnlyReservationUpdatesTheWorkflowActsOnAreWorthASignal(t *testing.T) {
	now := metav1.Now()
	for _, c := range []struct {
		name string
		mod  func(u *unstructured.Unstructured)
		want string
	}{
		{"the same version again (a resync)", func(u *unstructured.Unstructured) {}, whyResync},
		{"the worker's status write", newer(func(u *unstructured.Unstructured) {
			u.Object["status"] = map[string]any{"phase": "Ready"}
		}), ""},
		{"the worker's finalizer", newer(func(u *unstructured.Unstructured) {
			u.SetFinalizers([]string{"observatory.liken.sh/deactivate"})
		}), ""},
		{"the check-avatar annotation, a people word", newer(func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{kube.AnnotationCheckAvatar: "now"})
		}), ""},
		{"a spec change", newer(func(u *unstructured.Unstructured) {
			u.SetGeneration(2)
		}), whyUpdated},
		{"the retry annotation", newer(func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{kube.AnnotationRetry: "1"})
		}), whyUpdated},
		{"a delete begun", newer(func(u *unstructured.Unstructured) {
			u.SetDeletionTimestamp(&now)
		}), whyUpdated},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := specUpdate(reservation(nil), reservation(c.mod), kube.AnnotationRetry); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestAParentEndsWhenItsDeleteBeganOrItsDeleteQueuedTheSignal(t *testing.T) {
	now := metav1.Now()
	deleting := reservation(func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(&now) })
	for _, c := range []struct {
		name      string
		parent    *unstructured.Unstructured
		goneIsWhy bool
		want      bool
	}{
		{"there, not being deleted", reservation(nil), true, false},
		{"being deleted", deleting, false, true},
		{"gone, and its delete queued the signal", nil, true, true},
		{"never there (the Wait step reports it missing)", nil, false, false},
	} {
		if got := ending(c.parent, c.goneIsWhy); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestOnlyARetryAnnotationSetOrChangedToAValueAsksAResourceForARetry(t *testing.T) {
	now := metav1.Now()
	mount := func(mod func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		return testObject("observatory.liken.sh/v1alpha1", "Mount", "observatory", "east", nil, mod)
	}
	retry := func(v string) func(u *unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			u.SetResourceVersion("2")
			u.SetAnnotations(map[string]string{kube.AnnotationRetry: v, "team": "night"})
		}
	}
	for _, c := range []struct {
		name     string
		old, new func(u *unstructured.Unstructured)
		want     bool
	}{
		{"the same version again (a resync)", nil, nil, false},
		{"a resync of an annotated one", retry("1"), retry("1"), false},
		{"the worker's status write", nil, newer(func(u *unstructured.Unstructured) {
			u.Object["status"] = map[string]any{"phase": "Connected"}
		}), false},
		{"another annotation", nil, newer(func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"team": "night"})
		}), false},
		{"a spec change", nil, newer(func(u *unstructured.Unstructured) {
			u.SetGeneration(2)
		}), false},
		{"a delete begun", nil, newer(func(u *unstructured.Unstructured) {
			u.SetDeletionTimestamp(&now)
		}), false},
		{"the retry annotation set", nil, retry("1"), true},
		{"the retry annotation changed", retry("1"), retry("2"), true},
		{"the retry annotation set empty", nil, retry(""), false},
		{"the worker removing the retry annotation", retry("1"), func(u *unstructured.Unstructured) {
			u.SetResourceVersion("3")
			u.SetAnnotations(map[string]string{"team": "night"})
		}, false},
		{"another annotation beside the same retry", retry("1"), func(u *unstructured.Unstructured) {
			u.SetResourceVersion("3")
			u.SetAnnotations(map[string]string{kube.AnnotationRetry: "1", "team": "day"})
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := retryAsked(mount(c.old), mount(c.new)); got != c.want {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}
