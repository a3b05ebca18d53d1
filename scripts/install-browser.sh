#!/usr/bin/env bash
# Installs Debian's Chromium, which the consent page's browser test drives headless
# (apps/mcp/test/consent-browser.test.ts, through playwright-core at /usr/bin/chromium), only when
# it is missing. Without it that test is skipped, saying so (under CI=true it fails instead).
#
# Idempotent and quiet when Chromium is there. As root it installs; otherwise it uses `sudo -n`
# when that works; otherwise (or without apt-get, or when the install fails) it says what to
# install and exits 0.
#
# Usage: scripts/install-browser.sh
set -uo pipefail

[[ -x /usr/bin/chromium ]] && exit 0

advise() {
  {
    echo "install-browser: $1"
    echo "install-browser: the consent page's browser test needs Debian's chromium:"
    echo "install-browser:   sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium"
    echo "install-browser: until then that test is skipped (it fails under CI=true)."
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

echo "install-browser: installing chromium" >&2
started=$(date +%s)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$@" >"$log" 2>&1 || { cat "$log" >&2; false; }; }
run apt-get update -qq || advise "apt-get update failed."
run apt-get install -y -qq --no-install-recommends chromium || advise "apt-get install failed."
echo "install-browser: installed chromium in $(($(date +%s) - started)) s" >&2
