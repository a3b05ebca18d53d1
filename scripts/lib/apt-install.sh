# Sourced by scripts/install-*.sh: installs the Debian packages in the array `missing` with
# apt-get (as root, or with `sudo -n`), running `apt-get update` first. Never fails the caller:
# where it cannot install (no apt-get, no root, apt-get failing) it says what to install and what
# happens until then, and exits 0.
#
# Usage (after filling `missing`):
#   source "$(dirname "$0")/lib/apt-install.sh"
#   apt_install_missing <tag> <what needs them> <what happens until then>
apt_install_missing() {
  local tag=$1 needs=$2 until=$3
  advise() {
    {
      echo "$tag: $1"
      echo "$tag: $needs needs the Debian packages: ${missing[*]}"
      echo "$tag:   sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
      echo "$tag: until then $until"
    } >&2
    exit 0
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
  run apt-get update -qq || advise "apt-get update failed."
  run apt-get install -y -qq --no-install-recommends "${missing[@]}" || advise "apt-get install failed."
  echo "$tag: installed ${missing[*]} in $(($(date +%s) - started)) s" >&2
}
