// The baker pod: the one-shot pod that reads a Person's picture from an NFS export or a
// claim. The worker cannot mount volumes, so a pod of the worker's own image mounts the file's
// directory (NFS) or the whole claim read-only, runs `bake <file> <#rrggbb>`, and prints one
// JSON line that the worker reads from its log. Its name is fixed per Person, so a retried
// bake, even on another worker, finds and adopts the same pod.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures/avatar"
)

const (
	// BakerContainer is the baker pod's one container; its log holds the result.
	BakerContainer = "bake"
	// BakerVolume is the volume that holds the picture's file.
	BakerVolume = "source"
	// BakerLogLimit is how much of the baker's log is read: the result is one line, and a
	// thumbnail's data URI is far smaller.
	BakerLogLimit = 1 << 20
	// maxPodName is the longest name a pod may have (a DNS subdomain).
	maxPodName = 253
)

// BakerPodName is the name of a Person's baker pod: avatar-<person>. A Person's name may be
// 253 characters, so a name that would be longer is cut and ends in a hash of the whole
// Person's name, which keeps it unique.
func BakerPodName(person string) string {
	name := "avatar-" + person
	if len(name) <= maxPodName {
		return name
	}
	sum := sha256.Sum256([]byte(person))
	suffix := "-" + hex.EncodeToString(sum[:])[:16]
	return cut(name, maxPodName-len(suffix)) + suffix
}

// BakerPodInput is what a baker pod is made from.
type BakerPodInput struct {
	// Person and PersonUID name the Person whose picture is read.
	Person    string
	PersonUID types.UID
	// Avatar is spec.avatar as written, and Source the same, parsed: an nfs:// or claim://.
	Avatar string
	Source avatar.Source
	// Checked is the Person's check-avatar annotation at the time.
	Checked string
	// Image is the worker's own image, which holds the `bake` subcommand.
	Image string
	// OperatorNamespace is where an NFS picture's pod runs; a claim's pod runs in the
	// claim's namespace, because a pod can mount only a claim of its own namespace.
	OperatorNamespace string
}

// BakerPod is the baker pod for a Person's nfs:// or claim:// picture.
func BakerPod(in BakerPodInput) (*corev1.Pod, error) {
	var (
		ns  string
		vol corev1.VolumeSource
	)
	switch in.Source.Kind {
	case avatar.KindNFS:
		ns = in.OperatorNamespace
		vol.NFS = &corev1.NFSVolumeSource{Server: in.Source.Server, Path: in.Source.Dir, ReadOnly: true}
	case avatar.KindClaim:
		ns = in.Source.Namespace
		vol.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: in.Source.Claim, ReadOnly: true}
	default:
		return nil, fmt.Errorf("a baker pod reads only nfs:// and claim:// pictures, not %q", in.Source.Kind)
	}

	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      BakerPodName(in.Person),
			Namespace: ns,
			Labels: map[string]string{
				LabelBaker:     BakerLabelValue,
				LabelManagedBy: PeopleComponent,
			},
			Annotations: map[string]string{
				AnnotationPerson:  in.Person,
				AnnotationSource:  in.Avatar,
				AnnotationChecked: in.Checked,
			},
		},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			// The baker talks to nobody: no API token, no Service variables.
			AutomountServiceAccountToken: ptr.To(false),
			EnableServiceLinks:           ptr.To(false),
			Containers: []corev1.Container{{
				Name:  BakerContainer,
				Image: in.Image,
				Args:  []string{"bake", in.Source.BakerFile(), avatar.Hex(avatar.Colour(in.Person))},
				VolumeMounts: []corev1.VolumeMount{{
					Name: BakerVolume, MountPath: avatar.BakerMount, ReadOnly: true,
				}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("10m"),
						corev1.ResourceMemory: resource.MustParse("32Mi"),
					},
					// Decoding a picture of 8192x8192 pixels takes about 256 MiB; the limit
					// lets that through and stops anything worse.
					Limits: corev1.ResourceList{
						corev1.ResourceMemory: resource.MustParse("384Mi"),
					},
				},
				SecurityContext: BakerSecurity(),
			}},
			Volumes: []corev1.Volume{{Name: BakerVolume, VolumeSource: vol}},
		},
	}
	if in.PersonUID != "" {
		// The Person owns its pod, so the garbage collector removes a pod whose Person is gone
		// even when no worker is running. No blockOwnerDeletion: the runner may not write
		// people/finalizers, and nothing needs to wait for the pod.
		pod.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: peoplev1.SchemeGroupVersion.String(),
			Kind:       peoplev1.PersonKind.Kind,
			Name:       in.Person,
			UID:        in.PersonUID,
			Controller: ptr.To(true),
		}}
	}
	return pod, nil
}

// BakerUser is the baker's uid and gid: nobody, the user a root-squashed NFS export maps
// root to, so a baker reads what root would read there. On a claim it reads what the
// file's mode lets others read.
const BakerUser int64 = 65534

// BakerSecurity is what the restricted Pod Security Standard admits, so a baker pod starts
// in a namespace that enforces it: a non-root user, no capability, no escalation, the
// runtime's seccomp profile, and a read-only root. (Root with DAC_OVERRIDE, as the older
// operator ran it, is refused there, and reads nothing more on a root-squashed export.)
func BakerSecurity() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		RunAsNonRoot:             ptr.To(true),
		RunAsUser:                ptr.To(BakerUser),
		RunAsGroup:               ptr.To(BakerUser),
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

// OwnImage is the image of the worker's own container in its pod, which baker pods run too, so
// that one `images:` entry in a kustomization pins both. The container is the one named
// "operator" (the existing operator's Deployment), else "worker", else the pod's only one.
func OwnImage(pod *corev1.Pod) (string, error) {
	for _, name := range []string{"operator", "worker"} {
		for _, c := range pod.Spec.Containers {
			if c.Name == name {
				return c.Image, nil
			}
		}
	}
	if len(pod.Spec.Containers) == 1 {
		return pod.Spec.Containers[0].Image, nil
	}
	return "", fmt.Errorf("the pod %s/%s has no container named operator or worker, and more than one container; set --baker-image", pod.Namespace, pod.Name)
}
