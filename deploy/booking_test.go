// Who may book, on a real API server with deploy/ applied: the booking policy
// (observatory/booking-policy.yaml) lets only the users and groups a Reservation's holder
// names, and the site's administrators, create, change or cancel it, and tells anyone else who
// may. The Persons' ClusterRoles and bindings are made by the people side's own pass
// (SyncPerson) running as the worker's ServiceAccount, which proves that deploy/people lets it
// grant them; the worker's finalizer patches run as that ServiceAccount too, through the
// observatory side's own activities.
package deploy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/activities/people"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/test/testenv"
)

const (
	// bookingNamespace holds the Reservations these tests book.
	bookingNamespace = "booking"
	// workerUser is the worker's ServiceAccount as deploy/ names it.
	workerUser = "system:serviceaccount:" + operatorNamespace + ":liken-worker"
	// admins is the group deploy/observatory binds liken-observatory-admin to.
	admins = "liken:observatory-admins"
	// policyInForceWithin bounds the wait for the API server's policy cache to hold the
	// policy after its apply, and for RBAC's to hold the Persons' bindings.
	policyInForceWithin = 30 * time.Second
	// collectedWithin bounds the wait for the garbage collector: it watches a custom kind only
	// from its next discovery sync (every 30 s) after the CRD appeared, which on the package's
	// fresh stack may come after the Person is deleted.
	collectedWithin = 100 * time.Second
)

func TestOnlyWhomAPersonNamesOrAnAdministratorMayBookChangeOrCancelInItsName(t *testing.T) {
	ctx := bookingTimeout(t)
	applyWholeBase(t, ctx)
	ensureNamespace(t, bookingNamespace)
	for name, user := range map[string]string{"ada": "ada@example.org", "bob": "bob@example.org"} {
		applyPerson(t, ctx, name, []string{user}, nil)
		syncAsTheWorker(t, ctx, name)
	}
	mayWriteReservations(t, ctx, "ada@example.org", "bob@example.org")
	ada, bob := reservationsAs(t, "ada@example.org"), reservationsAs(t, "bob@example.org")
	policyInForce(t, ctx, ada, bob)

	// Ada books, changes and cancels in her own name.
	_, err := ada.Create(ctx, reservation("ada-tonight", "ada"), metav1.CreateOptions{})
	require.NoError(t, err, "ada books in her own name")
	require.NoError(t, changeEnd(ctx, ada, "ada-tonight"), "ada changes her Reservation")
	require.NoError(t, ada.Delete(ctx, "ada-tonight", metav1.DeleteOptions{}), "ada cancels her Reservation")

	// Bob can neither book in Ada's name nor touch what she booked.
	_, err = bob.Create(ctx, reservation("bob-for-ada", "ada"), metav1.CreateOptions{})
	requireRefused(t, err, "bob-for-ada", "ada", "bob@example.org")
	_, err = ada.Create(ctx, reservation("ada-east", "ada"), metav1.CreateOptions{})
	require.NoError(t, err)
	requireRefused(t, changeEnd(ctx, bob, "ada-east"), "ada-east", "ada", "bob@example.org")
	requireRefused(t, bob.Delete(ctx, "ada-east", metav1.DeleteOptions{}), "ada-east", "ada", "bob@example.org")
	_, err = bob.Create(ctx, reservation("bob-east", "bob"), metav1.CreateOptions{})
	require.NoError(t, err, "bob books in his own name")

	// An administrator books, changes and cancels in anyone's name, with no RBAC but deploy/'s.
	admin := reservationsAs(t, "carla@example.org", admins)
	_, err = admin.Create(ctx, reservation("carla-for-ada", "ada"), metav1.CreateOptions{})
	require.NoError(t, err, "an administrator books in ada's name")
	require.NoError(t, changeEnd(ctx, admin, "ada-east"), "an administrator changes ada's Reservation")
	require.NoError(t, admin.Delete(ctx, "bob-east", metav1.DeleteOptions{}), "an administrator cancels bob's")
	require.NoError(t, admin.Delete(ctx, "carla-for-ada", metav1.DeleteOptions{}))

	theWorkerKeepsItsFinalizer(t, ctx, ada, "ada-east")
	theNamespaceControllerMayDeleteAnyReservation(t, ctx)
}

// theNamespaceControllerMayDeleteAnyReservation deletes a Reservation as Kubernetes' namespace
// controller does when its namespace goes (with the controller manager's per-controller
// credentials, as clusters run it): the policy lets it, whoever holds the Reservation.
func theNamespaceControllerMayDeleteAnyReservation(t *testing.T, ctx context.Context) {
	admin := reservationsAs(t, "carla@example.org", admins)
	_, err := admin.Create(ctx, reservation("ada-gone", "ada"), metav1.CreateOptions{})
	require.NoError(t, err)
	controller := reservationsAs(t, "system:serviceaccount:kube-system:namespace-controller",
		"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated")
	require.NoError(t, controller.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: "metadata.name=ada-gone"}),
		"the namespace controller deletes a namespace's Reservations")
}

