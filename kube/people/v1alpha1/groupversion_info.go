// Package v1alpha1 holds the Go types of the people.liken.sh/v1alpha1 API: the Person, a
// cluster-scoped record of someone other resources refer to by name, and the picture the
// runner keeps in its status. The CRD YAML under deploy/crds/people is generated from these
// types by hack/generate.sh; the runner reads and writes them through the dynamic client and
// runtime.DefaultUnstructuredConverter, so only DeepCopy is generated, no clientset.
//
// +kubebuilder:object:generate=true
// +groupName=people.liken.sh
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of every kind in this package.
const GroupName = "people.liken.sh"

var (
	// SchemeGroupVersion is the group and version of every kind in this package.
	SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

	// PersonResource is what the dynamic client needs to reach people.
	PersonResource = SchemeGroupVersion.WithResource("people")

	// PersonKind is the kind a Person's owner references and Events name.
	PersonKind = SchemeGroupVersion.WithKind("Person")

	// SchemeBuilder collects the functions that add this package's kinds to a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds Person and PersonList to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Person{}, &PersonList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
