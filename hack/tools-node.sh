# The real node's programs, for hack/tools.sh (which sources this file and calls `node`):
# the parts internal/localstack runs when a test or `make run` asks for real containers instead
# of kwok. Each goes into a versioned folder of its own under the cache, as the rest do:
#
#   node-v1.37.2/        kubelet, kube-proxy (hack/kubebins, the control plane's module and
#                        ldflags), and pause (the pod sandbox, from the C source that ships
#                        in k8s.io/kubernetes)
#   containerd-v2.4.2/   containerd, containerd-shim-runc-v2, ctr
#   coredns-v1.15.0/     coredns (cluster DNS; its kubernetes plugin is built in)
#
# and installs what Debian ships when missing: runc, the CNI plugins, iptables, nftables (the
# node's teardown deletes the tables it made), conntrack, socat (the device pods' images carry
# it) and busybox-static (the Job actions' image), through tools.sh's apt, which starts no
# service.

CONTAINERD_VERSION=v2.4.2
COREDNS_VERSION=v1.15.0

# Static, as tools.sh builds the control plane: the two share their compiled packages.
node_kube() {
  (cd "$root/hack/kubebins" && CGO_ENABLED=0 go build -trimpath -ldflags "$(kube_ldflags)" -o "$out/" \
    k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy)
  # The sandbox every pod starts with. Static, so the image is this one file.
  local kdir
  kdir=$(cd "$root/hack/kubebins" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)
  gcc -Os -static -DVERSION="$KUBE_VERSION-liken" -o "$out/pause" "$kdir/build/pause/linux/pause.c"
  strip "$out/pause"
}

node_containerd() {
  # Its go.mod has no replace directives, so `go install` builds it as released. The tags
  # leave out snapshotters this machine kind has no use for (overlayfs is what the node uses).
  CGO_ENABLED=0 GOBIN=$out go install -trimpath -tags "no_btrfs no_devmapper no_zfs" \
    -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/containerd@$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION" \
    "github.com/containerd/containerd/v2/cmd/ctr@$CONTAINERD_VERSION"
}

node_coredns() {
  GOBIN=$out go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
}

node_apt() {
  local missing=() p
  for p in runc:/usr/sbin/runc containernetworking-plugins:/usr/lib/cni/bridge \
           iptables:/usr/sbin/iptables nftables:/usr/sbin/nft conntrack:/usr/sbin/conntrack socat:/usr/bin/socat \
           busybox-static:/bin/busybox; do
    [ -e "${p#*:}" ] || missing+=("${p%%:*}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian's ${missing[*]} (the real node's runtime, network and images)"
  apt "${missing[@]}"
}

node() {
  node_apt
  build "node-$KUBE_VERSION" node_kube
  build "containerd-$CONTAINERD_VERSION" node_containerd
  build "coredns-$COREDNS_VERSION" node_coredns
}