func TestThePassKeepsAPersonsBindingToWhomItNamesAndTheCollectorRemovesBothWithIt(t *testing.T) {
	ctx := bookingTimeout(t)
	applyWholeBase(t, ctx)
	applyPerson(t, ctx, "carol", []string{"carol@example.org"}, nil)
	syncAsTheWorker(t, ctx, "carol")
	applyPerson(t, ctx, "carol", nil, []string{"astro-club", "analysts"})
	syncAsTheWorker(t, ctx, "carol")
	applyPerson(t, ctx, "carol", nil, nil)
	before := syncAsTheWorker(t, ctx, "carol") // the binding goes, the role stays
	after := syncAsTheWorker(t, ctx, "carol")
	require.Equal(t, before.ResourceVersion, after.ResourceVersion, "a pass that finds the role as it should be writes nothing")

	require.NoError(t, env.Dynamic.Resource(peoplev1.PersonResource).Delete(ctx, "carol", metav1.DeleteOptions{}))
	testenv.Eventually(t, collectedWithin, "the garbage collector removes carol's ClusterRole with her", func() (bool, string) {
		_, err := env.Kube.RbacV1().ClusterRoles().Get(ctx, kube.PersonAccessName("carol"), metav1.GetOptions{})
		if err == nil {
			return false, "the ClusterRole is there"
		}
		return apierrors.IsNotFound(err), err.Error()
	})
}

// bookingTimeout bounds a booking test: deploy/ applied, the passes, the caches' wait.
func bookingTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// theWorkerKeepsItsFinalizer: the worker, as its ServiceAccount, adds its finalizer to a
// Reservation it does not hold, and removes it once the holder cancels, which lets the
// delete finish.
func theWorkerKeepsItsFinalizer(t *testing.T, ctx context.Context, holder dynamic.ResourceInterface, name string) {
	t.Helper()
	cfg := as(workerUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNamespace)
	w := &observatory.Activities{Clients: clientsOf(t, cfg)}
	r, err := holder.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	ref := observatory.FinalizerRef{Kind: obsv1.KindReservation, Namespace: bookingNamespace, Name: name, UID: string(r.GetUID())}
	added, err := w.AddDeactivateFinalizer(ctx, ref)
	require.NoError(t, err, "the worker adds its finalizer")
	require.True(t, added.Changed && added.Has, "the worker adds its finalizer: %+v", added)

	require.NoError(t, holder.Delete(ctx, name, metav1.DeleteOptions{}))
	removed, err := w.RemoveDeactivateFinalizer(ctx, ref)
	require.NoError(t, err, "the worker removes its finalizer from a Reservation being deleted")
	require.True(t, removed.Deleting && removed.Changed, "the worker removes its finalizer: %+v", removed)
	_, err = holder.Get(ctx, name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the Reservation is gone once its finalizer is: %v", err)
}

// requireRefused: the booking policy refused user's request on the Reservation name held by
// holder, and said who may.
func requireRefused(t *testing.T, err error, name, holder, user string) {
	t.Helper()
	require.Error(t, err, "%s may not write the Reservation %s held by %s", user, name, holder)
	require.True(t, apierrors.IsForbidden(err), "a refusal is Forbidden: %v", err)
	msg := err.Error()
	for _, want := range []string{
		"ValidatingAdmissionPolicy 'liken-reservation-holders'",
		"Reservation " + name + " is held by Person " + holder,
		"only the users and groups that Person " + holder + " names (spec.users, spec.groups)",
		"or an observatory administrator (group liken:observatory-admins) may book, change or cancel it",
		user + " is neither",
	} {
		require.Contains(t, msg, want)
	}
}

// policyInForce waits until the API server's policy cache holds the policy (bob's booking in
// ada's name is refused by it) and RBAC's holds ada's binding (her own is let through). Both
// are dry runs: nothing is stored while the caches fill.
func policyInForce(t *testing.T, ctx context.Context, ada, bob dynamic.ResourceInterface) {
	t.Helper()
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	testenv.Eventually(t, policyInForceWithin, "the booking policy refuses bob and lets ada through", func() (bool, string) {
		_, bobErr := bob.Create(ctx, reservation("probe", "ada"), dry)
		if bobErr == nil || !strings.Contains(bobErr.Error(), "is held by Person ada") {
			return false, "bob's booking in ada's name: " + errString(bobErr)
		}
		_, adaErr := ada.Create(ctx, reservation("probe", "ada"), dry)
		return adaErr == nil, "ada's own booking: " + errString(adaErr)
	})
	// The API server type-checks the expressions against the Reservation's schema once it
	// has them: a field that does not exist would be a warning here and an error at each
	// request.
	var checked *admissionregistrationv1.TypeChecking
	testenv.Eventually(t, policyInForceWithin, "the booking policy is type-checked", func() (bool, string) {
		p, err := env.Kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, "liken-reservation-holders", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		checked = p.Status.TypeChecking
		return p.Status.ObservedGeneration == p.Generation && checked != nil, fmt.Sprintf("%+v", p.Status)
	})
	require.Empty(t, checked.ExpressionWarnings, "the booking policy's expressions type-check against the CRDs")
}

func errString(err error) string {
	if err == nil {
		return "accepted"
	}
	return err.Error()
}

// syncAsTheWorker runs the people side's quick pass over the Person as the worker's
// ServiceAccount, so its ClusterRole and binding are made with deploy/people's RBAC, checks
// them against the builders, and returns the role.
func syncAsTheWorker(t *testing.T, ctx context.Context, name string) *rbacv1.ClusterRole {
	t.Helper()
	cfg := as(workerUser, "system:serviceaccounts", "system:serviceaccounts:"+operatorNamespace)
	w := &people.Activities{Clients: clientsOf(t, cfg)}
	out, err := w.SyncPerson(ctx, people.PersonPass{Name: name})
	require.NoError(t, err, "the pass over %s as the worker", name)
	require.False(t, out.Gone)

	p := getPerson(t, ctx, name)
	role, err := env.Kube.RbacV1().ClusterRoles().Get(ctx, kube.PersonAccessName(name), metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, kube.PersonRole(p).Rules, role.Rules)
	require.Equal(t, p.UID, metav1.GetControllerOf(role).UID)
	b, err := env.Kube.RbacV1().ClusterRoleBindings().Get(ctx, kube.PersonAccessName(name), metav1.GetOptions{})
	if want := kube.PersonRoleBinding(p); want == nil {
		require.True(t, apierrors.IsNotFound(err), "%s names no one, and has a binding: %v", name, err)
	} else {
		require.NoError(t, err)
		require.Equal(t, want.Subjects, b.Subjects)
		require.Equal(t, want.RoleRef, b.RoleRef)
	}
	return role
}

// applyPerson server-side applies the Person with the users and groups who act as it (the
// examples' ada may be there already), and deletes it when the test ends.
func applyPerson(t *testing.T, ctx context.Context, name string, users, groups []string) {
	t.Helper()
	spec := map[string]any{"displayName": strings.ToUpper(name[:1]) + name[1:]}
	if users != nil {
		spec["users"] = toAny(users)
	}
	if groups != nil {
		spec["groups"] = toAny(groups)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": peoplev1.SchemeGroupVersion.String(), "kind": peoplev1.PersonKind.Kind,
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
	persons := env.Dynamic.Resource(peoplev1.PersonResource)
	_, err := persons.Apply(ctx, name, u, metav1.ApplyOptions{FieldManager: "booking-test", Force: true})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := persons.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete the Person %s: %v", name, err)
		}
	})
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func getPerson(t *testing.T, ctx context.Context, name string) *peoplev1.Person {
	t.Helper()
	u, err := env.Dynamic.Resource(peoplev1.PersonResource).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	var p peoplev1.Person
	convert(t, u, &p)
	return &p
}

