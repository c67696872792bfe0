// deploy/people on a real API server with RBAC: each ServiceAccount may do what its code does
// and nothing more (asked of the authorizer as the ServiceAccount, with SubjectAccessReviews
// and kubectl auth can-i), and the watcher really runs on its own: with a token of the
// people-operator ServiceAccount it leads and signals, and once its Lease Role is taken away
// it stops acting 10 s after its last renewal and exits.
package watch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

const (
	watcherSA = "people-operator"
	workerSA  = "liken-worker"
)

// applyDeploy server-side applies the kustomize base deploy/people, as a user would.
func applyDeploy(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := env.Kubectl(ctx, "apply", "--server-side", "-k", "deploy/people"); err != nil {
		t.Fatal(err)
	}
}

var deployOnce sync.Once

func deployApplied(t *testing.T, ctx context.Context) {
	t.Helper()
	deployOnce.Do(func() { applyDeploy(t, ctx) })
}

// access is one question to the authorizer: may the ServiceAccount do verb on resource?
type access struct {
	verb, group, resource, subresource, namespace, name string
}

func (a access) String() string {
	s := a.verb + " " + a.resource
	if a.group != "" {
		s += "." + a.group
	}
	if a.subresource != "" {
		s += "/" + a.subresource
	}
	if a.name != "" {
		s += " " + a.name
	}
	if a.namespace != "" {
		s += " in " + a.namespace
	}
	return s
}

func allowed(t *testing.T, ctx context.Context, sa string, a access) bool {
	t.Helper()
	r, err := env.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:" + leaseNamespace + ":" + sa,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + leaseNamespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource,
				Namespace: a.namespace, Name: a.name,
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Status.Allowed
}

const people = "people.liken.sh"

func TestEachServiceAccountMayDoWhatItsCodeDoesAndNothingMore(t *testing.T) {
	ctx := timeout(t, time.Minute)
	deployApplied(t, ctx)
	checkPermissions(t, ctx, "its code needs it", "its code never does", peopleWatcherPermissions(), peopleWorkerPermissions())
	// The same questions as a user asks them, through impersonation.
	checkCanI(t, ctx, []canI{
		{[]string{"update", "people.people.liken.sh", "--subresource=status", "--as=system:serviceaccount:liken-system:people-operator"}, "no"},
		{[]string{"create", "pods", "-n", "liken-system", "--as=system:serviceaccount:liken-system:people-operator"}, "no"},
		{[]string{"update", "people.people.liken.sh", "--subresource=status", "--as=system:serviceaccount:liken-system:liken-worker"}, "yes"},
		{[]string{"delete", "people.people.liken.sh", "--as=system:serviceaccount:liken-system:liken-worker"}, "no"},
		{[]string{"delete", "events", "-n", "default", "--as=system:serviceaccount:liken-system:liken-worker"}, "no"},
		{[]string{"create", "events", "-n", "default", "--as=system:serviceaccount:liken-system:liken-worker"}, "yes"},
		{[]string{"act-as", "people.people.liken.sh/ada", "--as=system:serviceaccount:liken-system:liken-worker"}, "yes"},
		{[]string{"act-as", "people.people.liken.sh/ada", "--as=system:serviceaccount:liken-system:people-operator"}, "no"},
		{[]string{"create", "clusterrolebindings", "--as=system:serviceaccount:liken-system:liken-worker"}, "yes"},
		{[]string{"bind", "clusterroles/cluster-admin", "--as=system:serviceaccount:liken-system:liken-worker"}, "no"},
	})
}

// peopleWatcherPermissions are the people watcher's: internal/watch's informers on people and
// baker pods, and internal/leader's Lease.
func peopleWatcherPermissions() permissions {
	return permissions{
		sa: watcherSA,
		may: []access{
			{verb: "list", group: people, resource: "people"},
			{verb: "watch", group: people, resource: "people"},
			{verb: "get", group: people, resource: "people", name: "ada"},
			{verb: "list", resource: "pods"},
			{verb: "watch", resource: "pods"},
			{verb: "watch", resource: "pods", namespace: "observatory"},
			{verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace},
			{verb: "get", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: leaseName},
			{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: leaseName},
		},
		mayNo: []access{
			{verb: "update", group: people, resource: "people", subresource: "status", name: "ada"},
			{verb: "patch", group: people, resource: "people", subresource: "status", name: "ada"},
			{verb: "update", group: people, resource: "people", name: "ada"},
			{verb: "delete", group: people, resource: "people", name: "ada"},
			{verb: "create", resource: "pods", namespace: leaseNamespace},
			{verb: "delete", resource: "pods", namespace: leaseNamespace, name: "avatar-ada"},
			{verb: "get", resource: "pods", subresource: "log", namespace: leaseNamespace, name: "avatar-ada"},
			{verb: "create", resource: "events", namespace: "default"},
			{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: "observatory-operator"},
			{verb: "delete", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: leaseName},
			{verb: "create", group: "coordination.k8s.io", resource: "leases", namespace: "default"},
			{verb: "list", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace},
			{verb: "get", resource: "secrets", namespace: leaseNamespace},
			{verb: "act-as", group: people, resource: "people", name: "ada"},
			{verb: "create", group: rbac, resource: "clusterroles"},
			{verb: "get", group: rbac, resource: "clusterrolebindings", name: "liken-person-ada"},
		},
	}
}

