// The labels both sides put on what they create. Each side's own labels and annotations are in
// its files (people.go, observatory_labels.go); the one they share is here.
package kube

// LabelManagedBy is the standard label naming who manages an object: PeopleComponent on a
// baker pod, ObservatoryComponent on the observatory's pods, Services, claims and Jobs.
const LabelManagedBy = "app.kubernetes.io/managed-by"
