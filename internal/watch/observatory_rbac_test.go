// deploy/observatory on a real API server with RBAC, after a server-side apply as a user would
// do it: the observatory watcher may read every observatory kind (the Reservations, their
// parents and devices, and the rest for the inventory) and hold its own Lease, nothing more;
// the worker may do what its code needs on the observatory side, and not more. And the base as
// kustomize renders it: the Deployment's layout, and deploy/ with one Namespace for both sides.
package watch_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const observatorySA = "observatory-operator"

var observatoryDeployOnce sync.Once

func observatoryDeployApplied(t *testing.T, ctx context.Context) {
	t.Helper()
	leaseNamespaceExists(t)
	var err error
	observatoryDeployOnce.Do(func() {
		_, err = env.Kubectl(ctx, "apply", "--server-side", "-k", "deploy/observatory")
	})
	if err != nil {
		t.Fatal(err)
	}
}

const astro = "observatory.liken.sh"

// devices are the 14 device kinds' resources.
var devices = []string{"mounts", "gpses", "polaraligners", "cameras", "filterwheels", "focusers", "rotators",
	"dustcaps", "flatpanels", "domes", "weatherstations", "skyqualitymeters", "switches", "receivers"}

func TestTheObservatoryWatcherAndTheWorkerMayDoWhatTheirCodeNeedsAndNothingMore(t *testing.T) {
	ctx := timeout(t, time.Minute)
	observatoryDeployApplied(t, ctx)
	var deviceKinds []string
	for _, k := range obsv1.Kinds {
		if k.IsDevice() {
			deviceKinds = append(deviceKinds, k.Resource())
		}
	}
	if !slices.Equal(deviceKinds, devices) {
		t.Fatalf("the device kinds are %v; the test checks %v", deviceKinds, devices)
	}
	checkPermissions(t, ctx, "its code needs it", "nothing needs it",
		observatoryWatcherPermissions(), observatoryWorkerPermissions())
	// The same questions as a user asks them, through impersonation.
	checkCanI(t, ctx, []canI{
		{[]string{"watch", "reservations.observatory.liken.sh", "-A", "--as=system:serviceaccount:liken-system:observatory-operator"}, "yes"},
		{[]string{"patch", "reservations.observatory.liken.sh", "-n", "observatory", "--as=system:serviceaccount:liken-system:observatory-operator"}, "no"},
		{[]string{"watch", "mounts.observatory.liken.sh", "-A", "--as=system:serviceaccount:liken-system:observatory-operator"}, "yes"},
		{[]string{"patch", "mounts.observatory.liken.sh", "-n", "observatory", "--as=system:serviceaccount:liken-system:observatory-operator"}, "no"},
		{[]string{"update", "telescopes.observatory.liken.sh", "--subresource=status", "-n", "observatory", "--as=system:serviceaccount:liken-system:liken-worker"}, "yes"},
		{[]string{"delete", "telescopes.observatory.liken.sh", "-n", "observatory", "--as=system:serviceaccount:liken-system:liken-worker"}, "no"},
	})
}

// observatoryWatcherPermissions are the observatory watcher's: read every observatory kind,
// the pods and the Persons, and hold its own Lease.
func observatoryWatcherPermissions() permissions {
	watcherMay := []access{
		{verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace},
		{verb: "get", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: observatoryLease},
		{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: observatoryLease},
	}
	for _, r := range append([]string{"reservations", "telescopes", "observatories", "opticaltubes", "opticaltrains", "guiders"}, devices...) {
		for _, v := range []string{"get", "list", "watch"} {
			watcherMay = append(watcherMay, access{verb: v, group: astro, resource: r})
		}
	}
	watcherMay = append(watcherMay, access{verb: "list", resource: "pods"}, access{verb: "watch", resource: "pods"},
		// The Persons, whose users and groups a Ready reservation's way in follows.
		access{verb: "list", group: "people.liken.sh", resource: "people"}, access{verb: "watch", group: "people.liken.sh", resource: "people"})
	watcherMayNo := []access{
		{verb: "update", group: astro, resource: "reservations", subresource: "status", namespace: "observatory", name: "r1"},
		{verb: "patch", group: astro, resource: "reservations", namespace: "observatory", name: "r1"},
		{verb: "delete", group: astro, resource: "telescopes", namespace: "observatory", name: "t1"},
		{verb: "update", group: astro, resource: "opticaltubes", subresource: "status", namespace: "observatory", name: "o1"},
		{verb: "update", group: "people.liken.sh", resource: "people", name: "ada"},
		{verb: "act-as", group: "people.liken.sh", resource: "people", name: "ada"},
		{verb: "create", resource: "pods", namespace: "observatory"},
		{verb: "delete", resource: "pods", namespace: "observatory", name: "lab-observatory"},
		{verb: "create", group: "apps", resource: "statefulsets", namespace: "observatory"},
		{verb: "create", resource: "events", namespace: "observatory"},
		{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: leaseName},
		{verb: "delete", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: observatoryLease},
		{verb: "get", resource: "secrets", namespace: leaseNamespace},
	}
	// It reads a device's retry annotation; removing it is the worker's.
	for _, r := range devices {
		watcherMayNo = append(watcherMayNo,
			access{verb: "create", group: astro, resource: r, namespace: "observatory"},
			access{verb: "update", group: astro, resource: r, namespace: "observatory", name: "x"},
			access{verb: "patch", group: astro, resource: r, namespace: "observatory", name: "x"},
			access{verb: "delete", group: astro, resource: r, namespace: "observatory", name: "x"},
			access{verb: "update", group: astro, resource: r, subresource: "status", namespace: "observatory", name: "x"})
	}

	return permissions{observatorySA, watcherMay, watcherMayNo}
}

