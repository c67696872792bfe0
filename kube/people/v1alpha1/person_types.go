// The Person kind: who someone is and which Kubernetes users and groups act as them (spec,
// written by people), and the picture the runner drew or fetched for them (status, written
// only by the runner). Screens show status.thumbnail, so the
// status keeps enough of the source's version (ETag, Last-Modified, size) to re-read it cheaply
// and the AvatarReady condition says where the picture came from or why it could not be read.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConditionAvatarReady is the condition type whose reason the Picture column shows: where the
// thumbnail came from (Initials, Fetched, Inline, Baked) or why the source failed.
const ConditionAvatarReady = "AvatarReady"

// Person is someone the other resources refer to by name. Its name is chosen once: every
// reference uses it, so renaming breaks them.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=people,singular=person,categories=people
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Display Name",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="Nickname",type=string,JSONPath=`.spec.nickname`
// +kubebuilder:printcolumn:name="UID",type=integer,JSONPath=`.spec.uid`
// +kubebuilder:printcolumn:name="Picture",type=string,JSONPath=`.status.conditions[?(@.type=="AvatarReady")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Message",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="AvatarReady")].message`
type Person struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. The name is what every other resource uses to refer to this
	// person.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Who the person is, as people write it.
	// +required
	Spec PersonSpec `json:"spec"`
	// The picture the runner made for the person; written only by the runner.
	// +optional
	Status PersonStatus `json:"status,omitempty"`
}

// PersonSpec is who the person is.
type PersonSpec struct {
	// What a screen shows for the person, such as "Ada Lovelace". Without a nickname and a
	// picture, its first and last words give the initials.
	// +required
	// +kubebuilder:validation:MinLength=1
	DisplayName string `json:"displayName"`

	// A one-word form of the display name, such as "Ada". When set, its first letter is the
	// initial drawn in place of a picture.
	// +optional
	// +kubebuilder:validation:MinLength=1
	Nickname string `json:"nickname,omitempty"`

	// Where the picture comes from, as a URI: https:// or http:// (fetched by the runner),
	// data: (inline), nfs://<server>/<path> or claim://<namespace>/<claim>/<path> (read by a
	// pod that mounts the file). Empty means the initials are drawn. Any other scheme is
	// reported as UnsupportedScheme in the AvatarReady condition.
	// +optional
	Avatar string `json:"avatar,omitempty"`

	// The person's numeric user ID on the site's computers. Declared for compatibility; the
	// runner does not use it.
	// +optional
	// +kubebuilder:validation:Minimum=1000
	// +kubebuilder:validation:Maximum=4294967294
	UID *int64 `json:"uid,omitempty"`

	// How the person signs in: an OpenID Connect issuer and subject. Declared for
	// compatibility; the runner does not use it.
	// +optional
	Identity *Identity `json:"identity,omitempty"`

	// The Kubernetes user names that act as this person, such as "ada@example.org": who may
	// book, change and cancel reservations in this person's name, and reach their telescopes.
	// The runner grants them the verb act-as on this Person (ClusterRole and ClusterRoleBinding
	// liken-person-<name>).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	Users []string `json:"users,omitempty"`

	// The Kubernetes groups whose members act as this person, such as "astro-club": like the
	// users, who may book, change and cancel reservations in this person's name, and reach
	// their telescopes.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	Groups []string `json:"groups,omitempty"`
}

// Identity names the person at an OpenID Connect issuer.
type Identity struct {
	// The issuer's URL, such as https://accounts.example.com.
	// +required
	// +kubebuilder:validation:Format=uri
	Issuer string `json:"issuer"`

	// The person's subject (the "sub" claim) at that issuer.
	// +required
	Subject string `json:"subject"`
}

// PersonStatus is the picture the runner made and how it got it.
type PersonStatus struct {
	// A user ID a previous operator may have written. Never written by the runner, but kept in
	// the schema so that it is not pruned.
	// +optional
	UID *int64 `json:"uid,omitempty"`

	// The picture screens show: a 256×256 JPEG as a data:image/jpeg;base64 URI. It holds the
	// drawn initials until a picture is read, and keeps the last good picture when a later
	// read fails.
	// +optional
	Thumbnail string `json:"thumbnail,omitempty"`

	// The version of the source the thumbnail was made from, so a re-read can tell whether
	// the source changed.
	// +optional
	Avatar *AvatarStatus `json:"avatar,omitempty"`

	// The latest observations of the person's state. AvatarReady says whether the picture
	// from spec.avatar is in the thumbnail; its reason names the source or the failure.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []Condition `json:"conditions,omitempty"`
}

// AvatarStatus records which version of spec.avatar the thumbnail was made from.
type AvatarStatus struct {
	// The spec.avatar value that was read.
	// +optional
	Source string `json:"source,omitempty"`

	// The HTTP ETag of the source, sent back as If-None-Match on the next read.
	// +optional
	ETag string `json:"etag,omitempty"`

	// When the source last changed: the HTTP Last-Modified header (sent back as
	// If-Modified-Since), or a file's modification time in RFC 3339.
	// +optional
	LastModified string `json:"lastModified,omitempty"`

	// The size in bytes of a file source; with lastModified, it tells whether the file changed.
	// +optional
	Size int64 `json:"size,omitempty"`

	// The value of the people.liken.sh/check-avatar annotation at the read. Changing the
	// annotation asks for another read.
	// +optional
	Checked string `json:"checked,omitempty"`
}

// Condition is one aspect of a Person's state, in the shape of metav1.Condition but with an
// optional message: a success carries none.
type Condition struct {
	// The aspect this condition describes, such as AvatarReady.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=316
	Type string `json:"type"`

	// Whether the condition holds: True, False, or Unknown.
	// +required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status metav1.ConditionStatus `json:"status"`

	// The metadata.generation the condition was set for.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// When the status last changed; a new reason or message alone does not move it.
	// +required
	LastTransitionTime metav1.Time `json:"lastTransitionTime"`

	// A CamelCase word for why the condition is as it is, such as Fetched or BakeFailed.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason"`

	// What a person needs to know, such as why a picture could not be read. Empty on success.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`
}

// PersonList is a list of people.
//
// +kubebuilder:object:root=true
type PersonList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// The people.
	Items []Person `json:"items"`
}
