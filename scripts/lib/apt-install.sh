# Sourced by scripts/install-*.sh: installs the Debian packages in the array `missing` with
# apt-get (as root, or with `sudo -n`), running `apt-get update` first.
#
# Two modes, chosen by the caller's first argument:
#
#   (none)      `pnpm start`, `pnpm worker`, `pnpm test` on a developer's machine: where it cannot
#               install (no apt-get, no root) or apt-get fails, it says what to install and what
#               happens until then, and exits 0, since the service runs without these packages
#               (their features answer an error until they are there).
#   --require   the production image and CI (`deploy/Dockerfile`, `.ci/run`): the packages are the
#               point, so anything short of every package installed exits 1 with the same advice,
#               failing the caller (a `RUN` step, the CI run) instead of shipping an image without them.
#
# After apt-get succeeds, the packages are asked of dpkg again: one still missing is a failure too.
#
# Usage (after filling `missing`; `"$@"` are the script's own arguments):
#   source "$(dirname "$0")/lib/apt-install.sh"
#   apt_install_missing <tag> <what needs them> <what happens until then> "$@"
source "$(dirname "${BASH_SOURCE[0]}")/missing-packages.sh"

apt_install_missing() {
  local tag=$1 needs=$2 until=$3 required=0
  shift 3
  case "${1:-}" in
    --require) required=1 ;;
    "") ;;
    *)
      echo "$tag: unknown argument $1 (expected --require or nothing)" >&2
      exit 2
      ;;
  esac
  advise() {
    {
      echo "$tag: $1"
      echo "$tag: $needs needs the Debian packages: ${missing[*]}"
      echo "$tag:   sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
      if [[ $required -eq 1 ]]; then
        echo "$tag: required (--require): failing"
      else
        echo "$tag: until then $until"
      fi
    } >&2
    exit "$required"
  }

  command -v apt-get >/dev/null 2>&1 || advise "apt-get is not available on this system."

  local as_root
  if [[ $(id -u) -eq 0 ]]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
  else
    advise "not root and sudo -n is not available."
  fi

  echo "$tag: installing ${missing[*]}" >&2
  local started log
  started=$(date +%s)
  log=$(mktemp)
  # shellcheck disable=SC2064
  trap "rm -f '$log'" EXIT
  run() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$@" >"$log" 2>&1 || { cat "$log" >&2; false; }; }
  # Another install (a parallel test run, unattended upgrades) may hold dpkg's lock: wait for it.
  run apt-get -o DPkg::Lock::Timeout=600 update -qq || advise "apt-get update failed."
  run apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" || advise "apt-get install failed."
  if command -v dpkg-query >/dev/null 2>&1; then
    local wanted=("${missing[@]}")
    missing_packages "${wanted[@]}"
    [[ ${#missing[@]} -eq 0 ]] || advise "apt-get install ended, but dpkg does not have every package installed."
    missing=("${wanted[@]}")
  fi
  echo "$tag: installed ${missing[*]} in $(($(date +%s) - started)) s" >&2
}
