// An Observatory's INDI server, the site's, runs the site guard: the one part of the runner that
// must keep working with the runner gone. So the cluster keeps it running, not the runner: it is
// a StatefulSet of one pod, and a pod evicted or deleted while the runner is away comes back, its
// guard armed again from what the runner last armed it with (AnnotationSiteGuard, in the pod
// template). A StatefulSet, not a Deployment: it never runs two pods of one site at once (two
// guards driving one dome), and its pod's name is known, <obs>-observatory-0. Its pod is replaced
// only when it is deleted (OnDelete): the drivers and the armed config change in the template for
// the next pod, and on the running pod by a patch, without a restart.
package kube

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// AnnotationSiteGuard on the site server's pod template holds the config the runner last armed
// the site guard with (indi/guard's Config, as JSON). A new pod's guard reads it through the
// downwardAPI volume when it has no state of its own (SiteGuardArmedEnv).
const AnnotationSiteGuard = "observatory.liken.sh/site-guard"

// SiteGuardArmedEnv names the file a new site guard reads the runner's last config from
// (indi/guard's ArmedEnv), and SiteGuardArmed is that file in the server pod.
const (
	SiteGuardArmedEnv = "LIKEN_GUARD_ARMED"
	SiteGuardArmed    = obsDriversMountPath + "/" + obsSiteGuardFile
	obsSiteGuardFile  = "site-guard"
)

// ServerPodName is the name of a server's pod: the server's own, or for a site's server
// (IsSiteServer) the one pod of its StatefulSet.
func ServerPodName(server string) string {
	if IsSiteServer(server) {
		return server + "-0"
	}
	return server
}

// PodKey is the name the runner knows a pod by: a server's pod by its server's name (a site's
// is <server>-0), every other by its own.
func PodKey(p *corev1.Pod) string {
	if server := p.Labels[LabelServer]; p.Labels[LabelRole] == string(RoleServer) && p.Name == ServerPodName(server) {
		return server
	}
	return p.Name
}

// SiteServer is an Observatory's server as a StatefulSet, around its pod as ServerPod built it
// (and InRegistry placed it): the pod's labels, annotations (drivers, spec digest) and spec are
// the template's, and the StatefulSet carries the spec digest too, so a stale one is replaced as
// a stale pod is.
func SiteServer(pod *corev1.Pod) (*appsv1.StatefulSet, error) {
	if pod.Labels[LabelKind] != string(obsv1.KindObservatory) {
		return nil, fmt.Errorf("only an Observatory's server is a StatefulSet, not a %s's", pod.Labels[LabelKind])
	}
	name := pod.Name
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       pod.Namespace,
			Labels:          pod.Labels,
			Annotations:     map[string]string{AnnotationSpecDigest: pod.Annotations[AnnotationSpecDigest]},
			OwnerReferences: pod.OwnerReferences,
		},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr.To(int32(1)),
			ServiceName:         name,
			Selector:            &metav1.LabelSelector{MatchLabels: map[string]string{LabelAppName: name, LabelRole: string(RoleServer)}},
			PodManagementPolicy: appsv1.OrderedReadyPodManagement,
			UpdateStrategy:      appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels, Annotations: pod.Annotations},
				Spec:       pod.Spec,
			},
		},
	}, nil
}

// SiteServerIsStale says whether a running site server was built from another spec than wanted.
func SiteServerIsStale(running, wanted *appsv1.StatefulSet) bool {
	return running.Annotations[AnnotationSpecDigest] != wanted.Annotations[AnnotationSpecDigest]
}
