// The labels, annotations and finalizer of the observatory side. They are the existing
// operator's, so a user's Services, NetworkPolicies, selectors and scripts keep working with
// our runner; never change them. Every pod, Service, claim and ConfigMap a reservation
// creates carries the seven object labels: who manages it, its name (which its Service
// selects), its role, the INDI server it belongs to, and the kind and name of the resource
// that caused it.
package kube

import (
	"slices"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

const (
	// ObservatoryComponent manages every object the observatory side creates: the
	// managed-by label's value, and the name Events and writes report under.
	ObservatoryComponent = "observatory-operator"
	// ObservatoryPartOf is the part-of label's value.
	ObservatoryPartOf = "observatory"

	// LabelAppPartOf and LabelAppName are the standard labels; a Service selects its pod by
	// LabelAppName alone. (LabelManagedBy, the third, is shared with the people side.)
	LabelAppPartOf = "app.kubernetes.io/part-of"
	LabelAppName   = "app.kubernetes.io/name"
	// LabelRole says what an object is for: server, device, guider, or job.
	LabelRole = "observatory.liken.sh/role"
	// LabelServer names the INDI server pod an object belongs to, such as east-telescope.
	LabelServer = "observatory.liken.sh/server"
	// LabelKind and LabelResource name the resource that caused the object, such as
	// Telescope and east.
	LabelKind     = "observatory.liken.sh/kind"
	LabelResource = "observatory.liken.sh/resource"

	// AnnotationSpecDigest on a pod holds 16 hex digits of sha256 of its spec as built. A
	// pod whose digest is not the one built now is stale and is replaced.
	AnnotationSpecDigest = "observatory.liken.sh/spec"
	// AnnotationDrivers on a server pod lists its drivers' addresses, one <svc>:7625 per
	// line. The pod reads it through a downwardAPI volume, so a patch adds or removes a
	// driver without a restart.
	AnnotationDrivers = "observatory.liken.sh/drivers"
	// AnnotationTrigger on a job action's Job names the procedure it runs for: activation,
	// deactivation, or triggers[i].
	AnnotationTrigger = "observatory.liken.sh/trigger"

	// FinalizerDeactivate holds a resource the runner runs something for, so a delete waits
	// until the runner has stopped it.
	FinalizerDeactivate = "observatory.liken.sh/deactivate"
)

// ObjectRole is the value of LabelRole.
type ObjectRole string

// The roles of the objects a reservation creates.
const (
	RoleServer ObjectRole = "server"
	RoleDevice ObjectRole = "device"
	RoleGuider ObjectRole = "guider"
	RoleJob    ObjectRole = "job"
)

// ObjectLabels are the seven labels of a pod, Service, claim or ConfigMap named object,
// which belongs to the INDI server pod server and was caused by the resource r.
func ObjectLabels(object string, role ObjectRole, server string, r ResourceID) map[string]string {
	return map[string]string{
		LabelManagedBy: ObservatoryComponent,
		LabelAppPartOf: ObservatoryPartOf,
		LabelAppName:   object,
		LabelRole:      string(role),
		LabelServer:    server,
		LabelKind:      string(r.Kind),
		LabelResource:  r.Name,
	}
}

// JobLabels are the labels of a job action's Job: the object labels less the server, with
// the role job.
func JobLabels(job string, r ResourceID) map[string]string {
	return map[string]string{
		LabelManagedBy: ObservatoryComponent,
		LabelAppPartOf: ObservatoryPartOf,
		LabelAppName:   job,
		LabelRole:      string(RoleJob),
		LabelKind:      string(r.Kind),
		LabelResource:  r.Name,
	}
}

// PodTemplateLabels are the labels of a Job's pod template: part-of, name and role only, so a
// selector on managed-by, kind or resource finds the Job and not its pods twice.
func PodTemplateLabels(object string, role ObjectRole) map[string]string {
	return map[string]string{
		LabelAppPartOf: ObservatoryPartOf,
		LabelAppName:   object,
		LabelRole:      string(role),
	}
}

// ServerName is the INDI server pod that serves a resource's devices: <tel>-telescope for a
// Telescope, <obs>-observatory for an Observatory.
func ServerName(kind obsv1.Kind, name string) string { return ObjectName(kind, name) }

// FinalizersHave says whether finalizer is in the list.
func FinalizersHave(list []string, finalizer string) bool {
	return slices.Contains(list, finalizer)
}

// FinalizersWith is the list with finalizer added at the end, or the list itself when it
// already holds it, so a caller can tell from the length whether a patch is needed. The
// list passed in is never changed.
func FinalizersWith(list []string, finalizer string) []string {
	if FinalizersHave(list, finalizer) {
		return list
	}
	return append(slices.Clip(list), finalizer)
}

// FinalizersWithout is the list less every copy of finalizer, in the same order. The list
// passed in is never changed.
func FinalizersWithout(list []string, finalizer string) []string {
	if !FinalizersHave(list, finalizer) {
		return list
	}
	out := make([]string, 0, len(list)-1)
	for _, f := range list {
		if f != finalizer {
			out = append(out, f)
		}
	}
	return out
}
