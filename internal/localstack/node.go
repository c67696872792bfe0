// The real node: containerd with Debian's runc and CNI plugins, the kubelet and kube-proxy
// (iptables) from the control plane's module, and CoreDNS, so pods run as real containers,
// Services route and `<svc>.<ns>.svc` resolves inside them. It stands beside the control
// plane in place of kwok when Options.Node asks for it, and needs root.
//
// The pods reach the host at the gateway of the node's bridge, and only there: the API
// server listens on it (and keeps the `kubernetes` Service's endpoints, so pods use their
// ServiceAccount tokens), the kubelet serves logs and exec on it, CoreDNS answers on it.
// Nothing listens on another address of the machine. The node is the machine's while it
// runs: node_clean.go takes a lock, records what the node changes, and puts it back.
package localstack

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"liken.sh/runner/build/images"
)

// Versions of the node's programs besides the kubelet's (KubeVersion); hack/tools-node.sh
// builds the same ones.
const (
	ContainerdVersion = "v2.4.2"
	CoreDNSVersion    = "v1.15.0"
)

const pauseImage = images.PauseImage

// Node is the running real node.
type Node struct {
	// Dir holds the node's state: containerd's images and containers, the kubelet's pods,
	// the CNI leases, the configuration files.
	Dir string
	// Containerd is containerd's socket.
	Containerd string

	ctrPath string

	bins   map[string]string // program name to its path in the cache
	lock   *os.File
	record *nodeRecord
}

// SerialByID is the node's /dev/serial/by-id and DevicesSys its /sys, as its DRA driver sees
// them: where a test plugs a serial device in.
func (n *Node) SerialByID() string { return serialByID(n.Dir) }
func (n *Node) DevicesSys() string { return devicesSys(n.Dir) }

