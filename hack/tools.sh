#!/usr/bin/env bash
# Builds, once per machine, the programs the local stack and the tests need, into versioned
# folders of the user's tool cache: liken/ in $XDG_CACHE_HOME, else in ~/.cache, shared by every
# checkout (LIKEN_CACHE moves it). A folder that exists is complete: each is built in a
# temporary folder and renamed at the end, so an interrupted build is redone next time, and
# under a lock, so two runs that need one at once build it once. Prints the cache path on the
# last line.
#
#   hack/tools.sh [--for WHO] [TOOL...]   builds TOOLs (default: all), saying WHO needs them
#
#   kube-v1.37.2/     kube-apiserver kube-controller-manager kube-scheduler kubectl etcd
#   kwok-v0.8.0/      kwok, and stages.yaml (node ready + heartbeat, pods ready/complete/delete)
#   temporal-v1.5.1/  temporal (the CLI, whose `server start-dev` is the dev server + Web UI)
#   temporal-server-v1.29.1/  temporal-server and temporal-sql-tool (hack/temporalbins): the
#                     server release that CLI embeds, which deploy/temporal/postgres runs
#   loopback-v1/      loopback.so, which makes the dev mode's indiservers listen on 127.0.0.1 only
#   registry-v3.1.2/  registry (hack/registrybins): the CNCF distribution registry the real
#                     node pulls its images from
#   debian-indi-<version>-<arch>/  Debian bookworm's .debs of indi-bin INDI_DEBIAN_VERSION,
#                     the indi-open drivers' packages and socat for amd64 and arm64, with their
#                     dependencies (debs/), extracted (root/): what `make images` builds the
#                     INDI images from, whatever this machine runs
#   qemu-aarch64-static comes from Debian's qemu-user-static, to run the arm64 runner in a test.
#   indiserver and the INDI simulators the tests run come from Debian's indi-bin, initdb and postgres from
#   Debian's postgresql, and the C compiler for loopback.so from Debian's gcc (each installed
#   when missing).
#   node: the real node's kubelet, kube-proxy, containerd and CoreDNS (see tools-node.sh).
set -euo pipefail

KUBE_VERSION=v1.37.2
KWOK_VERSION=v0.8.0 # hack/kubebins/go.mod pins the same
TEMPORAL_VERSION=v1.5.1
LOOPBACK_VERSION=v1
TEMPORAL_SERVER_VERSION=v1.29.1 # hack/temporalbins/go.mod pins the same
REGISTRY_VERSION=v3.1.2 # hack/registrybins/go.mod pins the same
# The INDI images' packages: indi-bin of this source version (kube.INDIImageTag names its
# release; build/images pins the same), and the indi-3rdparty drivers of the indi-open image
# (kube.OpenImage), Debian's builds against that libindi: EQMod mounts, gphoto's cameras, gpsd,
# the AAG CloudWatcher.
INDI_DEBIAN_VERSION=1.9.9+dfsg-2
INDI_OPEN_PACKAGES="indi-eqmod indi-gphoto indi-gpsd indi-aagcloudwatcher-ng"

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${LIKEN_CACHE:-${XDG_CACHE_HOME:-${HOME:?set HOME, XDG_CACHE_HOME or LIKEN_CACHE}/.cache}/liken}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
who=hack/tools.sh
if [ "${1:-}" = --for ]; then who=$2; shift 2; fi

# shellcheck source=tools-node.sh
source "$root/hack/tools-node.sh"

log() { printf '[tools] %s\n' "$*" >&2; }

# locked FILE CMD...: runs CMD holding the lock FILE, saying so when another run holds it.
locked() {
  local file=$1; shift
  (
    exec {fd}>"$file"
    flock -n "$fd" || { log "waiting for another run that holds $file"; flock "$fd"; }
    "$@"
  )
}

# build NAME CMD...: unless NAME is built, runs CMD with $out set to a fresh temp folder, then
# renames it to NAME; under NAME's lock, so a second run waits and then finds it built.
build() {
  if [ ! -d "$cache/$1" ]; then locked "$cache/.$1.lock" build_locked "$@"; fi
}

build_locked() {
  local name=$1; shift
  [ -d "$cache/$name" ] && return 0
  local started=$SECONDS
  log "building $name for $who, once for this machine, into $cache (docs/development.md says how long it takes)"
  out=$(mktemp -d "$cache/.$name.XXXX")
  "$@"
  mv "$out" "$cache/$name"
  log "built $name in $((SECONDS - started))s"
}

