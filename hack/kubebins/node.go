//go:build tools

package kubebins

// The real node of the local stack (internal/localstack's Node option): the kubelet and
// kube-proxy come from the same k8s.io/kubernetes module as the control plane, so the node
// and the API server are always one version. hack/tools.sh builds them into a folder of
// their own (node-<version>), apart from the control plane's.
import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
