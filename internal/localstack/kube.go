// The Kubernetes half of the stack: etcd, then kube-apiserver with RBAC and a static admin
// token, then kube-controller-manager (service accounts, garbage collection, Jobs, TTLs),
// kube-scheduler and kwok, which plays the kubelet of one fake node so pods become Running.
package localstack

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// NodeName is the fake node kwok runs every pod on.
const NodeName = "kwok-node-0"

func (s *Stack) startKube(ctx context.Context) error {
	bins, err := s.kubeBins()
	if err != nil {
		return err
	}
	// The API server listens where the pods of a real node reach it, and keeps the
	// `kubernetes` Service's endpoints for them; with kwok, on loopback alone.
	host, reconciler := "127.0.0.1", "none"
	if s.opts.Node {
		if err := s.prepareNode(); err != nil {
			return err
		}
		host, reconciler = gatewayIP, "lease"
	}
	ports, err := freePorts(7)
	if err != nil {
		return err
	}
	p := kubePorts{etcd: ports[0], peer: ports[1], api: ports[2], kcm: ports[3], scheduler: ports[4], kwok: ports[6]}
	s.KubeletPort = ports[5]

	tokens, err := s.writeCredentials()
	if err != nil {
		return err
	}
	etcdURL, err := s.startEtcd(ctx, bins.etcd, p)
	if err != nil {
		return err
	}
	if err := s.startAPIServer(ctx, bins.apiserver, etcdURL, host, reconciler, p.api, tokens); err != nil {
		return err
	}
	s.Kubeconfig = filepath.Join(s.opts.Dir, "kubeconfig")
	if err := writeKubeconfig(s.Kubeconfig, s.APIServer, filepath.Join(s.CertDir, "apiserver.crt"), s.AdminToken); err != nil {
		return err
	}
	kube, err := s.Client()
	if err != nil {
		return err
	}

	parts := s.controlPlane(bins, p, kube)
	if s.opts.Node {
		parts = parts[:2] // no kwok: the real node comes once the default ServiceAccount exists
	} else if err := ensureNode(ctx, kube); err != nil {
		return err
	}
	if err := s.runTogether(ctx, parts); err != nil {
		return err
	}
	if s.opts.Node {
		return s.startNode(ctx, kube)
	}
	return nil
}

// kubeBins are the programs of the Kubernetes half, from the tools cache.
type kubeBins struct{ etcd, apiserver, kcm, scheduler, kwok string }

// kubeBins finds the programs; kwok may be missing when a real node plays the kubelet.
func (s *Stack) kubeBins() (kubeBins, error) {
	kubeBin := "kube-" + KubeVersion
	var b kubeBins
	var err error
	if b.etcd, err = s.bin(kubeBin, "etcd"); err != nil {
		return b, err
	}
	b.apiserver, _ = s.bin(kubeBin, "kube-apiserver")
	b.kcm, _ = s.bin(kubeBin, "kube-controller-manager")
	b.scheduler, _ = s.bin(kubeBin, "kube-scheduler")
	if b.kwok, err = s.bin("kwok-"+KwokVersion, "kwok"); err != nil && !s.opts.Node {
		return b, err
	}
	return b, nil
}

// kubePorts are the loopback ports of the Kubernetes half. kwok serves its own kubelet API
// on the node port unless told another address (kwok); it is kept off the node port so a
// test's kubelet can serve the pod logs there.
type kubePorts struct{ etcd, peer, api, kcm, scheduler, kwok int }

// writeCredentials writes the service account key and the admin's static token, and returns
// the token file.
func (s *Stack) writeCredentials() (string, error) {
	certs, err := mkdir(s.opts.Dir, "certs")
	if err != nil {
		return "", err
	}
	s.CertDir = certs
	if err := writeServiceAccountKey(certs); err != nil {
		return "", err
	}
	s.AdminToken = randomHex(16)
	tokens := filepath.Join(certs, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(s.AdminToken+`,admin,admin,"system:masters"`+"\n"), 0o600); err != nil {
		return "", err
	}
	return tokens, nil
}

// startEtcd runs etcd on loopback and returns its client URL.
func (s *Stack) startEtcd(ctx context.Context, path string, p kubePorts) (string, error) {
	etcdData, _ := mkdir(s.opts.Dir, "etcd")
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", p.etcd)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", p.peer)
	return etcdURL, s.run(ctx, &proc{
		name: "etcd", path: path, dir: etcdData,
		args: []string{
			"--name=etcd", "--data-dir=" + etcdData,
			"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
			"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=etcd=" + peerURL,
			"--unsafe-no-fsync", "--log-level=warn",
		},
		ready: httpOK(etcdURL+"/health", ""),
	})
}