// observatoryWorkerPermissions are the worker's on the observatory side.
func observatoryWorkerPermissions() permissions {
	var workerMay []access
	for _, k := range obsv1.Kinds {
		for _, v := range []string{"get", "list", "watch"} {
			workerMay = append(workerMay, access{verb: v, group: astro, resource: k.Resource(), namespace: "observatory"})
		}
		workerMay = append(workerMay, access{verb: "update", group: astro, resource: k.Resource(), subresource: "status", namespace: "observatory", name: "x"})
	}
	for _, r := range append([]string{"reservations", "observatories", "telescopes"}, devices...) {
		workerMay = append(workerMay, access{verb: "patch", group: astro, resource: r, namespace: "observatory", name: "x"})
	}
	for _, v := range []string{"get", "list", "watch", "create", "delete", "patch"} {
		workerMay = append(workerMay, access{verb: v, group: "apps", resource: "statefulsets", namespace: "observatory", name: "lab-observatory"})
	}
	for _, v := range []string{"get", "list", "watch", "create", "delete"} {
		workerMay = append(workerMay,
			access{verb: v, resource: "services", namespace: "observatory", name: "lab-observatory"},
			access{verb: v, resource: "configmaps", namespace: "observatory", name: "lab-observatory"},
			access{verb: v, group: "batch", resource: "jobs", namespace: "observatory", name: "lab-park"},
			access{verb: v, group: "resource.k8s.io", resource: "resourceclaims", namespace: "observatory", name: "cam"})
	}
	workerMay = append(workerMay,
		access{verb: "patch", resource: "pods", namespace: "observatory", name: "lab-observatory"},
		access{verb: "update", resource: "configmaps", namespace: "observatory", name: "lab-observatory"},
		access{verb: "create", resource: "events", namespace: "observatory"},
		access{verb: "patch", resource: "events", namespace: "observatory", name: "r1.1"},
		access{verb: "list", group: "resource.k8s.io", resource: "resourceslices"},
		access{verb: "get", resource: "persistentvolumeclaims", namespace: "observatory", name: "east-mount-config"},
		access{verb: "create", resource: "persistentvolumeclaims", namespace: "observatory"},
		// The booking policy asks it of whoever writes a Reservation: the finalizer patches.
		access{verb: "act-as", group: "people.liken.sh", resource: "people", name: "ada"},
		// The holder's way in while Ready: a Role and binding per reservation, for its servers.
		access{verb: "get", group: "people.liken.sh", resource: "people", name: "ada"},
		access{verb: "create", group: "rbac.authorization.k8s.io", resource: "roles", namespace: "observatory"},
		access{verb: "get", group: "rbac.authorization.k8s.io", resource: "rolebindings", namespace: "observatory", name: "liken-reservation-r1"},
		access{verb: "update", group: "rbac.authorization.k8s.io", resource: "rolebindings", namespace: "observatory", name: "liken-reservation-r1"},
		access{verb: "delete", group: "rbac.authorization.k8s.io", resource: "roles", namespace: "observatory", name: "liken-reservation-r1"},
		access{verb: "create", resource: "pods", subresource: "portforward", namespace: "observatory", name: "east-telescope"})
	workerMayNo := []access{
		{verb: "update", group: astro, resource: "reservations", namespace: "observatory", name: "r1"},
		{verb: "delete", group: astro, resource: "reservations", namespace: "observatory", name: "r1"},
		{verb: "create", group: astro, resource: "telescopes", namespace: "observatory"},
		{verb: "patch", group: astro, resource: "opticaltubes", namespace: "observatory", name: "x"},
		{verb: "patch", group: astro, resource: "opticaltrains", namespace: "observatory", name: "x"},
		{verb: "patch", group: astro, resource: "guiders", namespace: "observatory", name: "x"},
		{verb: "patch", group: astro, resource: "reservations", subresource: "status", namespace: "observatory", name: "r1"},
		{verb: "update", resource: "services", namespace: "observatory", name: "lab-observatory"},
		{verb: "update", group: "apps", resource: "statefulsets", namespace: "observatory", name: "lab-observatory"},
		{verb: "patch", resource: "configmaps", namespace: "observatory", name: "lab-observatory"},
		{verb: "update", group: "batch", resource: "jobs", namespace: "observatory", name: "lab-park"},
		{verb: "update", group: "resource.k8s.io", resource: "resourceclaims", namespace: "observatory", name: "cam"},
		{verb: "create", group: "resource.k8s.io", resource: "resourceslices"},
		{verb: "delete", resource: "persistentvolumeclaims", namespace: "observatory", name: "east-mount-config"},
		{verb: "delete", resource: "events", namespace: "observatory", name: "r1.1"},
		{verb: "create", resource: "pods", subresource: "exec", namespace: "observatory", name: "lab-observatory"},
		{verb: "escalate", group: "rbac.authorization.k8s.io", resource: "roles", namespace: "observatory"},
		{verb: "bind", group: "rbac.authorization.k8s.io", resource: "roles", namespace: "observatory"},
		{verb: "get", resource: "secrets", namespace: "observatory"},
		{verb: "get", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: observatoryLease},
	}

	return permissions{workerSA, workerMay, workerMayNo}
}

