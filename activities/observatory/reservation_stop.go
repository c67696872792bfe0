// Stopping what a reservation started: the pods, Services, claims and ConfigMaps of one
// server and role, found by their labels, and then the device finalizers of the resources
// whose objects went (unless another server still runs the device).
package observatory

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// stopSelector picks the objects of a server to stop.
type stopSelector struct {
	Namespace string
	Server    string
	Role      kube.ObjectRole
	// Switches: only Switch devices (true) or every other device (false); ignored for the
	// server role and when Device is set.
	Switches bool
	// Device, when its Kind is set, picks only that device's objects: one that left.
	Device kube.ResourceID
}

func (sel stopSelector) selector() string {
	set := labels.Set{
		kube.LabelManagedBy: kube.ObservatoryComponent,
		kube.LabelServer:    sel.Server,
		kube.LabelRole:      string(sel.Role),
	}
	if sel.Device.Kind != "" {
		set[kube.LabelKind], set[kube.LabelResource] = string(sel.Device.Kind), sel.Device.Name
		return labels.SelectorFromSet(set).String()
	}
	s := labels.SelectorFromSet(set).String()
	if sel.Role == kube.RoleDevice {
		op := "!="
		if sel.Switches {
			op = "="
		}
		s += "," + kube.LabelKind + op + string(obsv1.KindSwitch)
	}
	return s
}

// stopped is what stopObjects deleted: the resources (kind and name) whose objects went.
type stopped struct {
	Resources []kube.ResourceID
}

// stopObjects deletes the pods, Services, claims and (for a guider) ConfigMaps the selector picks (a missing one is
// fine), waits until they are gone, and then removes the device finalizers of their
// resources. It finds the objects by their labels, not by the resources' specs, so a device
// that left the telescope meanwhile is stopped too.
func (a *Activities) stopObjects(ctx context.Context, sel stopSelector) (stopped, error) {
	ns, ls := sel.Namespace, metav1.ListOptions{LabelSelector: sel.selector()}
	core := a.Kube.CoreV1()
	out, err := a.deleteObjects(ctx, sel)
	if err != nil {
		return out, err
	}
	err = waitUntil(ctx, "the pods of "+sel.Server+" gone", func(ctx context.Context) (bool, error) {
		left, err := core.Pods(ns).List(ctx, ls)
		if err != nil {
			return false, err
		}
		if len(left.Items) > 0 {
			return false, nil
		}
		s, err := core.Services(ns).List(ctx, ls)
		return err == nil && len(s.Items) == 0, err
	})
	if err != nil {
		return out, err
	}
	if sel.Role == kube.RoleDevice {
		return out, a.releaseDevices(ctx, sel, out.Resources)
	}
	return out, nil
}

// deleteObjects deletes the objects the selector picks (a missing one is fine) and says
// whose they were.
func (a *Activities) deleteObjects(ctx context.Context, sel stopSelector) (stopped, error) {
	ns, ls := sel.Namespace, metav1.ListOptions{LabelSelector: sel.selector()}
	core := a.Kube.CoreV1()
	seen := map[kube.ResourceID]bool{}
	var out stopped
	note := func(l map[string]string) {
		r := kube.ResourceID{Kind: obsv1.Kind(l[kube.LabelKind]), Namespace: ns, Name: l[kube.LabelResource]}
		if !seen[r] {
			seen[r] = true
			out.Resources = append(out.Resources, r)
		}
	}
	if sel.Role == kube.RoleServer {
		// First the site's StatefulSet, which would make its pod again.
		sets, err := a.Kube.AppsV1().StatefulSets(ns).List(ctx, ls)
		if err != nil {
			return out, fmt.Errorf("list the StatefulSets of %s: %w", sel.Server, err)
		}
		for _, s := range sets.Items {
			note(s.Labels)
			if err := a.Kube.AppsV1().StatefulSets(ns).Delete(ctx, s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return out, fmt.Errorf("delete the StatefulSet %s: %w", s.Name, err)
			}
		}
	}
	pods, err := core.Pods(ns).List(ctx, ls)
	if err != nil {
		return out, fmt.Errorf("list the pods of %s: %w", sel.Server, err)
	}
	svcs, err := core.Services(ns).List(ctx, ls)
	if err != nil {
		return out, fmt.Errorf("list the Services of %s: %w", sel.Server, err)
	}
	var claims []resourcev1.ResourceClaim
	if sel.Role == kube.RoleDevice {
		cl, err := a.Kube.ResourceV1().ResourceClaims(ns).List(ctx, ls)
		if err != nil {
			return out, fmt.Errorf("list the ResourceClaims of %s: %w", sel.Server, err)
		}
		claims = cl.Items
	}
	var cms []corev1.ConfigMap
	if sel.Role == kube.RoleGuider {
		cl, err := core.ConfigMaps(ns).List(ctx, ls)
		if err != nil {
			return out, fmt.Errorf("list the ConfigMaps of %s: %w", sel.Server, err)
		}
		cms = cl.Items
	}
	del := func(err error, what string) error {
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete the %s: %w", what, err)
		}
		return nil
	}
	for _, p := range pods.Items {
		note(p.Labels)
		if err := del(core.Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{}), "pod "+p.Name); err != nil {
			return out, err
		}
	}
	for _, s := range svcs.Items {
		note(s.Labels)
		if err := del(core.Services(ns).Delete(ctx, s.Name, metav1.DeleteOptions{}), "Service "+s.Name); err != nil {
			return out, err
		}
	}
	for _, c := range claims {
		note(c.Labels)
		if err := del(a.Kube.ResourceV1().ResourceClaims(ns).Delete(ctx, c.Name, metav1.DeleteOptions{}), "ResourceClaim "+c.Name); err != nil {
			return out, err
		}
	}
	for _, c := range cms {
		note(c.Labels)
		if err := del(core.ConfigMaps(ns).Delete(ctx, c.Name, metav1.DeleteOptions{}), "ConfigMap "+c.Name); err != nil {
			return out, err
		}
	}
	return out, nil
}

// releaseDevices marks the stopped devices Idle (or Inventory) and removes their finalizers,
// unless another server still runs the device.
func (a *Activities) releaseDevices(ctx context.Context, sel stopSelector, resources []kube.ResourceID) error {
	ns := sel.Namespace
	for _, r := range resources {
		if !r.Kind.IsDevice() {
			continue
		}
		// The finalizer stays while another server still runs the device.
		if elsewhere, err := a.runsElsewhere(ctx, r, sel.Server); err != nil || elsewhere {
			if err != nil {
				return err
			}
			continue
		}
		if err := a.markStopped(ctx, r); err != nil {
			return err
		}
		if _, err := a.patchFinalizers(ctx, FinalizerRef{Kind: r.Kind, Namespace: ns, Name: r.Name}, false); err != nil {
			return err
		}
	}
	return nil
}

// runsElsewhere says whether a pod of a server other than server still runs the device r.
func (a *Activities) runsElsewhere(ctx context.Context, r kube.ResourceID, server string) (bool, error) {
	sel := labels.SelectorFromSet(labels.Set{
		kube.LabelManagedBy: kube.ObservatoryComponent,
		kube.LabelRole:      string(kube.RoleDevice),
		kube.LabelKind:      string(r.Kind),
		kube.LabelResource:  r.Name,
	}).String() + "," + kube.LabelServer + "!=" + server
	pods, err := a.Kube.CoreV1().Pods(r.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return false, fmt.Errorf("list the pods of %s %s: %w", r.Kind, r.Name, err)
	}
	return len(pods.Items) > 0, nil
}
