// Which device kinds a namespace holds none of. A server's read LISTs every kind a server
// can run (thirteen for a telescope), once per step, while an observatory uses a few of them:
// on a site with twenty telescopes the empty LISTs were most of the API server's work. The
// worker keeps a metadata-only informer per kind and skips the LISTs its caches say are
// empty. A kind that has objects is still LISTed from the API server, so what a step reads
// of the devices it runs is as fresh as before; only the first device of a kind in a
// namespace can be seen a watch delivery later (milliseconds), as if it had joined just after
// the read, which the reservation handles as any joiner.
package observatory

import (
	"context"
	"slices"

	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// EmptyKinds says which kinds a namespace holds no object of; Activities.Empty nil means none
// is known to be empty, and every LIST is made.
type EmptyKinds interface {
	Empty(kind obsv1.Kind, ns string) bool
}

// ServerKinds are the kinds a server's read lists: every device kind, the optical trains and
// the guiders.
func ServerKinds() []obsv1.Kind {
	kinds := slices.Concat(kube.TelescopeDeviceKinds, kube.ObservatoryDeviceKinds,
		[]obsv1.Kind{obsv1.KindOpticalTrain, obsv1.KindGuider})
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// InformedKinds answers Empty from metadata-only informers, one per kind.
type InformedKinds struct {
	informers map[obsv1.Kind]cache.SharedIndexInformer
}

// WatchKinds starts an informer (names and namespaces only) for each kind; they stop with ctx.
// Until a kind's informer has synced, its kind is not known to be empty.
func WatchKinds(ctx context.Context, md metadata.Interface, kinds []obsv1.Kind) *InformedKinds {
	f := metadatainformer.NewSharedInformerFactory(md, 0)
	k := &InformedKinds{informers: map[obsv1.Kind]cache.SharedIndexInformer{}}
	for _, kind := range kinds {
		k.informers[kind] = f.ForResource(kind.GroupVersionResource()).Informer()
	}
	f.Start(ctx.Done())
	return k
}

// Empty says whether kind's synced cache holds no object in ns.
func (k *InformedKinds) Empty(kind obsv1.Kind, ns string) bool {
	inf := k.informers[kind]
	if inf == nil || !inf.HasSynced() {
		return false
	}
	objs, err := inf.GetIndexer().ByIndex(cache.NamespaceIndex, ns)
	return err == nil && len(objs) == 0
}