const rbac = "rbac.authorization.k8s.io"

// peopleWorkerPermissions are the worker's on the people side (activities/people and
// cmd/worker): read a Person, write its status, run baker pods anywhere, read a claim's
// namespace and claim, keep each Person's ClusterRole and ClusterRoleBinding (which grant
// act-as on the Person, so the worker holds it: RBAC lets it grant only what it holds), post
// and count Events in default.
func peopleWorkerPermissions() permissions {
	return permissions{
		sa: workerSA,
		may: []access{
			{verb: "get", group: people, resource: "people", name: "ada"},
			{verb: "update", group: people, resource: "people", subresource: "status", name: "ada"},
			{verb: "create", resource: "pods", namespace: leaseNamespace},
			{verb: "create", resource: "pods", namespace: "observatory"},
			{verb: "get", resource: "pods", namespace: leaseNamespace, name: "avatar-ada"},
			{verb: "watch", resource: "pods", namespace: "observatory"},
			{verb: "list", resource: "pods"},
			{verb: "delete", resource: "pods", namespace: "observatory", name: "avatar-ada"},
			{verb: "get", resource: "pods", subresource: "log", namespace: "observatory", name: "avatar-ada"},
			{verb: "create", resource: "events", namespace: "default"},
			{verb: "patch", resource: "events", namespace: "default", name: "ada.1"},
			{verb: "get", resource: "namespaces", name: "observatory"},
			{verb: "get", resource: "persistentvolumeclaims", namespace: "people", name: "portraits"},
			{verb: "act-as", group: people, resource: "people", name: "ada"},
			{verb: "act-as", group: people, resource: "people"},
			{verb: "create", group: rbac, resource: "clusterroles"},
			{verb: "get", group: rbac, resource: "clusterroles", name: "liken-person-ada"},
			{verb: "update", group: rbac, resource: "clusterroles", name: "liken-person-ada"},
			{verb: "delete", group: rbac, resource: "clusterroles", name: "liken-person-ada"},
			{verb: "create", group: rbac, resource: "clusterrolebindings"},
			{verb: "get", group: rbac, resource: "clusterrolebindings", name: "liken-person-ada"},
			{verb: "update", group: rbac, resource: "clusterrolebindings", name: "liken-person-ada"},
			{verb: "delete", group: rbac, resource: "clusterrolebindings", name: "liken-person-ada"},
		},
		mayNo: []access{
			{verb: "delete", group: people, resource: "people", name: "ada"},
			{verb: "update", group: people, resource: "people", name: "ada"},
			{verb: "patch", group: people, resource: "people", name: "ada"},
			{verb: "create", group: people, resource: "people"},
			{verb: "list", group: people, resource: "people"},
			{verb: "patch", group: people, resource: "people", subresource: "status", name: "ada"},
			// Events elsewhere are the observatory side's (deploy/observatory gives the same
			// ServiceAccount create and patch on Events in every namespace).
			{verb: "delete", resource: "events", namespace: "default", name: "ada.1"},
			{verb: "update", resource: "pods", namespace: leaseNamespace, name: "avatar-ada"},
			{verb: "create", resource: "pods", subresource: "exec", namespace: leaseNamespace, name: "avatar-ada"},
			{verb: "get", group: "coordination.k8s.io", resource: "leases", namespace: leaseNamespace, name: leaseName},
			{verb: "get", resource: "secrets", namespace: leaseNamespace},
			{verb: "list", resource: "namespaces"},
			{verb: "list", resource: "persistentvolumeclaims", namespace: "people"},
			{verb: "update", resource: "persistentvolumeclaims", namespace: "people", name: "portraits"},
			// It keeps the roles by name and grants only what it holds: no listing, no
			// escalate or bind, no impersonation (namespaced roles are the observatory side's:
			// a Ready reservation's way in).
			{verb: "list", group: rbac, resource: "clusterroles"},
			{verb: "watch", group: rbac, resource: "clusterrolebindings"},
			{verb: "patch", group: rbac, resource: "clusterroles", name: "liken-person-ada"},
			{verb: "escalate", group: rbac, resource: "clusterroles", name: "liken-person-ada"},
			{verb: "bind", group: rbac, resource: "clusterroles", name: "cluster-admin"},
			{verb: "impersonate", resource: "users", name: "ada@example.org"},
			{verb: "impersonate", resource: "groups", name: "liken:observatory-admins"},
		},
	}
}

