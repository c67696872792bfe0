// A dev-mode stand-in stops with its pod. The worker follows the INDI server pods as a kubelet
// follows the pods of its node, and stops the local indiserver of a pod that is deleted: by
// PowerOff or StopSite at the end of a reservation, or by a person. A worker that was not
// running when a pod went stops that pod's stand-in when it starts. Before this, a Released
// reservation's local indiservers ran on until `make run` stopped.
package observatory

import (
	"context"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/kube"
)

// FollowPods stops the local indiserver of each INDI server pod that is deleted, until ctx
// ends; it returns once its first look (the pods deleted while no worker followed them) is
// done, and follows on in the background.
func (l *LocalINDI) FollowPods(ctx context.Context, client kubernetes.Interface, log *slog.Logger) error {
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = labels.Set{kube.LabelRole: string(kube.RoleServer)}.String()
	}))
	pods := factory.Core().V1().Pods()
	gone := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if pod, ok := obj.(*corev1.Pod); ok {
			l.podGone(ctx, client, pod.Namespace, pod.Labels[kube.LabelServer], log)
		}
	}
	if _, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, obj any) {
			if pod, ok := obj.(*corev1.Pod); ok && pod.DeletionTimestamp != nil {
				gone(pod)
			}
		},
		DeleteFunc: gone,
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go func() { <-ctx.Done(); factory.Shutdown() }()
	if !cache.WaitForCacheSync(ctx.Done(), pods.Informer().HasSynced) {
		return ctx.Err()
	}
	for _, key := range l.known() {
		ns, name, _ := cache.SplitMetaNamespaceKey(key)
		if pod, err := pods.Lister().Pods(ns).Get(kube.ServerPodName(name)); apierrors.IsNotFound(err) || (err == nil && pod.DeletionTimestamp != nil) {
			l.podGone(ctx, client, ns, name, log)
		}
	}
	return nil
}

// podGone stops the stand-in of the server namespace/name whose pod went, unless its pod runs
// again (created anew after the delete this was told of: a site's StatefulSet makes it at once).
func (l *LocalINDI) podGone(ctx context.Context, client kubernetes.Interface, namespace, name string, log *slog.Logger) {
	pod, err := client.CoreV1().Pods(namespace).Get(ctx, kube.ServerPodName(name), metav1.GetOptions{})
	switch {
	case err == nil && pod.DeletionTimestamp == nil:
		return
	case err != nil && !apierrors.IsNotFound(err):
		log.Warn("could not tell whether a server pod is gone; its local indiserver runs on (dev mode)", "pod", namespace+"/"+name, "err", err)
		return
	}
	if l.StopServer(ctx, INDIServer{Namespace: namespace, Name: name}) {
		log.Info("stopped the local indiserver of a deleted pod (dev mode)", "pod", namespace+"/"+name)
	}
}

// StopServer stops the local indiserver of s (this worker's, or one an earlier worker recorded)
// and says whether one ran. Its port is kept for a server of that name started later.
func (l *LocalINDI) StopServer(ctx context.Context, s INDIServer) bool {
	key := s.Namespace + "/" + s.Name
	cur, unlock, err := l.lockedServer(ctx, key)
	if err != nil {
		return false
	}
	defer unlock()
	if cur == nil {
		return false
	}
	l.stop(key, cur)
	return l.setServer(key, nil) == nil
}

// known lists the servers this worker runs or its folder records, as namespace/name.
func (l *LocalINDI) known() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var keys []string
	for k := range l.servers {
		keys = append(keys, k)
	}
	if l.Dir != "" {
		recs, _ := ReadLocalINDIRecords(l.Dir)
		for _, r := range recs {
			if k := r.Namespace + "/" + r.Name; l.servers[k] == nil {
				keys = append(keys, k)
			}
		}
	}
	return keys
}