// prepareNode takes the machine's node lock, cleans what a dead earlier node left, records
// the machine as it is, and makes the bridge, whose gateway the API server then binds.
func (s *Stack) prepareNode() error {
	bins := map[string]string{}
	for _, b := range []struct{ tool, name string }{
		{"containerd-" + ContainerdVersion, "containerd"}, {"containerd-" + ContainerdVersion, "ctr"},
		{"node-" + KubeVersion, "kubelet"}, {"node-" + KubeVersion, "kube-proxy"}, {"node-" + KubeVersion, "pause"},
		{"coredns-" + CoreDNSVersion, "coredns"},
	} {
		p, err := s.bin(b.tool, b.name)
		if err != nil {
			return err
		}
		bins[b.name] = p
	}
	lock, err := nodeLock()
	if err != nil {
		return err
	}
	if err := sweepDeadNode(); err != nil {
		lock.Close()
		return err
	}
	dir, err := mkdir(s.opts.Dir, "node")
	if err != nil {
		lock.Close()
		return err
	}
	rec, err := newRecord(dir, bins["kube-proxy"])
	if err != nil {
		lock.Close()
		return err
	}
	s.Node = &Node{Dir: dir, Containerd: containerdSocket(dir), ctrPath: bins["ctr"], bins: bins, lock: lock, record: rec}
	for _, args := range [][]string{
		{"link", "add", bridgeName, "type", "bridge"},
		{"addr", "add", gatewayPrefix, "dev", bridgeName},
		{"link", "set", bridgeName, "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// startNode starts containerd (and pushes the pod sandbox's image, which containerd pulls
// when the first pod starts), the kubelet, then kube-proxy and CoreDNS, each once the one
// before is ready.
func (s *Stack) startNode(ctx context.Context, kube kubernetes.Interface) error {
	n, bins := s.Node, s.Node.bins
	ports, err := freePorts(5)
	if err != nil {
		return err
	}
	kubeletPort, kubeletHealth, proxyHealth, proxyMetrics, dnsHealth := ports[0], ports[1], ports[2], ports[3], ports[4]
	s.KubeletPort = kubeletPort
	if err := n.writeConfig(s.Kubeconfig, s.Registry, kubeletPort, kubeletHealth, proxyHealth, proxyMetrics, dnsHealth); err != nil {
		return err
	}

	// The v2 shim is found on PATH, next to containerd.
	if err := s.run(ctx, &proc{
		name: "containerd", path: bins["containerd"], dir: n.Dir,
		args: []string{"--config", filepath.Join(n.Dir, "containerd.toml")},
		env:  []string{"PATH=" + filepath.Dir(bins["containerd"]) + ":" + os.Getenv("PATH")},
		ready: func(ctx context.Context) error {
			_, err := n.Ctr(ctx, "version")
			return err
		},
	}); err != nil {
		return err
	}
	if err := s.Push(ctx, []images.Image{images.Pause(runtime.GOARCH, bins["pause"], images.Labels("test", ""))}); err != nil {
		return err
	}
	if err := s.run(ctx, &proc{
		name: "kubelet", path: bins["kubelet"], dir: n.Dir,
		args: []string{
			"--config=" + filepath.Join(n.Dir, "kubelet.yaml"), "--kubeconfig=" + s.Kubeconfig,
			"--root-dir=" + kubeletRoot(n.Dir), "--cert-dir=" + filepath.Join(n.Dir, "kubelet", "certs"),
			"--node-ip=" + gatewayIP, "--hostname-override=" + RealNodeName,
		},
		ready: func(ctx context.Context) error { return realNodeReady(ctx, kube) },
	}); err != nil {
		return err
	}
	errs := make(chan error, 2)
	go func() {
		errs <- s.run(ctx, &proc{
			name: "kube-proxy", path: bins["kube-proxy"], dir: n.Dir,
			args:  []string{"--config=" + filepath.Join(n.Dir, "kube-proxy.yaml")},
			ready: httpOK(fmt.Sprintf("http://127.0.0.1:%d/healthz", proxyHealth), ""),
		})
	}()
	go func() {
		errs <- s.run(ctx, &proc{
			name: "coredns", path: bins["coredns"], dir: n.Dir,
			args:  []string{"-conf", filepath.Join(n.Dir, "Corefile")},
			ready: dnsReady(dnsHealth),
		})
	}()
	return errors.Join(<-errs, <-errs)
}

// writeConfig writes the configuration files of the node's programs into its folder.
func (n *Node) writeConfig(kubeconfig, registry string, kubeletPort, kubeletHealth, proxyHealth, proxyMetrics, dnsHealth int) error {
	files := map[string]string{
		"containerd.toml":       containerdConfig(n.Dir),
		"cni/10-liken.conflist": cniConfig(n.Dir),
		"kubelet.yaml":          kubeletConfig(n.Dir, kubeletPort, kubeletHealth),
		"kube-proxy.yaml":       kubeProxyConfig(kubeconfig, proxyHealth, proxyMetrics),
		"Corefile":              corefile(kubeconfig, dnsHealth),
	}
	for _, r := range mirroredRegistries {
		files[filepath.Join("certs.d", r, "hosts.toml")] = registryHosts(registry)
	}
	for _, dir := range []string{cdiDir(n.Dir), serialByID(n.Dir), devicesSys(n.Dir)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	for name, text := range files {
		p := filepath.Join(n.Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// dnsReady waits for CoreDNS's health endpoint and for an answer about the API server's
// Service, which proves its kubernetes plugin has synced.
func dnsReady(healthPort int) func(context.Context) error {
	health := httpOK(fmt.Sprintf("http://127.0.0.1:%d/health", healthPort), "")
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, net.JoinHostPort(gatewayIP, "53"))
	}}
	return func(ctx context.Context) error {
		if err := health(ctx); err != nil {
			return err
		}
		_, err := r.LookupHost(ctx, "kubernetes.default.svc."+clusterDomain)
		return err
	}
}

func realNodeReady(ctx context.Context, kube kubernetes.Interface) error {
	n, err := kube.CoreV1().Nodes().Get(ctx, RealNodeName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("node %s is not Ready yet", RealNodeName)
}

// Ctr runs containerd's client on the node's images and containers (namespace k8s.io).
func (n *Node) Ctr(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.ctrPath, append([]string{"-n", "k8s.io", "-a", n.Containerd}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ctr %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// stop cleans what the node made, once its processes are stopped, and lets the lock go.
func (n *Node) stop() error {
	err := n.record.clean()
	n.lock.Close()
	return err
}

// NodeImages builds every image the real node runs, for this machine's platform: the
// project's (the runner's tagged runnerTag, its programs stamped build), then the pod sandbox,
// the bundled Temporal and busybox from the cache and this machine. work holds the programs
// until they are pushed.
func NodeImages(ctx context.Context, root, cache, work, runnerTag, build string) ([]images.Image, error) {
	b := images.Builder{Root: root, Cache: cache, Work: work, Version: build}
	project, err := b.Project(ctx, runnerTag, []string{runtime.GOARCH})
	if err != nil {
		return nil, err
	}
	world, err := images.TestWorld(filepath.Join(cache, "node-"+KubeVersion, "pause"), filepath.Join(cache, "temporal-"+TemporalVersion, "temporal"))
	if err != nil {
		return nil, err
	}
	return append(project, world...), nil
}