// permissions are what one ServiceAccount may do, and what it may not.
type permissions struct {
	sa         string
	may, mayNo []access
}

// checkPermissions asks the authorizer each question of each ServiceAccount; given says why
// a refusal is wrong, needless why an allowance is.
func checkPermissions(t *testing.T, ctx context.Context, given, needless string, ps ...permissions) {
	t.Helper()
	for _, p := range ps {
		for _, a := range p.may {
			if !allowed(t, ctx, p.sa, a) {
				t.Errorf("%s may not %s; %s", p.sa, a, given)
			}
		}
		for _, a := range p.mayNo {
			if allowed(t, ctx, p.sa, a) {
				t.Errorf("%s may %s; %s", p.sa, a, needless)
			}
		}
	}
}

// canI is one question as a user asks it (kubectl auth can-i args) and the answer it wants.
type canI struct {
	args []string
	want string
}

// checkCanI asks each question through impersonation, as a user would.
func checkCanI(t *testing.T, ctx context.Context, qs []canI) {
	t.Helper()
	for _, q := range qs {
		// can-i exits 1 for "no"; the answer is its last word (a warning may come first).
		out, _ := env.Kubectl(ctx, append([]string{"auth", "can-i"}, q.args...)...)
		words := strings.Fields(out)
		if len(words) == 0 || words[len(words)-1] != q.want {
			t.Errorf("kubectl auth can-i %s: %q, want %s", strings.Join(q.args, " "), out, q.want)
		}
	}
}

// serviceAccountKubeconfig writes a kubeconfig that authenticates as the ServiceAccount with
// a fresh token, as the pod's mounted token would.
func serviceAccountKubeconfig(t *testing.T, ctx context.Context, sa string) string {
	t.Helper()
	tok, err := env.Kube.CoreV1().ServiceAccounts(leaseNamespace).CreateToken(ctx, sa, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca := env.Config.TLSClientConfig.CAData
	if len(ca) == 0 && env.Config.TLSClientConfig.CAFile != "" {
		if ca, err = os.ReadFile(env.Config.TLSClientConfig.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["stack"] = &clientcmdapi.Cluster{Server: env.Config.Host, CertificateAuthorityData: ca,
		InsecureSkipTLSVerify: env.Config.TLSClientConfig.Insecure}
	cfg.AuthInfos[sa] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts[sa] = &clientcmdapi.Context{Cluster: "stack", AuthInfo: sa}
	cfg.CurrentContext = sa
	path := filepath.Join(t.TempDir(), sa+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTheWatcherRunsOnItsOwnRBACAndALeaderThatCannotRenewStopsActingAndExits(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	deployApplied(t, ctx)
	deletePeopleAtEnd(t)
	freshLease(t)
	kubeconfig := serviceAccountKubeconfig(t, ctx, watcherSA)
	w := startProc(t, "watcher-sa", taskQueue(t), procOptions{kubeconfig: kubeconfig})
	waitHolder(t, ctx, "watcher-sa", 20*time.Second)
	name := unique("ada")
	newPerson(t, ctx, name)
	if got := waitSignals(t, ctx, name, 1, 20*time.Second); got[0].Identity != "watcher-sa" {
		t.Fatalf("signalled by %s, want watcher-sa", got[0].Identity)
	}

	// Take the Lease Role away: every renewal is now refused, as it would be for a copy
	// the control plane cannot hear.
	if err := env.Kube.RbacV1().RoleBindings(leaseNamespace).Delete(ctx, "people-operator-lease", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		applyDeploy(t, ctx)
	})
	code, exited := w.waitExit(t, 30*time.Second)
	l, err := getLease(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := exited.Sub(l.Spec.RenewTime.Time)
	t.Logf("watcher-sa exited %d, %s after its last renewal", code, after.Round(time.Millisecond))
	if code == 0 {
		t.Error("watcher-sa exited 0 after losing its Lease, want non-zero")
	}
	// 10 s, plus the watchdog's 250 ms tick and the exit.
	if after < 10*time.Second || after > 11*time.Second {
		t.Errorf("watcher-sa exited %s after its last renewal, want 10 s", after)
	}
	if !strings.Contains(w.logText(), "stopped acting") {
		t.Error("watcher-sa did not say it stopped acting")
	}
}
