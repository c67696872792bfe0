#!/usr/bin/env bash
# Checks that the runner's module and hack/kubebins (the control plane, kwok, the real node's
# kubelet) require one version of each module both use. The Go build cache shares a compiled
# package only between builds of the same module version, so aligned versions let a first
# `make run` compile client-go, the API types and gRPC once for the runner and the control
# plane instead of twice (hack/tools.sh builds both static and with -trimpath, as `make build`).
# To realign, `go get` the higher version in the module that has the lower, then run this again.
set -euo pipefail
export LC_ALL=C # one order for sort and join
root=$(cd "$(dirname "$0")/.." && pwd)
# versions PACKAGES...: the module and version of each package the PACKAGES build from.
versions() { go list -deps -f '{{with .Module}}{{.Path}} {{.Version}}{{end}}' "$@" | sort -u; }
runner=$(cd "$root" && versions ./...)
# hack/kubebins names the programs it builds in its files' blank imports.
# shellcheck disable=SC2046 # one word per program
tools=$(cd "$root/hack/kubebins" && versions $(sed -n 's/^\s*_ "\(.*\)"$/\1/p' ./*.go))
apart=$(join <(echo "$runner") <(echo "$tools") | awk '$2 != $3 { print "  " $1 ": the runner " $2 ", hack/kubebins " $3 }')
if [ -n "$apart" ]; then
  echo "the runner and hack/kubebins require different versions of modules they both build with:"
  echo "$apart"
  exit 1
fi
