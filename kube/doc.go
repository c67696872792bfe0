// Package kube holds the pure side of the runner's Kubernetes work: the names, labels and
// specs of the objects it creates, and the composition of the statuses it writes. Nothing here
// calls an API server, so every rule is tested with plain tables; the activities do the calls.
//
// The people side's files begin with people or person, the observatory's with the name of
// what they build (observatory_, reservation_, inventory_, procedures, …). What both sides
// share is in labels.go (the managed-by label) and events.go (the Events and how a repeat
// is counted).
package kube