// startAPIServer runs kube-apiserver on host with RBAC and the static admin token.
func (s *Stack) startAPIServer(ctx context.Context, path, etcdURL, host, reconciler string, port int, tokens string) error {
	certs := s.CertDir
	s.APIServer = fmt.Sprintf("https://%s:%d", host, port)
	return s.run(ctx, &proc{
		name: "kube-apiserver", path: path, dir: certs,
		args: []string{
			"--etcd-servers=" + etcdURL,
			"--bind-address=" + host, "--advertise-address=" + host,
			"--secure-port=" + strconv.Itoa(port),
			"--cert-dir=" + certs,
			"--token-auth-file=" + tokens,
			"--authorization-mode=RBAC",
			"--service-account-key-file=" + filepath.Join(certs, "sa.pub"),
			"--service-account-signing-key-file=" + filepath.Join(certs, "sa.key"),
			"--service-account-issuer=https://kubernetes.default.svc",
			"--service-cluster-ip-range=10.0.0.0/24",
			"--endpoint-reconciler-type=" + reconciler,
			// The fake node's kubelet is at its InternalIP (see KubeletPort). Without
			// --kubelet-certificate-authority the API server does not verify its certificate.
			"--kubelet-preferred-address-types=InternalIP",
		},
		ready: httpOK(s.APIServer+"/readyz", s.AdminToken),
	})
}

// controlPlane are the parts that start once the API server answers: the controller
// manager, the scheduler and, last, kwok.
func (s *Stack) controlPlane(bins kubeBins, p kubePorts, kube kubernetes.Interface) []*proc {
	kwokHome, _ := mkdir(s.opts.Dir, "kwok")
	return []*proc{
		{
			name: "kube-controller-manager", path: bins.kcm, dir: s.opts.Dir,
			args: append(s.componentArgs(p.kcm),
				"--service-account-private-key-file="+filepath.Join(s.CertDir, "sa.key"),
				"--root-ca-file="+filepath.Join(s.CertDir, "apiserver.crt"),
				"--controllers=*",
			),
			// Pods cannot be created before the default ServiceAccount exists.
			ready: func(ctx context.Context) error {
				_, err := kube.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
				return err
			},
		},
		{
			name: "kube-scheduler", path: bins.scheduler, dir: s.opts.Dir,
			args:  s.componentArgs(p.scheduler),
			ready: httpOK(fmt.Sprintf("https://127.0.0.1:%d/healthz", p.scheduler), ""),
		},
		{
			name: "kwok", path: bins.kwok, dir: kwokHome, env: []string{"HOME=" + kwokHome},
			args: []string{
				"--kubeconfig=" + s.Kubeconfig,
				"--config=" + filepath.Join(s.opts.Cache, "kwok-"+KwokVersion, "stages.yaml"),
				"--manage-all-nodes=true",
				// Renew the node's Lease, as a kubelet does. Without it kwok only rewrites the
				// node's status every ten minutes, the controller manager finds the node silent
				// after 40 s, and every pod on it turns Ready=False for good.
				"--node-lease-duration-seconds=40",
				// The node's kubelet endpoint: the API server sends pod log and exec requests
				// here. Nothing listens unless a test runs a kubelet of its own on the port.
				"--node-ip=127.0.0.1", "--node-port=" + strconv.Itoa(s.KubeletPort),
				"--server-address=127.0.0.1:" + strconv.Itoa(p.kwok),
			},
			ready: func(ctx context.Context) error { return nodeReady(ctx, kube) },
		},
	}
}

// componentArgs are what the controller manager and the scheduler are both told: the
// admin's kubeconfig for everything, a secure port on loopback, and no leader election (one
// copy of each).
func (s *Stack) componentArgs(port int) []string {
	return []string{
		"--kubeconfig=" + s.Kubeconfig,
		"--authentication-kubeconfig=" + s.Kubeconfig,
		"--authorization-kubeconfig=" + s.Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
		"--leader-elect=false",
	}
}

// runTogether starts the parts at once and waits until each is ready; the first error wins.
func (s *Stack) runTogether(ctx context.Context, parts []*proc) error {
	var wg sync.WaitGroup
	errs := make([]error, len(parts))
	for i, p := range parts {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.run(ctx, p) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ensureNode registers the fake node; kwok makes it Ready and keeps its lease.
func ensureNode(ctx context.Context, kube kubernetes.Interface) error {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: NodeName,
			Labels: map[string]string{
				"kubernetes.io/hostname": NodeName,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
				"type":                   "kwok",
			},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("32"),
				corev1.ResourceMemory: resource.MustParse("256Gi"),
				corev1.ResourcePods:   resource.MustParse("1000"),
			},
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("32"),
				corev1.ResourceMemory: resource.MustParse("256Gi"),
				corev1.ResourcePods:   resource.MustParse("1000"),
			},
		},
	}
	_, err := kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func nodeReady(ctx context.Context, kube kubernetes.Interface) error {
	n, err := kube.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("node %s is not Ready yet", NodeName)
}

// httpOK probes a local health endpoint. The servers' certificates are self-signed by the
// processes we just started, so the probe does not verify them.
func httpOK(url, token string) func(context.Context) error {
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s: %s %s", url, resp.Status, body)
		}
		return nil
	}
}

func writeServiceAccountKey(dir string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sa.key"),
		pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
}

func writeKubeconfig(path, server, caFile, token string) error {
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    token: %s
contexts:
- name: local
  context: {cluster: local, user: admin}
current-context: local
`, server, base64.StdEncoding.EncodeToString(ca), token)
	return os.WriteFile(path, []byte(cfg), 0o600)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