func TestTheObservatoryDeploymentRunsTheWatcherOnTheObservatorySide(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	d := renderedDeployment(t, ctx, "observatory", "observatory-operator", 1, observatorySA)
	cs := d.Spec.Template.Spec.Containers
	if len(cs) != 1 || cs[0].Name != "operator" || strings.Join(cs[0].Command, " ") != "watcher" ||
		strings.Join(cs[0].Args, " ") != "--side=observatory" {
		t.Fatalf("observatory-operator's containers: %+v", cs)
	}
	c := cs[0]
	// The people watcher's hardening and probes; the memory limit is this watcher's own.
	var people appsv1.Deployment
	find(t, render(t, ctx, filepath.Join(env.Root, "deploy", "people")), "Deployment", "people-operator", &people)
	pc := people.Spec.Template.Spec.Containers[0]
	if c.Image != pc.Image {
		t.Errorf("the observatory watcher runs %s, the people watcher %s; the runner ships one image", c.Image, pc.Image)
	}
	checkSame(t, "the pod's security context", *d.Spec.Template.Spec.SecurityContext, *people.Spec.Template.Spec.SecurityContext)
	checkSame(t, "the container's security context", *c.SecurityContext, *pc.SecurityContext)
	checkSame(t, "the liveness probe", *c.LivenessProbe, *pc.LivenessProbe)
	checkSame(t, "the readiness probe", *c.ReadinessProbe, *pc.ReadinessProbe)
	checkSame(t, "the ports", c.Ports, pc.Ports)
	checkSame(t, "the requests", c.Resources.Requests, pc.Resources.Requests)
	if m := c.Resources.Limits.Memory().String(); m != "256Mi" {
		t.Errorf("the memory limit is %s, want 256Mi", m)
	}

	whole := render(t, ctx, filepath.Join(env.Root, "deploy"))
	namespaces := 0
	for _, o := range whole {
		if o.GetKind() == "Namespace" && o.GetName() == "liken-system" {
			namespaces++
		}
	}
	if namespaces != 1 {
		t.Errorf("deploy/ renders liken-system %d times, want once", namespaces)
	}
	for _, name := range []string{"people-operator", "observatory-operator", "liken-worker-main"} {
		find(t, whole, "Deployment", name, &appsv1.Deployment{})
	}
}

func checkSame[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !equality.Semantic.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s differs from the people watcher's:\n got %s\nwant %s", what, g, w)
	}
}
