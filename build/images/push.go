// Pushing images to a registry: each name becomes an index listing its platforms' images,
// so a node pulls the one for its CPU. Where an image goes is a function of its name, since
// the test world's registry stands in for several (ghcr.io, registry.k8s.io, Docker Hub)
// while a release goes to one user-given registry.
package images

import (
	"context"
	"fmt"
	"path"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Destination names where an image of the given name is pushed.
type Destination func(image string) (name.Reference, error)

// Mirror keeps each image's repository and tag in the registry at host, which stands in for
// every registry the names say: ghcr.io/liken-sh/indi:1.9.9 goes to host/liken-sh/indi:1.9.9,
// busybox:1.35 to host/library/busybox:1.35 (the path a registry mirror is asked for).
func Mirror(host string) Destination {
	return func(image string) (name.Reference, error) {
		ref, err := name.ParseReference(image)
		if err != nil {
			return nil, err
		}
		return name.ParseReference(host + "/" + ref.Context().RepositoryStr() + ":" + ref.Identifier())
	}
}

// Into puts each image in one repository folder, the last element of its name kept:
// Into("registry.example/liken") sends ghcr.io/liken-sh/indi:1.9.9 to
// registry.example/liken/indi:1.9.9.
func Into(registry string) Destination {
	return func(image string) (name.Reference, error) {
		ref, err := name.ParseReference(image)
		if err != nil {
			return nil, err
		}
		return name.ParseReference(registry + "/" + path.Base(ref.Context().RepositoryStr()) + ":" + ref.Identifier())
	}
}

// Push pushes the images, one index per name with a manifest per platform, and returns
// where each went.
func Push(ctx context.Context, imgs []Image, to Destination) ([]name.Reference, error) {
	var order []string
	byName := map[string][]Image{}
	for _, im := range imgs {
		if _, ok := byName[im.Name]; !ok {
			order = append(order, im.Name)
		}
		byName[im.Name] = append(byName[im.Name], im)
	}
	var refs []name.Reference
	for _, n := range order {
		ref, err := to(n)
		if err != nil {
			return nil, fmt.Errorf("image name %q: %w", n, err)
		}
		idx, err := index(byName[n])
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", n, err)
		}
		// The keychain reads the registry's credentials as docker login wrote them; the
		// test world's registry needs none.
		if err := remote.WriteIndex(ref, idx, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
			return nil, fmt.Errorf("push %s: %w", ref, err)
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

// index is an OCI index of one name's images, one per platform.
func index(imgs []Image) (v1.ImageIndex, error) {
	var adds []mutate.IndexAddendum
	for _, im := range imgs {
		img, err := im.v1()
		if err != nil {
			return nil, err
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			MediaType: types.OCIManifestSchema1,
			Platform:  &v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant},
		}})
	}
	return mutate.IndexMediaType(mutate.AppendManifests(empty.Index, adds...), types.OCIImageIndex), nil
}
