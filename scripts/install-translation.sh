#!/usr/bin/env bash
# Installs what local translation needs, from Debian packages, only when missing:
#
#   apertium          the rule-based translator (`apertium <pair> -f none`), run as a child process
#   apertium-eng-spa  the English <-> Spanish pair (more pairs: `apt-cache search apertium-`;
#                     every installed pair is found, none is named in the code)
#
# Idempotent and quiet when everything is there. Runs `apt-get update` once when it must install.
# As root it installs; otherwise it uses `sudo -n` when that works; otherwise (or on a system
# without apt-get, or when the install fails) it says what to install and exits 0: translation on
# the embedded default then answers unsupported_language until a pair is there (or a model is set).
#
# Usage: scripts/install-translation.sh
set -uo pipefail

packages=(apertium apertium-eng-spa)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
else
  command -v apertium >/dev/null 2>&1 || missing+=(apertium apertium-eng-spa)
fi
[[ ${#missing[@]} -eq 0 ]] && exit 0

advise() {
  {
    echo "install-translation: $1"
    echo "install-translation: local translation needs the Debian packages: ${missing[*]}"
    echo "install-translation:   sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
    echo "install-translation: until then translation without a model (VERBATIM_AI_MODEL) answers unsupported_language."
  } >&2
  exit 0
}

command -v apt-get >/dev/null 2>&1 || advise "apt-get is not available on this system."

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  advise "not root and sudo -n is not available."
fi

echo "install-translation: installing ${missing[*]}" >&2
started=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$@" >"$log" 2>&1 || { cat "$log" >&2; false; }; }
run apt-get update -qq || advise "apt-get update failed."
run apt-get install -y -qq --no-install-recommends "${missing[@]}" || advise "apt-get install failed."
echo "install-translation: installed ${missing[*]} in $(($(date +%s) - started)) s" >&2