// mayWriteReservations gives the users plain RBAC on Reservations in bookingNamespace, as a
// site gives its observers: the policy, not RBAC, decides in whose name.
func mayWriteReservations(t *testing.T, ctx context.Context, users ...string) {
	t.Helper()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "observers", Namespace: bookingNamespace},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{obsv1.GroupName}, Resources: []string{"reservations"},
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"},
		}},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "observers", Namespace: bookingNamespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "observers"},
	}
	for _, u := range users {
		binding.Subjects = append(binding.Subjects, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: u})
	}
	rbac := env.Kube.RbacV1()
	if _, err := rbac.Roles(bookingNamespace).Create(ctx, role, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
	if _, err := rbac.RoleBindings(bookingNamespace).Create(ctx, binding, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
}

// as is the admin's config impersonating the user in the groups.
func as(user string, groups ...string) *rest.Config {
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	return cfg
}

// clientsOf are the activities' clients on cfg, as the worker wires its own.
func clientsOf(t *testing.T, cfg *rest.Config) activities.Clients {
	t.Helper()
	k, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	d, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return activities.Clients{Kube: k, Dynamic: d, Instance: "booking-test", Now: time.Now}
}

// reservationsAs are the Reservations of bookingNamespace as the user in the groups sees them.
func reservationsAs(t *testing.T, user string, groups ...string) dynamic.ResourceInterface {
	t.Helper()
	d, err := dynamic.NewForConfig(as(user, groups...))
	require.NoError(t, err)
	return d.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(bookingNamespace)
}

func reservation(name, holder string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": string(obsv1.KindReservation),
		"metadata": map[string]any{"name": name, "namespace": bookingNamespace},
		"spec": map[string]any{"telescope": "east", "holder": holder,
			"start": "2031-01-02T20:00:00Z", "end": "2031-01-03T04:00:00Z"},
	}}
}

// changeEnd moves the Reservation's end an hour later, as its holder would.
func changeEnd(ctx context.Context, r dynamic.ResourceInterface, name string) error {
	_, err := r.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"end":"2031-01-03T05:00:00Z"}}`), metav1.PatchOptions{})
	return err
}
