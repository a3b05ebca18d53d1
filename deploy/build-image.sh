#!/usr/bin/env bash
# Builds the production image from deploy/Dockerfile without Docker: Debian's buildah (chroot
# isolation, Docker format so HEALTHCHECK is kept), on a base assembled here instead of
# pulled: `debootstrap --variant=minbase` of Debian 12, this machine's Node binary and npm, and user
# `node` (uid 1000), tagged with the name the Dockerfile's FROM lines give, so the Dockerfile
# builds unchanged. CI runs it (`.ci/run`), then `apps/server/test/image.test.ts` runs what it built.
#
#   deploy/build-image.sh [slim|speech|all]      (default all: both targets)
#
# Images: verbatim:slim (`--target runtime`) and verbatim:speech (the default target), in a buildah
# storage of their own, $VERBATIM_IMAGE_CACHE/storage-<driver>: overlay where the kernel allows it (root
# here), else vfs (a full copy per layer: much slower). The driver is written to
# $VERBATIM_IMAGE_CACHE/driver for apps/server/test/image.test.ts, the sizes to sizes.txt.
#
# The assembled base is cached outside the clone, keyed by its inputs (this script's base recipe,
# the Debian suite and mirror, debootstrap's version, the Node binary and npm): a tarball
# $VERBATIM_IMAGE_CACHE/base-<key>.tar (default /var/cache/verbatim-image), made once per key and
# imported into buildah's storage only when the image there has another key. `--layers` keeps
# buildah's layer cache between runs, so an unchanged lockfile skips `pnpm fetch`.
#
# Needs root and the Debian packages buildah and debootstrap (installed with --require when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
targets=${1:-all}
case "$targets" in slim | speech | all) ;; *)
  echo "usage: deploy/build-image.sh [slim|speech|all]" >&2
  exit 2
  ;;
esac

log() { printf '== build-image: %s\n' "$*" >&2; }
cache=${VERBATIM_IMAGE_CACHE:-/var/cache/verbatim-image}
suite=bookworm
mirror=${VERBATIM_DEBIAN_MIRROR:-http://deb.debian.org/debian}
started=$(date +%s)
mkdir -p "$cache"
if ! command -v buildah >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  missing=(buildah debootstrap)
  source scripts/lib/apt-install.sh
  apt_install_missing build-image "building the production image" "no image is built." --require
fi

# Overlay when this kernel and buildah allow it (probed with buildah installed), else vfs.
driver=overlay
probe() { buildah --storage-driver "$1" --root "$cache/storage-$1" --runroot "/run/verbatim-image-$1" images >/dev/null 2>&1; }
probe overlay || driver=vfs
# A store past 20 GB (layers of many old builds) starts again empty: the next build is a cold one.
store=$cache/storage-$driver
if [[ -d $store ]] && (($(du -sm "$store" | cut -f1) > 20480)); then
  log "the layer store is over 20 GB: emptying it"
  rm -rf "$store"
fi
storage=(--storage-driver "$driver" --root "$store" --runroot "/run/verbatim-image-$driver")
echo "$driver" >"$cache/driver"
log "storage: $driver in $store"

# The base image name the Dockerfile builds on (both stages use the same one).
base_name=$(sed -n 's/^FROM \([^ ]*\) AS build$/\1/p' deploy/Dockerfile)
[[ -n $base_name ]] || {
  echo "deploy/Dockerfile: no 'FROM <image> AS build' line" >&2
  exit 1
}
node_bin=$(command -v node)
node_version=$(node --version)
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
# The pinned base names a Node version: this machine's Node must be that version (the image is
# tested with what the Dockerfile names, not with another Node under its name).
wanted_node=$(sed -n 's/^node:\([0-9.]*\)-.*$/\1/p' <<<"$base_name")
if [[ -n $wanted_node && "v$wanted_node" != "$node_version" ]]; then
  echo "deploy/Dockerfile pins $base_name but this machine's node is $node_version: install Node $wanted_node or change the pin" >&2
  exit 1
fi

# --- the base, assembled and cached -----------------------------------------------------------
recipe=$(sed -n '/^# --- the base, assembled and cached/,/^# --- end of the base/p' "$0")
key=$(
  {
    printf '%s\n' "$recipe" "$suite" "$mirror" "$(dpkg-query -W -f='${Version}' debootstrap)" "$node_version"
    sha256sum "$node_bin"
    (cd "$npm_dir" && find . -type f -name package.json -path './package.json' -exec sha256sum {} +)
  } | sha256sum | cut -c1-16
)
tarball=$cache/base-$key.tar
if [[ ! -s $tarball ]]; then
  log "assembling the base $base_name ($key): debootstrap $suite, node $node_version"
  work=$(mktemp -d "$cache/assemble-XXXXXX")
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    cat "$work/debootstrap.log" >&2
    exit 1
  }
  rootfs=$work/rootfs
  install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  chroot "$rootfs" node --version >/dev/null
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  tar -C "$rootfs" --numeric-owner -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
  rm -rf "$work"
  trap - EXIT
  # Older bases of other keys are of no more use.
  find "$cache" -maxdepth 1 -name 'base-*.tar' ! -name "base-$key.tar" -delete
fi
# --- end of the base

if ! buildah "${storage[@]}" inspect --type image "$base_name" 2>/dev/null | grep -q "\"verbatim.base.key\": \"$key\""; then
  log "importing the base $base_name ($key)"
  ctr=$(buildah "${storage[@]}" from scratch)
  buildah "${storage[@]}" add "$ctr" "$tarball" / >/dev/null
  buildah "${storage[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="${node_version#v}" --cmd node --label "verbatim.base.key=$key" "$ctr"
  buildah "${storage[@]}" commit --format docker --rm "$ctr" "$base_name" >/dev/null
fi

# --- the images ---------------------------------------------------------------------------------
# npm reaches the registry inside the build stage: give it this machine's CA bundle (the file
# NODE_EXTRA_CA_CERTS names, where a proxy signs with its own authority).
ca=()
if [[ -n ${NODE_EXTRA_CA_CERTS:-} && -s $NODE_EXTRA_CA_CERTS ]]; then
  ca=(--volume "$NODE_EXTRA_CA_CERTS:/etc/ssl/certs/verbatim-build-ca.crt:ro"
    --build-arg NODE_EXTRA_CA_CERTS=/etc/ssl/certs/verbatim-build-ca.crt)
fi
build() {
  local tag=$1
  shift
  log "building $tag"
  buildah "${storage[@]}" build --isolation chroot --format docker --layers --pull=never "${ca[@]}" \
    -f deploy/Dockerfile -t "$tag" "$@" "$root"
}
[[ $targets == speech ]] || build verbatim:slim --target runtime
[[ $targets == slim ]] || build verbatim:speech

# --- sizes --------------------------------------------------------------------------------------
size_of() { buildah "${storage[@]}" images --noheading --format '{{.Size}}' "$1" | head -n 1; }
{
  echo "base $base_name: $(size_of "$base_name")"
  [[ $targets == speech ]] || echo "verbatim:slim: $(size_of verbatim:slim)"
  [[ $targets == slim ]] || echo "verbatim:speech: $(size_of verbatim:speech)"
  echo "built in $(($(date +%s) - started)) s"
} | tee "$cache/sizes.txt" >&2