# kube_ldflags: the version k8s.io/kubernetes's own build stamps into its programs.
kube_ldflags() {
  local v=${KUBE_VERSION#v}
  echo "-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION" \
    "-X k8s.io/component-base/version.gitMajor=${v%%.*}" \
    "-X k8s.io/component-base/version.gitMinor=$(echo "$v" | cut -d. -f2)"
}

# The control plane and kwok are built as `make build` builds the runner (static, -trimpath),
# from hack/kubebins, which requires the runner's versions of the modules both use
# (hack/aligned.sh checks it): the Go build cache then compiles the packages they share
# (client-go, the API types, gRPC) once for both, which saves minutes of a first `make run`.
kube() {
  (cd "$root/hack/kubebins" && CGO_ENABLED=0 go build -trimpath -ldflags "$(kube_ldflags)" -o "$out/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl go.etcd.io/etcd/server/v3)
  mv "$out/v3" "$out/etcd" 2>/dev/null || mv "$out/server" "$out/etcd"
}

kwok() {
  (cd "$root/hack/kubebins" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/" sigs.k8s.io/kwok/cmd/kwok)
  local dir
  dir=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  # kwok's own stages: a node becomes Ready and keeps its Lease; pods become Ready, Jobs' pods
  # complete, and deleted pods go away.
  for f in "$dir"/kustomize/stage/node/fast/node-initialize.yaml \
           "$dir"/kustomize/stage/node/heartbeat-with-lease/*.yaml \
           "$dir"/kustomize/stage/pod/fast/pod-ready.yaml \
           "$dir"/kustomize/stage/pod/fast/pod-complete.yaml \
           "$dir"/kustomize/stage/pod/fast/pod-delete.yaml; do
    [ -f "$f" ] || continue
    cat "$f"; echo '---'
  done > "$out/stages.yaml"
}

temporal() {
  CGO_ENABLED=0 GOBIN=$out go install -trimpath -ldflags "-s -w" "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION"
}

# The server's own schemas are embedded in temporal-sql-tool (--schema-name), as in the
# admin-tools image the overlay's init container runs.
temporal_server() {
  (cd "$root/hack/temporalbins" && go build -trimpath -ldflags "-s -w" -o "$out/" \
    go.temporal.io/server/cmd/server go.temporal.io/server/cmd/tools/sql)
  mv "$out/server" "$out/temporal-server"
  mv "$out/sql" "$out/temporal-sql-tool"
}

registry() {
  (cd "$root/hack/registrybins" && go build -trimpath -ldflags "-s -w" -o "$out/" \
    github.com/distribution/distribution/v3/cmd/registry)
}

# indi_debs ARCH: Debian bookworm's packages of a CPU, indi-bin of INDI_DEBIAN_VERSION and
# INDI_OPEN_PACKAGES, with everything they depend on, downloaded and extracted. apt runs on a
# state, cache and sources of its own in the build folder, so this machine's apt configuration,
# package lists and distribution (Debian, Ubuntu) neither matter nor change.
indi_debs() {
  local arch=$1 a=$out/apt
  mkdir -p "$a"/state/lists/partial "$a"/cache/archives/partial "$a"/sources "$a"/preferences "$out"/debs "$out"/root
  touch "$a"/state/status
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -e $keyring ] || apt debian-archive-keyring
  cat > "$a"/sources/debian.sources <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Architectures: $arch
Signed-By: $keyring

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Architectures: $arch
Signed-By: $keyring
EOF
  local o=(-o Dir::State="$a"/state -o Dir::State::status="$a"/state/status -o Dir::Cache="$a"/cache
    -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$a"/sources
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$a"/preferences
    -o APT::Architecture="$arch" -o APT::Architectures="$arch" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  apt-get "${o[@]}" -qq update >&2
  local version pkgs
  version=$(apt-cache "${o[@]}" show indi-bin | awk -v v="$INDI_DEBIAN_VERSION" -v RS= '
    { src = ""; ver = ""; for (i = 1; i <= NF; i++) { if ($i == "Source:") src = $(i + 2); if ($i == "Version:") ver = $(i + 1) }
      if (src == "(" v ")" || (src == "" && ver == v)) { print ver; exit } }')
  [ -n "$version" ] || { log "Debian has no $arch indi-bin of source version $INDI_DEBIAN_VERSION"; return 1; }
  # shellcheck disable=SC2086
  pkgs=$(apt-cache "${o[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances --no-pre-depends "indi-bin=$version" $INDI_OPEN_PACKAGES socat | grep -v '^[ <]' | sort -u)
  # shellcheck disable=SC2086
  (cd "$out/debs" && apt-get "${o[@]}" -qq download $pkgs >&2)
  for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/root"; done
  rm -rf "$a"
}

qemu() {
  command -v qemu-aarch64-static >/dev/null && return 0
  log "installing Debian's qemu-user-static (runs the arm64 runner in a test)"
  apt qemu-user-static
}

# apt PACKAGE...: installs Debian packages (with sudo unless root). No service may start: the
# stack runs its own processes and stops them, so a policy-rc.d refuses every start while apt
# runs. Another apt (a test machine's own) may hold the lock for a while: wait for it; another
# run of this script waits for ours.
apt() { locked "$cache/.apt.lock" apt_locked "$@"; }

apt_locked() {
  local sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  local rcd=/usr/sbin/policy-rc.d placed=
  if [ ! -e $rcd ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee $rcd >/dev/null && $sudo chmod 755 $rcd && placed=1
  fi
  local rc=0
  $sudo apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq -o DPkg::Lock::Timeout=300 "$@" >&2 || rc=$?
  [ -z "$placed" ] || $sudo rm -f $rcd
  return $rc
}

# indi installs the indiserver and simulators the tests run. The tests and the notes they rest
# on are made for the INDI the images hold: another one (Ubuntu's, say) is named in the log.
indi() {
  if ! command -v indiserver >/dev/null || ! command -v indi_simulator_telescope >/dev/null; then
    log "installing Debian's indi-bin (indiserver and the INDI simulators)"
    apt indi-bin
  fi
  local v
  v=$(dpkg-query -W -f='${source:Version}' indi-bin 2>/dev/null || true)
  [ "$v" = "$INDI_DEBIAN_VERSION" ] ||
    log "warning: this machine's indi-bin is ${v:-not a package}; the tests are made for Debian's $INDI_DEBIAN_VERSION, which the images hold"
}

loopback() {
  if ! command -v cc >/dev/null || [ ! -e /usr/include/dlfcn.h ]; then
    log "installing Debian's gcc (to build loopback.so)"
    apt gcc libc6-dev
  fi
  cc -shared -fPIC -O2 -Wall -Wextra -o "$out/loopback.so" "$root/hack/loopback/loopback.c" -ldl
}

# The stack runs PostgreSQL's initdb and postgres itself, in its own folder; Debian keeps them
# off PATH, in /usr/lib/postgresql/<version>/bin. The package would also create a cluster of
# its own: createcluster.d refuses it (apt refuses the service).
postgres() {
  command -v initdb >/dev/null && return 0
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && return 0
  log "installing Debian's postgresql (initdb and postgres; no cluster, no service)"
  local sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo mkdir -p /etc/postgresql-common/createcluster.d
  echo 'create_main_cluster = false' | $sudo tee /etc/postgresql-common/createcluster.d/liken.conf >/dev/null
  local rc=0
  apt postgresql || rc=$?
  $sudo rm -f /etc/postgresql-common/createcluster.d/liken.conf
  return $rc
}

want=${*:-kube kwok temporal temporal-server indi postgres loopback node registry indi-images qemu}
for w in $want; do
  case $w in
    kube) build "kube-$KUBE_VERSION" kube ;;
    kwok) build "kwok-$KWOK_VERSION" kwok ;;
    temporal) build "temporal-$TEMPORAL_VERSION" temporal ;;
    temporal-server) build "temporal-server-$TEMPORAL_SERVER_VERSION" temporal_server ;;
    indi) indi ;;
    loopback) build "loopback-$LOOPBACK_VERSION" loopback ;;
    node) node ;;
    registry) build "registry-$REGISTRY_VERSION" registry ;;
    indi-images) for arch in amd64 arm64; do build "debian-indi-$INDI_DEBIAN_VERSION-$arch" indi_debs "$arch"; done ;;
    qemu) qemu ;;
    postgres) postgres ;;
    *) log "unknown tool $w"; exit 2 ;;
  esac
done
echo "$cache"
