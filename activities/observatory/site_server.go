// The site's server as the cluster keeps it (kube.SiteServer): a StatefulSet whose pod comes back
// when it is evicted or deleted, with the runner there or not. The runner keeps the pod template
// current, the drivers it links and the config it last armed the site guard with, so a new pod
// starts as the one before it ran; and it patches the running pod's drivers, which it reads live.
package observatory

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"liken.sh/runner/indi/guard"
	"liken.sh/runner/kube"
)

// ensureSiteServer creates or adopts the site's StatefulSet around its server pod, keeps the
// template's drivers current, removes the bare pod of a runner before this one, and patches the
// running pod's drivers.
func (a *Activities) ensureSiteServer(ctx context.Context, pod *corev1.Pod) error {
	want, err := kube.SiteServer(pod)
	if err != nil {
		return stepFailed("%v", err)
	}
	drivers := pod.Annotations[kube.AnnotationDrivers]
	sets := a.Kube.AppsV1().StatefulSets(pod.Namespace)
	err = ensureObject(ctx, sets, "StatefulSet", want, func(ctx context.Context, cur *appsv1.StatefulSet) (adoption, error) {
		if kube.SiteServerIsStale(cur, want) {
			return replaceIt, nil
		}
		if cur.Spec.Template.Annotations[kube.AnnotationDrivers] == drivers {
			return adopted, nil
		}
		return lookAgain, a.annotateTemplate(ctx, cur, kube.AnnotationDrivers, drivers)
	})
	if err != nil {
		return err
	}
	if err := a.removeBareSitePod(ctx, pod.Namespace, pod.Name); err != nil {
		return err
	}
	return a.annotatePod(ctx, pod.Namespace, kube.ServerPodName(pod.Name), kube.AnnotationDrivers, drivers)
}

// removeBareSitePod deletes a site's server pod of the name the StatefulSet's is not: the bare
// pod a runner before this one made. Left, it would run a second site guard beside the new one.
func (a *Activities) removeBareSitePod(ctx context.Context, ns, server string) error {
	err := a.Kube.CoreV1().Pods(ns).Delete(ctx, server, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete the site's bare server pod %s: %w", server, err)
	}
	return nil
}

// recordArmed writes the config the site guard was armed with into the site server's pod
// template, where a guard in a new pod reads it; a site without its StatefulSet has none.
func (a *Activities) recordArmed(ctx context.Context, ns, server string, cfg guard.Config) error {
	cfg.WrittenAt = time.Time{} // each arming writes anew; the template keeps what it says
	set, err := a.Kube.AppsV1().StatefulSets(ns).Get(ctx, server, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the StatefulSet %s: %w", server, err)
	}
	if set.Spec.Template.Annotations[kube.AnnotationSiteGuard] == cfg.Encode() {
		return nil
	}
	return a.annotateTemplate(ctx, set, kube.AnnotationSiteGuard, cfg.Encode())
}

// annotateTemplate sets one annotation of a StatefulSet's pod template, at the version read: a
// conflict or a StatefulSet gone meanwhile is no error (the caller looks again, or it went).
// OnDelete keeps the running pod as it is.
func (a *Activities) annotateTemplate(ctx context.Context, set *appsv1.StatefulSet, key, value string) error {
	patch := fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q},"spec":{"template":{"metadata":{"annotations":{%q:%q}}}}}`,
		set.ResourceVersion, key, value)
	_, err := a.Kube.AppsV1().StatefulSets(set.Namespace).Patch(ctx, set.Name, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: observatoryFieldManager})
	if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		return fmt.Errorf("annotate the pod template of %s: %w", set.Name, err)
	}
	return nil
}

// annotatePod sets one annotation of a running pod until it holds; a pod not there (yet) is
// made from the template, which holds it already.
func (a *Activities) annotatePod(ctx context.Context, ns, name, key, value string) error {
	pods := a.Kube.CoreV1().Pods(ns)
	return waitUntil(ctx, "the pod "+name+" annotated", func(ctx context.Context) (bool, error) {
		cur, err := pods.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err != nil || cur.Annotations[key] == value {
			return err == nil, err
		}
		patch := fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q,"annotations":{%q:%q}}}`, cur.ResourceVersion, key, value)
		_, err = pods.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: observatoryFieldManager})
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
}
