// The real node's configuration files, as text: containerd's, the CNI network's, the
// kubelet's, kube-proxy's and CoreDNS's. Everything the node keeps lives under its folder,
// so nothing of it stays on the machine once the folder and the few host paths the kubelet
// insists on (see node_clean.go) are removed. The values come from the probe in the project's
// notes: cgroup v1 allowed, no negative oom_score_adj (root here lacks CAP_SYS_RESOURCE),
// images never garbage-collected (a test pulls each once), and sysctls left alone
// where a flag allows it.
package localstack

import (
	"fmt"
	"path/filepath"
)

// The node's network: a bridge whose gateway is the host's address for the pods, where the
// API server, the kubelet, kube-proxy and CoreDNS listen for them, and nowhere else.
const (
	RealNodeName  = "liken-node"
	bridgeName    = "liken0"
	cniNetwork    = "liken-node"
	podCIDR       = "10.247.0.0/16"
	gatewayIP     = "10.247.0.1"
	gatewayPrefix = gatewayIP + "/16"
	clusterDomain = "cluster.local"
)

func containerdConfig(r string) string {
	return fmt.Sprintf(`version = 3
root = %[1]q
state = %[2]q
[grpc]
  address = %[3]q
[ttrpc]
  address = "%[3]s.ttrpc"
[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".registry]
    config_path = %[7]q
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = %[4]q
[plugins."io.containerd.cri.v1.runtime"]
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  enable_cdi = true
  cdi_spec_dirs = [%[8]q]
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        SystemdCgroup = false
        Root = %[5]q
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = %[6]q
`, filepath.Join(r, "containerd", "root"), filepath.Join(r, "containerd", "state"),
		containerdSocket(r), pauseImage, filepath.Join(r, "containerd", "runc"), filepath.Join(r, "cni"), filepath.Join(r, "certs.d"), cdiDir(r))
}

// The node's folders for devices: the CDI specs the DRA driver writes and containerd reads,
// and the test world's stand-ins for /dev/serial/by-id and /sys (this machine has no USB
// devices; the tests plug pseudo-terminals in there, as testenv's PlugSerial does).
func cdiDir(r string) string      { return filepath.Join(r, "cdi") }
func serialByID(r string) string  { return filepath.Join(r, "devices", "by-id") }
func devicesSys(r string) string  { return filepath.Join(r, "devices", "sys") }
func kubeletRoot(r string) string { return filepath.Join(r, "kubelet", "root") }

func containerdSocket(r string) string { return filepath.Join(r, "containerd", "containerd.sock") }

// cniConfig is one bridge network; host-local keeps its leases under the node's folder, not
// in /var/lib/cni. No portmap: the runner's pods use no host ports.
func cniConfig(r string) string {
	return fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": %q,
  "plugins": [
    {
      "type": "bridge", "bridge": %q, "isGateway": true, "ipMasq": true, "hairpinMode": true,
      "ipam": {
        "type": "host-local", "dataDir": %q,
        "ranges": [[{"subnet": %q, "gateway": %q}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "loopback"}
  ]
}
`, cniNetwork, bridgeName, filepath.Join(r, "cni-ipam"), podCIDR, gatewayIP)
}

func kubeletConfig(r string, port, healthPort int) string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://%s
address: %s
port: %d
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: %d
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
clusterDomain: %s
clusterDNS: [%s]
resolvConf: /etc/resolv.conf
podLogsDir: %s
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%%, imagefs.available: 1%%, nodefs.inodesFree: 1%%}
# The downward API files (the INDI servers' drivers) follow an annotation within this.
syncFrequency: 5s
serializeImagePulls: false
`, containerdSocket(r), gatewayIP, port, healthPort, clusterDomain, gatewayIP, filepath.Join(r, "kubelet", "pods-logs"))
}

// kubeProxyConfig leaves the conntrack sysctls and route_localnet alone (0s and no
// localhost node ports), so the machine's settings are the same after the node stops.
func kubeProxyConfig(kubeconfig string, healthPort, metricsPort int) string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clusterCIDR: %s
hostnameOverride: %s
bindAddress: %s
healthzBindAddress: 127.0.0.1:%d
metricsBindAddress: 127.0.0.1:%d
clientConnection: {kubeconfig: %s}
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
iptables: {localhostNodePorts: false}
nodePortAddresses: [%s/32]
`, podCIDR, RealNodeName, gatewayIP, healthPort, metricsPort, kubeconfig, gatewayIP)
}

// corefile serves the cluster's names from the API server and forwards the rest to the
// machine's resolvers, on the gateway only.
func corefile(kubeconfig string, healthPort int) string {
	return fmt.Sprintf(`%[1]s:53 in-addr.arpa:53 ip6.arpa:53 {
    bind %[2]s
    errors
    health 127.0.0.1:%[3]d
    kubernetes %[1]s in-addr.arpa ip6.arpa {
        kubeconfig %[4]s local
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 5
    }
}
.:53 {
    bind %[2]s
    errors
    forward . /etc/resolv.conf
    cache 30
}
`, clusterDomain, gatewayIP, healthPort, kubeconfig)
}
