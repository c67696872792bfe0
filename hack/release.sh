#!/usr/bin/env bash
# Cuts a release on main, as one commit and its tag: deploy/ pins the runner's and the DRA driver's images to the
# version (so `deploy?ref=vX.Y.Z` installs the images that release pushed, every time),
# CHANGELOG.md's "(unreleased)" section gets the day, and the workflow histories recorded since
# the last release (testdata/histories/unreleased/) become the release's own, which every later
# change must keep replaying. Pushing the tag runs the pipeline: the tests, the images pushed
# with that tag, and the rendered deploy/ attached to the GitHub release.
#
#   hack/release.sh v0.1.0 && git push origin main v0.1.0
set -euo pipefail

version=${1:?usage: hack/release.sh vX.Y.Z}
[[ $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "not a version: $version" >&2; exit 1; }
cd "$(dirname "$0")/.."
[ -z "$(git status --porcelain)" ] || { echo "the checkout has uncommitted changes" >&2; exit 1; }
grep -q "^## $version (unreleased)" CHANGELOG.md ||
  { echo "CHANGELOG.md has no section \"## $version (unreleased)\"" >&2; exit 1; }

for k in deploy/kustomization.yaml deploy/people/kustomization.yaml deploy/observatory/kustomization.yaml; do
  sed -i -E "/name: ghcr.io\/liken-sh\/people-operator/{n;s/newTag: .*/newTag: $version/}" "$k"
  grep -q "newTag: $version" "$k" || { echo "$k: no runner image entry to pin" >&2; exit 1; }
done
sed -i -E "/name: ghcr.io\/liken-sh\/serial-devices/{n;s/newTag: .*/newTag: $version/}" deploy/kustomization.yaml deploy/devices/kustomization.yaml
grep -A1 "name: ghcr.io/liken-sh/serial-devices" deploy/devices/kustomization.yaml | grep -q "newTag: $version" ||
  { echo "deploy/devices/kustomization.yaml: no driver image entry to pin" >&2; exit 1; }
# The build the watcher makes current, and the worker Deployment of that build (internal/rollout).
sed -i -E "s/(liken.sh\/build:) .*/\1 $version/" deploy/people/watcher.yaml deploy/people/worker/kustomization.yaml
sed -i -E "s/^nameSuffix: .*/nameSuffix: -$version/" deploy/people/worker/kustomization.yaml
for f in deploy/people/watcher.yaml deploy/people/worker/kustomization.yaml; do
  grep -q "liken.sh/build: $version" "$f" || { echo "$f: no build label to set" >&2; exit 1; }
done
sed -i "s/^## $version (unreleased)/## $version ($(date -u +%Y-%m-%d))/" CHANGELOG.md

histories=workflows/testdata/histories
if [ -d "$histories/unreleased" ]; then
  [ ! -e "$histories/$version" ] || { echo "$histories/$version exists already" >&2; exit 1; }
  git mv "$histories/unreleased" "$histories/$version"
fi
[ -d "$histories/$version" ] || { echo "no histories of $version: record them first (docs/development.md)" >&2; exit 1; }

git commit -qam "Release $version"
git tag -a "$version" -m "$version"
echo "tagged $version; push with: git push origin main $version"
