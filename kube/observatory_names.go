// The names of what a reservation creates. Every pod, Service, claim and ConfigMap is named
// <resource>-<kind in lowercase> (east-mount, east-main-camera, east-telescope, lab-observatory,
// east-guider), so a name is the same after a restart and a user's own Service or
// NetworkPolicy can select it. A shim dials its device by the Service name, so each name must
// be a DNS-1035 label; a resource whose name gives a longer or malformed one is refused with a
// message that says how to fix it. A job action's Job is named from its run instead, so a
// restarted runner finds and adopts the Job it created before.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The ports of the objects a reservation creates. Each Service has its pod's one port, by the
// same name.
const (
	// ServerPortName and ServerPort: indiserver, for KStars and every other INDI client.
	ServerPortName       = "indi"
	ServerPort     int32 = 7624
	// DriverPortName and DriverPort: a device's driver, for its INDI server only.
	DriverPortName       = "driver"
	DriverPort     int32 = 7625
	// GuiderPortName and GuiderPort: PHD2's event server.
	GuiderPortName       = "events"
	GuiderPort     int32 = 4400
)

// MaxObjectName is the longest generated name: a DNS-1035 label.
const MaxObjectName = 63

// maxSiteServerName is the longest name of a site's server, a StatefulSet: its pods' label
// controller-revision-hash is the name, '-' and a hash of up to 10 characters, in 63.
const maxSiteServerName = 52

// maxObjectNameOf is the longest name a resource of the kind may give.
func maxObjectNameOf(kind obsv1.Kind) int {
	if kind == obsv1.KindObservatory {
		return maxSiteServerName
	}
	return MaxObjectName
}

// ResourceID names the resource that causes an object: a device, a Telescope, an Observatory
// or a Guider. It is what labels, owner references and a job's LIKEN_RESOURCE are made of.
type ResourceID struct {
	Kind      obsv1.Kind
	Namespace string
	Name      string
	// UID is the resource's metadata.uid, for the owner reference; an object built without
	// it has no owner.
	UID types.UID
}

// ResourceIDOf names a resource of the given kind.
func ResourceIDOf(kind obsv1.Kind, obj metav1.Object) ResourceID {
	return ResourceID{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID()}
}

// String is the kind and name, such as Dome/lab: a job's LIKEN_RESOURCE.
func (r ResourceID) String() string { return string(r.Kind) + "/" + r.Name }

// OwnerReferences makes the resource the controller of what it causes, so the garbage
// collector removes an object whose resource is gone even when no runner is running. No
// blockOwnerDeletion: that needs update on the kind's finalizers, which the runner's role
// does not grant, and the runner's own finalizer already makes a delete wait.
func (r ResourceID) OwnerReferences() []metav1.OwnerReference {
	if r.UID == "" {
		return nil
	}
	return []metav1.OwnerReference{{
		APIVersion: obsv1.SchemeGroupVersion.String(),
		Kind:       string(r.Kind),
		Name:       r.Name,
		UID:        r.UID,
		Controller: ptr.To(true),
	}}
}

// ObjectName is the name of the pod, Service, claim or ConfigMap a resource causes:
// <name>-<kind in lowercase>, such as east-main-camera or east-telescope. It does not check
// the result; ValidObjectName does.
func ObjectName(kind obsv1.Kind, name string) string {
	return name + "-" + strings.ToLower(string(kind))
}

// IsSiteServer says whether a server pod's name is an Observatory's (<obs>-observatory), whose
// server runs the site guard beside the site's devices.
func IsSiteServer(name string) bool {
	return strings.HasSuffix(name, "-"+strings.ToLower(string(obsv1.KindObservatory)))
}

// ServerHost is a Service's DNS name inside the cluster, such as
// east-telescope.observatory.svc: what a job's INDI_HOST and PHD2's profile name.
func ServerHost(service, namespace string) string {
	return service + "." + namespace + ".svc"
}

// ObjectNameError says that a resource's name gives no valid object name, and how to fix it.
// The step that needs the name fails with it; only a rename fixes it, so it is not retried.
type ObjectNameError struct {
	Kind obsv1.Kind
	// Name is the resource's name; Object the name it gives.
	Name, Object string
	// Max is the longest resource name of this kind that gives a name short enough.
	Max int
	// Problems are what is wrong besides the length, if anything.
	Problems []string
}

func (e *ObjectNameError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the %s name %s gives the pod name %s", e.Kind, e.Name, e.Object)
	tooLong := len(e.Name) > e.Max
	if tooLong {
		fmt.Fprintf(&b, " (%d characters); shorten the name to at most %d characters", len(e.Object), e.Max)
	}
	if len(e.Problems) > 0 {
		if tooLong {
			b.WriteString(", and")
		} else {
			b.WriteString(", which is not a DNS label:")
		}
		fmt.Fprintf(&b, " rename it so that it %s", strings.Join(e.Problems, " and "))
	}
	return b.String()
}

// ValidObjectName is ObjectName, or an *ObjectNameError when the result is not a DNS-1035
// label of at most 63 characters (52 for an Observatory's, a StatefulSet). Resource names may
// hold dots and start with a digit (the CRDs allow it); Service names may not.
func ValidObjectName(kind obsv1.Kind, name string) (string, error) {
	object := ObjectName(kind, name)
	var problems []string
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z') {
		problems = append(problems, "starts with a lowercase letter")
	}
	if strings.ContainsFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') }) {
		problems = append(problems, "holds only lowercase letters, digits and '-'")
	}
	// The name ends in the kind's letters, so these two rules and the length make the whole
	// a DNS-1035 label.
	if len(object) <= maxObjectNameOf(kind) && len(problems) == 0 {
		return object, nil
	}
	return object, &ObjectNameError{
		Kind: kind, Name: name, Object: object,
		Max:      maxObjectNameOf(kind) - (len(object) - len(name)),
		Problems: problems,
	}
}

// The parts of a job action's Job name: a readable part cut so that, with '-' and the hash,
// the name is at most 63 characters, the most a Job's pods can carry in their job-name label.
const (
	jobReadableMax = 52
	jobHashLen     = 10
)

var obsNotNameChars = regexp.MustCompile(`[^a-z0-9]+`)

// JobName is the name of a job action's Job: <readable>-<hash>, where readable is
// <Kind>-<name>-<trigger> in lowercase with each run of characters outside [a-z0-9] replaced
// by '-', trimmed of '-', and cut to 52 characters, and hash is the first 10 hex digits of
// sha256("<Kind>/<name>\n<trigger>\n<since in unix seconds>\n<action index>"). The hash makes
// each run of each action its own Job, and the same one again after a restart. since is when
// the run became due (the procedure record's since).
func JobName(kind obsv1.Kind, name, trigger string, since time.Time, index int) string {
	readable := strings.ToLower(string(kind) + "-" + name + "-" + trigger)
	readable = strings.Trim(obsNotNameChars.ReplaceAllString(readable, "-"), "-")
	// The spec cuts after trimming and trims nothing after, so a cut may end in '-'; the
	// existing operator's names are kept exactly, and "--" is valid in a Job name.
	if len(readable) > jobReadableMax {
		readable = readable[:jobReadableMax]
	}
	in := string(kind) + "/" + name + "\n" + trigger + "\n" +
		strconv.FormatInt(since.Unix(), 10) + "\n" + strconv.Itoa(index)
	sum := sha256.Sum256([]byte(in))
	return readable + "-" + hex.EncodeToString(sum[:])[:jobHashLen]
}
