#!/usr/bin/env bash
# Writes third_party/go.temporal.io/sdk: the Temporal Go SDK release go.mod names, as the Go
# module proxy serves it, with one change. The SDK keeps its workflow test suite in the
# package every client and worker imports (go.temporal.io/sdk/internal), so every Temporal Go
# program links `testing` and testify. Here those two files and the public testsuite package
# build only with the tag temporal_testsuite, which `make test` and `make check` pass: the
# binaries link no test code, and the workflow tests keep the SDK's test environment.
# go.mod's replace points at the copy. To take a new SDK release: `go get` it, run this, and
# commit the copy it writes.
#
#   bash hack/temporal-sdk.sh
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(go list -m -f '{{.Version}}' go.temporal.io/sdk)
src=$(go mod download -json "go.temporal.io/sdk@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "cannot download go.temporal.io/sdk@$version" >&2; exit 1; }
out=third_party/go.temporal.io/sdk
rm -rf "$out"
mkdir -p "$out"

# The module's programs and sources, without its tests, its own build tools and contrib/.
(cd "$src" && find . -type f \( -name '*.go' ! -name '*_test.go' -o -name go.mod -o -name go.sum -o -name LICENSE \) \
  ! -path './contrib/*' ! -path './internal/cmd/*' ! -path '*/testdata/*') |
  while read -r f; do
    mkdir -p "$out/$(dirname "$f")"
    cp "$src/$f" "$out/$f"
  done
chmod -R u+w "$out"

# The change: hack/temporal-sdk.patch. It tags the test suite's files, its public package and
# the SDK's interceptortest (which uses it), and moves the two pieces the rest of internal
# needs out of them: EncodedValues (encoded_values.go) one way, the Nexus test client
# (nexus_operations_testsuite.go) the other. A new release that the patch no longer fits
# fails here; make the same change by hand and write the patch again with `diff -ruN`.
patch -s -d "$out" -p1 < hack/temporal-sdk.patch
echo "$version" > "$out/VERSION"
echo "wrote $out ($version)"
